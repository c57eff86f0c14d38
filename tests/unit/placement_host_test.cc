// Placement and values on the host, on the simulated device (sim_provider.h): CPU kernels that
// read only dims take device values where they are; integer arithmetic on host values stays
// on the CPU; fusions judged against the preferred provider; external weights copied to the
// device leave none of the mapped file resident.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "cli_runner.h"
#include "process_stats.h"
#include "sim_provider.h"

namespace onyx {
namespace {

using namespace sim_test;

TEST(Placement, ShapeAndSizeReadADeviceValueWhereItIs) {
  ModelBuilder b;
  b.input("x", {2, 3}).output("z", {2, 3}).output("dims", {2}, onnx::TensorProto::INT64);
  b.output("count", {}, onnx::TensorProto::INT64);
  b.node("Relu", {"x"}, {"r"});
  b.node("Shape", {"r"}, {"dims"});
  b.node("Size", {"r"}, {"count"});
  b.node("Relu", {"r"}, {"z"});
  auto s = make(b, on_sim());
  ASSERT_TRUE(s);
  EXPECT_EQ(find(*s, "Shape")->provider, "CPU");
  EXPECT_EQ(count_copies(*s), 2u);  // x up, z down; r is not copied to the host for its dims
  const int copies_before = SimProvider::instance()->copies;
  auto out = s->run({{"x", Value(ramp({2, 3}, -1, 1))}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(SimProvider::instance()->copies - copies_before, 2);
  EXPECT_EQ((*out)[1].tensor().to_int64_vector(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ((*out)[2].tensor().to_int64_vector(), (std::vector<int64_t>{6}));
}

// Fusions are judged against the preferred provider (optimizer::ProviderTarget). SIM runs
// every node of the erf GELU but has no com.microsoft:Gelu: the nodes stay unfused, on SIM.
// It has no Tanh, so the tanh GELU is fused anyway (FastGelu, on the CPU), as on the CPU alone.
TEST(Placement, AFusionIsMadeOnlyWhereThePreferredProviderGainsFromIt) {
  auto scalar = [](ModelBuilder& b, const std::string& name, float v) {
    b.initializer(name, {}, {v});
    return name;
  };
  ModelBuilder erf_gelu;
  erf_gelu.input("x", {2, 8}).output("y", {2, 8});
  erf_gelu.node("Div", {"x", scalar(erf_gelu, "root2", std::sqrt(2.f))}, {"d"});
  erf_gelu.node("Erf", {"d"}, {"e"});
  erf_gelu.node("Add", {"e", scalar(erf_gelu, "one", 1.f)}, {"p"});
  erf_gelu.node("Mul", {"x", "p"}, {"xp"});
  erf_gelu.node("Mul", {"xp", scalar(erf_gelu, "half", 0.5f)}, {"y"});
  auto on_device = make(erf_gelu, on_sim(), nullptr, 2);
  auto on_cpu = make(erf_gelu, SessionOptions(), nullptr, 2);
  ASSERT_TRUE(on_device && on_cpu);
  EXPECT_EQ(on_cpu->model().graph.nodes.size(), 1u);  // Gelu
  ASSERT_EQ(on_device->model().graph.nodes.size(), 5u);
  for (const NodePlacement& p : on_device->placement())
    if (!p.is_copy) EXPECT_EQ(p.provider, "SIM") << p.node;
  ASSERT_EQ(on_device->declined_rewrites().size(), 1u);
  EXPECT_NE(on_device->declined_rewrites()[0].find("gelu_fusion: SIM has no kernel for com.microsoft:Gelu (1 match"),
            std::string::npos) << on_device->declined_rewrites()[0];
  EXPECT_TRUE(on_cpu->declined_rewrites().empty());
  Tensor x = ramp({2, 8}, -3, 0.4f);
  auto a = on_device->run({{"x", Value(x)}});
  auto b = on_cpu->run({{"x", Value(x)}});
  ASSERT_TRUE(a.ok() && b.ok()) << a.status().to_string() << b.status().to_string();
  for (int i = 0; i < 16; ++i)
    EXPECT_NEAR((*a)[0].tensor().data<float>()[i], (*b)[0].tensor().data<float>()[i], 1e-6) << i;

  ModelBuilder tanh_gelu;  // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
  tanh_gelu.input("x", {2, 8}).output("y", {2, 8});
  tanh_gelu.node("Mul", {"x", "x"}, {"sq"});
  tanh_gelu.node("Mul", {"sq", "x"}, {"cube"});
  tanh_gelu.node("Mul", {scalar(tanh_gelu, "c", 0.044715f), "cube"}, {"cc"});
  tanh_gelu.node("Add", {"x", "cc"}, {"inner"});
  tanh_gelu.node("Mul", {"inner", scalar(tanh_gelu, "k", 0.7978846f)}, {"scaled"});
  tanh_gelu.node("Tanh", {"scaled"}, {"t"});
  tanh_gelu.node("Add", {"t", scalar(tanh_gelu, "one", 1.f)}, {"p"});
  tanh_gelu.node("Mul", {scalar(tanh_gelu, "half", 0.5f), "x"}, {"hx"});
  tanh_gelu.node("Mul", {"hx", "p"}, {"y"});
  auto fused = make(tanh_gelu, on_sim(), nullptr, 2);
  ASSERT_TRUE(fused);
  ASSERT_EQ(fused->model().graph.nodes.size(), 1u);
  EXPECT_EQ(fused->model().graph.nodes[0].op_type, "FastGelu");
  EXPECT_EQ(find(*fused, "com.microsoft:FastGelu")->provider, "CPU");
  EXPECT_TRUE(fused->declined_rewrites().empty());
}

// Shape and index arithmetic on host values stays on the CPU (no round trip of small integer
// tensors through the device), unless placement is strict.
TEST(Placement, IntegerArithmeticOnHostValuesStaysOnTheHost) {
  // dims = Shape(x) is computed on the host; Reshape(dims) stays there. Reshape(ids), ids a
  // graph input, goes to the SIM: a caller may feed ids on the device (IoBinding).
  ModelBuilder b;
  b.input("x", {2, 3}).input("ids", {2, 3}, onnx::TensorProto::INT64);
  b.output("dims_again", {2}, onnx::TensorProto::INT64).output("flat", {6}, onnx::TensorProto::INT64);
  for (const auto& [name, value] : {std::make_pair("shape6", int64_t(6)), std::make_pair("shape2", int64_t(2))}) {
    auto* shape = b.graph->add_initializer();
    shape->set_name(name);
    shape->set_data_type(onnx::TensorProto::INT64);
    shape->add_dims(1);
    shape->add_int64_data(value);
  }
  b.node("Shape", {"x"}, {"dims"});
  b.node("Reshape", {"dims", "shape2"}, {"dims_again"}, "of_dims");
  b.node("Reshape", {"ids", "shape6"}, {"flat"}, "of_ids");
  auto s = make(b, on_sim());
  ASSERT_TRUE(s);
  const NodePlacement* of_dims = nullptr;
  const NodePlacement* of_ids = nullptr;
  for (const NodePlacement& p : s->placement()) {
    if (p.node == "'of_dims' (Reshape)") of_dims = &p;
    if (p.node == "'of_ids' (Reshape)") of_ids = &p;
  }
  ASSERT_TRUE(of_dims && of_ids);
  EXPECT_EQ(of_dims->provider, "CPU");
  EXPECT_NE(of_dims->reason.find("integer arithmetic on values already on the host"), std::string::npos);
  EXPECT_EQ(of_ids->provider, "SIM");
  EXPECT_EQ(count_copies(*s), 2u);  // ids up, flat down
  Tensor ids(DataType::kInt64, {2, 3});
  for (int i = 0; i < 6; ++i) ids.data<int64_t>()[i] = 10 + i;
  auto out = s->run({{"x", Value(ramp({2, 3}, 0, 1))}, {"ids", Value(ids)}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].tensor().to_int64_vector(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ((*out)[1].tensor().shape(), (Shape{6}));
  EXPECT_EQ((*out)[1].tensor().data<int64_t>()[5], 15);

  // strict placement keeps host integer arithmetic on the device: Reshape of a constant
  ModelBuilder c;
  c.output("two_by_one", {2, 1}, onnx::TensorProto::INT64);
  for (const auto& [name, dims, values] :
       {std::make_tuple("pair", std::vector<int64_t>{2}, std::vector<int64_t>{4, 5}),
        std::make_tuple("shape", std::vector<int64_t>{2}, std::vector<int64_t>{2, 1})}) {
    auto* t = c.graph->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
  }
  c.node("Reshape", {"pair", "shape"}, {"two_by_one"});
  EXPECT_EQ(find(*make(c, on_sim()), "Reshape")->provider, "CPU");
  SessionOptions strict = on_sim();
  strict.disable_cpu_fallback = true;
  auto on_device = make(c, strict);
  ASSERT_TRUE(on_device);
  EXPECT_EQ(find(*on_device, "Reshape")->provider, "SIM");
  auto pair = on_device->run({});
  ASSERT_TRUE(pair.ok()) << pair.status().to_string();
  EXPECT_EQ((*pair)[0].tensor().to_int64_vector(), (std::vector<int64_t>{4, 5}));
}

// External weights reach a device through the plan's copies, and the host side (the mapped
// file's pages, or the whole mapping once nothing refers to it) is dropped once their readers
// are prepared: after loading and a run, none of the file is resident though all of it was
// read (the CUDA provider's path, which reads through its pinned chunks). The CPU, which reads
// the mapping in place, keeps the pages it ran on; a plan that kept the host constants would
// keep them too.
TEST(Placement, WeightsCopiedToADeviceLeaveNoPagesOfTheMappedFileResident) {
  const std::filesystem::path dir = testing::scratch_folder("placement_test", "mapped_weights");
  constexpr int64_t kCount = int64_t(4) << 20;  // 16 MB of float32
  std::vector<float> w(static_cast<size_t>(kCount));
  for (int64_t i = 0; i < kCount; ++i) w[size_t(i)] = float(i % 1000) * 0.5f;
  std::ofstream(dir / "weights.bin", std::ios::binary).write(reinterpret_cast<const char*>(w.data()), kCount * 4);
  ModelBuilder b;
  b.input("x", {kCount}).output("y", {kCount});
  b.external_initializer("w", {kCount}, "weights.bin", 0, kCount * 4);
  b.node("Add", {"x", "w"}, {"y"});
  std::ofstream(dir / "model.onnx", std::ios::binary) << b.bytes();
  const Tensor x(DataType::kFloat, {kCount});  // zeros: y is w
  for (bool device : {true, false}) {
    SCOPED_TRACE(device ? "on the SIM device" : "on the CPU");
    SessionOptions options = device ? on_sim() : SessionOptions{};
    options.graph_optimization_level = 0;
    auto s = Session::load_file((dir / "model.onnx").string(), options);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    auto y = (*s)->run({{"x", Value(x)}});
    ASSERT_TRUE(y.ok()) << y.status().to_string();
    EXPECT_EQ((*y)[0].tensor().data<float>()[kCount - 1], w.back());
    const int64_t resident_kb = testing::mapped_file_rss_kb("/weights.bin");
    if (device) {
      EXPECT_LT(std::max<int64_t>(resident_kb, 0), 1024) << "pages of the uploaded weights left resident";
    } else {
      EXPECT_GT(resident_kb, 12 * 1024) << "the CPU ran on the mapping itself";
    }
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace onyx
