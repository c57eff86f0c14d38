// Placement on providers, without a GPU: a "SIM" provider whose device is host memory tagged
// as another device (Device::Type::kSimulated). Its kernels refuse to read anything that is
// not on that device, so a missing or misplaced copy fails the run. Checks which provider
// each node goes to and why, the copy steps, constants copied once at planning, strict
// placement, outputs returned on the host, device inputs passed through, and errors for
// providers that cannot be made.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <tuple>

#include "cli_runner.h"
#include "model_builder.h"
#include "process_stats.h"
#include "providers/execution_provider.h"
#include "session/session.h"

namespace onyx {
namespace {

using testing::ModelBuilder;

constexpr Device kSimDevice{Device::Type::kSimulated, 0};

// Host memory tagged as the simulated device; counts what it hands out.
class SimAllocator final : public Allocator {
 public:
  std::shared_ptr<Buffer> allocate(size_t bytes, DataType dtype, bool zero_fill) override {
    std::shared_ptr<Buffer> host = Buffer::allocate(bytes, dtype, zero_fill);
    ++allocations;
    return std::make_shared<Buffer>(host->data(), bytes, host, kSimDevice);
  }
  Device device() const override { return kSimDevice; }
  std::atomic<int> allocations{0};
};

class SimProvider final : public ExecutionProvider {
 public:
  std::string name() const override { return "SIM"; }
  Device device() const override { return kSimDevice; }
  Allocator* allocator() override { return &allocator_; }
  Status copy(const Tensor& src, Tensor& dst) const override {
    ONYX_RETURN_IF_ERROR(check_copy_pair(src, dst));
    if (src.device() == dst.device()) return error(StatusCode::kInternal, "a copy within one device");
    for (const Device& d : {src.device(), dst.device()})
      if (!d.is_cpu() && d != kSimDevice) return error(StatusCode::kInternal, "SIM cannot reach ", d.to_string());
    std::memcpy(dst.raw_data(), src.raw_data(), src.nbytes());
    ++copies;
    return Status::Ok();
  }
  Status synchronize() const override {
    ++syncs;
    return Status::Ok();
  }
  static std::shared_ptr<SimProvider> instance() {
    static auto p = std::make_shared<SimProvider>();
    return p;
  }
  mutable std::atomic<int> copies{0};
  mutable std::atomic<int> syncs{0};

 private:
  SimAllocator allocator_;
};

const ProviderRegistrar kSimRegistrar("SIM", "SimExecutionProvider",
                                      [](const ProviderOptions& o) -> Result<std::shared_ptr<ExecutionProvider>> {
                                        if (o.count("fail")) return runtime_error("no simulated device here");
                                        return std::shared_ptr<ExecutionProvider>(SimProvider::instance());
                                      });

Status expect_on_sim(KernelContext& ctx, int i) {
  if (ctx.input(i).device() != kSimDevice)
    return error(StatusCode::kInternal, "input ", i, " is on ", ctx.input(i).device().to_string(), ", not the SIM");
  return Status::Ok();
}

std::string float_only(const KernelQuery& q) {
  for (size_t i = 0; i < q.input_types.size(); ++i)
    if (q.input_types[i] != DataType::kFloat)
      return "takes float32 only, not " + std::string(data_type_name(q.input_types[i])) + " (input " +
             std::to_string(i) + ")";
  return "";
}

// a OP b on the SIM device, float32; either input may be a single value.
template <typename Op>
class SimBinary final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ONYX_RETURN_IF_ERROR(expect_on_sim(ctx, 0));
    ONYX_RETURN_IF_ERROR(expect_on_sim(ctx, 1));
    const Tensor &a = ctx.input(0), &b = ctx.input(1);
    if (a.shape() != b.shape() && a.numel() != 1 && b.numel() != 1)
      return not_implemented("SIM binary ops broadcast single values only");
    const Tensor& big = a.numel() >= b.numel() ? a : b;
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, DataType::kFloat, big.shape()));
    for (int64_t i = 0; i < big.numel(); ++i)
      y->data<float>()[i] = Op()(a.data<float>()[a.numel() == 1 ? 0 : i], b.data<float>()[b.numel() == 1 ? 0 : i]);
    return Status::Ok();
  }
};
struct AddOp { float operator()(float a, float b) const { return a + b; } };
struct MulOp { float operator()(float a, float b) const { return a * b; } };
struct DivOp { float operator()(float a, float b) const { return a / b; } };

class SimErf final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ONYX_RETURN_IF_ERROR(expect_on_sim(ctx, 0));
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, DataType::kFloat, x.shape()));
    for (int64_t i = 0; i < x.numel(); ++i) y->data<float>()[i] = std::erf(x.data<float>()[i]);
    return Status::Ok();
  }
};

class SimRelu final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ONYX_RETURN_IF_ERROR(expect_on_sim(ctx, 0));
    const Tensor& x = ctx.input(0);
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, DataType::kFloat, x.shape()));
    for (int64_t i = 0; i < x.numel(); ++i) y->data<float>()[i] = std::max(0.f, x.data<float>()[i]);
    return Status::Ok();
  }
};

// Reshape reading its shape input on the host (KernelDef::host_inputs).
class SimReshape final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    ONYX_RETURN_IF_ERROR(expect_on_sim(ctx, 0));
    if (!ctx.input(1).device().is_cpu()) return error(StatusCode::kInternal, "the shape input is not on the host");
    ONYX_ASSIGN_OR_RETURN(Tensor y, ctx.input(0).reshaped(ctx.input(1).to_int64_vector()));
    ctx.set_output(0, Value(std::move(y)));
    return Status::Ok();
  }
};

ONYX_REGISTER_PROVIDER_KERNEL("SIM", "", "Add", 7, kLatestOpset, SimBinary<AddOp>, float_only, {});
ONYX_REGISTER_PROVIDER_KERNEL("SIM", "", "Mul", 7, kLatestOpset, SimBinary<MulOp>, float_only, {});
ONYX_REGISTER_PROVIDER_KERNEL("SIM", "", "Div", 7, kLatestOpset, SimBinary<DivOp>, float_only, {});
ONYX_REGISTER_PROVIDER_KERNEL("SIM", "", "Erf", 9, kLatestOpset, SimErf, float_only, {});
ONYX_REGISTER_PROVIDER_KERNEL("SIM", "", "Relu", 6, kLatestOpset, SimRelu, float_only, {});
ONYX_REGISTER_PROVIDER_KERNEL("SIM", "", "Reshape", 5, kLatestOpset, SimReshape, nullptr, {1});

// Level 0 unless `level` says otherwise.
std::unique_ptr<Session> make(ModelBuilder& b, SessionOptions options, Status* failure = nullptr, int level = 0) {
  const std::string bytes = b.bytes();
  options.graph_optimization_level = level;
  auto s = Session::load_bytes(bytes.data(), bytes.size(), options);
  if (failure) *failure = s.ok() ? Status::Ok() : s.status();
  if (!failure) EXPECT_TRUE(s.ok()) << s.status().to_string();
  return s.ok() ? std::move(s).value() : nullptr;
}

SessionOptions on_sim() {
  SessionOptions o;
  o.append_provider("SIM");
  return o;
}

Tensor ramp(Shape shape, float start, float step) {
  Tensor t(DataType::kFloat, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = start + step * float(i);
  return t;
}

const NodePlacement* find(const Session& s, const std::string& op, bool copy = false) {
  for (const NodePlacement& p : s.placement())
    if (p.op == op && p.is_copy == copy) return &p;
  return nullptr;
}

size_t count_copies(const Session& s) {
  size_t n = 0;
  for (const NodePlacement& p : s.placement()) n += p.is_copy;
  return n;
}

TEST(Placement, NodesGoToTheProviderWithCopiesAtItsEdges) {
  ModelBuilder b;
  b.input("x", {2, 3}).input("y", {2, 3}).output("z", {2, 3});
  b.node("Add", {"x", "y"}, {"s"});
  b.node("Relu", {"s"}, {"z"});
  auto s = make(b, on_sim());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->provider_names(), (std::vector<std::string>{"SIM", "CPU"}));
  EXPECT_EQ(find(*s, "Add")->provider, "SIM");
  EXPECT_EQ(find(*s, "Relu")->provider, "SIM");
  EXPECT_EQ(find(*s, "Relu")->reason, "");
  EXPECT_EQ(count_copies(*s), 3u);  // x and y up, z down
  ASSERT_TRUE(find(*s, "MemcpyToHost", true));
  EXPECT_EQ(find(*s, "MemcpyToHost", true)->provider, "SIM");

  Tensor x = ramp({2, 3}, -3, 1), y = ramp({2, 3}, 0.5f, 0.25f);
  auto out = s->run({{"x", Value(x)}, {"y", Value(y)}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const Tensor& z = (*out)[0].tensor();
  EXPECT_TRUE(z.device().is_cpu());
  for (int i = 0; i < 6; ++i) EXPECT_FLOAT_EQ(z.data<float>()[i], std::max(0.f, x.data<float>()[i] + y.data<float>()[i]));
}

TEST(Placement, ANodeWithoutAKernelThereFallsBackToTheCpuAndSaysWhy) {
  ModelBuilder b;
  b.input("x", {4}).output("z", {4});
  b.node("Relu", {"x"}, {"a"});
  b.node("Sigmoid", {"a"}, {"b"});
  b.node("Relu", {"b"}, {"z"});
  auto s = make(b, on_sim());
  ASSERT_TRUE(s);
  const NodePlacement* sig = find(*s, "Sigmoid");
  ASSERT_TRUE(sig);
  EXPECT_EQ(sig->provider, "CPU");
  EXPECT_NE(sig->reason.find("SIM: no kernel for Sigmoid at opset 17"), std::string::npos) << sig->reason;
  EXPECT_EQ(count_copies(*s), 4u);  // x up, a down, b up, z down
  auto out = s->run({{"x", Value(ramp({4}, -1.5f, 1))}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  for (int i = 0; i < 4; ++i) {
    const float a = std::max(0.f, -1.5f + float(i));
    EXPECT_NEAR((*out)[0].tensor().data<float>()[i], 1 / (1 + std::exp(-a)), 1e-6) << i;
  }
}

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

TEST(Placement, AKernelThatRefusesTheTypesLeavesTheNodeOnTheCpu) {
  ModelBuilder b;
  b.input("x", {3}, onnx::TensorProto::INT32).input("y", {3}, onnx::TensorProto::INT32);
  b.output("z", {3}, onnx::TensorProto::INT32);
  b.node("Add", {"x", "y"}, {"z"});
  auto s = make(b, on_sim());
  ASSERT_TRUE(s);
  EXPECT_EQ(find(*s, "Add")->provider, "CPU");
  EXPECT_NE(find(*s, "Add")->reason.find("takes float32 only, not int32 (input 0)"), std::string::npos);
  EXPECT_EQ(count_copies(*s), 0u);
}

TEST(Placement, StrictPlacementMakesAFallbackAnError) {
  ModelBuilder b;
  b.input("x", {4}).output("z", {4});
  b.node("Sigmoid", {"x"}, {"z"}, "sig");
  SessionOptions o = on_sim();
  o.disable_cpu_fallback = true;
  Status failure;
  EXPECT_FALSE(make(b, o, &failure));
  EXPECT_EQ(failure.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(failure.message().find("'sig' (Sigmoid) would fall back to the CPU"), std::string::npos) << failure.to_string();
  EXPECT_NE(failure.message().find("SIM: no kernel for Sigmoid"), std::string::npos) << failure.to_string();
}

TEST(Placement, ConstantsAreCopiedOnceAtPlanningAndTheirHostCopyIsDropped) {
  ModelBuilder b;
  b.input("x", {2, 2}).output("z", {2, 2});
  b.initializer("w", {2, 2}, {1, -2, 3, -4});
  b.node("Add", {"x", "w"}, {"z"});
  SimProvider::instance()->copies = 0;
  auto s = make(b, on_sim());
  ASSERT_TRUE(s);
  EXPECT_EQ(SimProvider::instance()->copies, 1);  // w, at planning
  EXPECT_EQ(count_copies(*s), 2u);                // steps: x up, z down; none for w
  EXPECT_EQ(s->model().graph.initializers.at("w").raw_data(), nullptr);  // only the device copy is kept
  for (int run = 0; run < 3; ++run) {
    auto out = s->run({{"x", Value(ramp({2, 2}, 0, 1))}});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    const float* z = (*out)[0].tensor().data<float>();
    EXPECT_FLOAT_EQ(z[0], 1);
    EXPECT_FLOAT_EQ(z[3], -1);
  }
  EXPECT_EQ(SimProvider::instance()->copies, 1 + 3 * 2);
}

TEST(Placement, HostInputsOfADeviceKernelStayOnTheHost) {
  ModelBuilder b;
  b.input("x", {2, 3}).output("z", {3, 2});
  auto* shape = b.graph->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(2);
  shape->add_int64_data(3);
  shape->add_int64_data(2);
  b.node("Relu", {"x"}, {"r"});
  b.node("Reshape", {"r", "shape"}, {"z"});
  auto s = make(b, on_sim());
  ASSERT_TRUE(s);
  EXPECT_EQ(find(*s, "Reshape")->provider, "SIM");
  auto out = s->run({{"x", Value(ramp({2, 3}, -2, 1))}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].tensor().shape(), (Shape{3, 2}));
  EXPECT_FLOAT_EQ((*out)[0].tensor().data<float>()[5], 3);
}

TEST(Placement, ValuesReadInsideASubgraphAreProducedOnTheCpu) {
  ModelBuilder b;
  b.input("x", {2}).input("c", {}, onnx::TensorProto::BOOL).output("z", {2});
  b.node("Relu", {"x"}, {"r"});  // read by both branches of the If
  auto* n = b.node("If", {"c"}, {"z"});
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = n->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* g = a->mutable_g();
    g->set_name(branch);
    auto* id = g->add_node();
    id->set_op_type(std::string(branch) == "then_branch" ? "Identity" : "Neg");
    id->add_input("r");
    id->add_output("o");
    ModelBuilder::set_type(g->add_output(), "o", onnx::TensorProto::FLOAT, {2});
  }
  auto s = make(b, on_sim());
  ASSERT_TRUE(s);
  const NodePlacement* relu = find(*s, "Relu");
  EXPECT_EQ(relu->provider, "CPU");
  EXPECT_NE(relu->reason.find("is read inside a subgraph"), std::string::npos) << relu->reason;
  EXPECT_EQ(find(*s, "If")->provider, "CPU");
  Tensor c(DataType::kBool, {});
  *c.data<bool>() = false;
  auto out = s->run({{"x", Value(ramp({2}, -1, 3))}, {"c", Value(c)}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_FLOAT_EQ((*out)[0].tensor().data<float>()[1], -2);
}

TEST(Placement, AnInputAlreadyOnTheDeviceIsNotCopied) {
  ModelBuilder b;
  b.input("x", {3}).output("z", {3});
  b.node("Relu", {"x"}, {"z"});
  auto s = make(b, on_sim());
  ASSERT_TRUE(s);
  std::shared_ptr<Buffer> dev = SimProvider::instance()->allocator()->allocate(12, DataType::kFloat, true);
  float* d = static_cast<float*>(dev->data());
  d[0] = -1, d[1] = 2, d[2] = -3;
  SimProvider::instance()->copies = 0;
  auto out = s->run({{"x", Value(Tensor(DataType::kFloat, {3}, dev))}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ(SimProvider::instance()->copies, 1);  // z down only
  EXPECT_FLOAT_EQ((*out)[0].tensor().data<float>()[1], 2);
}

TEST(Placement, OutputsBoundToTheDeviceStayThere) {
  ModelBuilder b;
  b.input("x", {4}).output("z", {4}).output("w", {4});
  b.node("Relu", {"x"}, {"z"});     // produced on the SIM
  b.node("Sigmoid", {"x"}, {"w"});  // produced on the CPU
  auto s = make(b, on_sim());
  ASSERT_TRUE(s);
  IoBinding binding(*s);
  ASSERT_TRUE(binding.bind_input("x", Value(ramp({4}, -2, 1))).ok());
  ASSERT_TRUE(binding.bind_output("z", kSimDevice).ok());
  ASSERT_TRUE(binding.bind_output("w", kSimDevice).ok());
  SimProvider::instance()->copies = 0;
  Status st = s->run(binding);
  ASSERT_TRUE(st.ok()) << st.to_string();
  EXPECT_EQ(SimProvider::instance()->copies, 2);  // x up for Relu, w moved to the device; z not copied down
  ASSERT_EQ(binding.outputs().size(), 2u);
  const Tensor& z = binding.outputs()[0].tensor();
  const Tensor& w = binding.outputs()[1].tensor();
  EXPECT_EQ(z.device(), kSimDevice);
  EXPECT_EQ(w.device(), kSimDevice);
  EXPECT_FLOAT_EQ(z.data<float>()[3], 1);
  EXPECT_NEAR(w.data<float>()[0], 1 / (1 + std::exp(2.f)), 1e-6);

  // The run waited for the device before it returned, unless the run config says not to.
  SimProvider::instance()->syncs = 0;
  ASSERT_TRUE(s->run(binding).ok());
  EXPECT_EQ(SimProvider::instance()->syncs, 1);
  RunOptions no_wait;
  no_wait.config["disable_synchronize_execution_providers"] = "1";
  ASSERT_TRUE(s->run(binding, no_wait).ok());
  EXPECT_EQ(SimProvider::instance()->syncs, 1);

  // A run without the device binding still returns z on the host.
  auto plain = s->run({{"x", Value(ramp({4}, -2, 1))}});
  ASSERT_TRUE(plain.ok()) << plain.status().to_string();
  EXPECT_TRUE((*plain)[0].tensor().device().is_cpu());
}

TEST(Placement, ADeviceBufferBoundAsAnOutputIsFilledByItsProvider) {
  ModelBuilder b;
  b.input("x", {3}).output("z", {3});
  b.node("Relu", {"x"}, {"z"});
  auto s = make(b, on_sim());
  ASSERT_TRUE(s);
  std::shared_ptr<Buffer> dev = SimProvider::instance()->allocator()->allocate(12, DataType::kFloat, true);
  auto buffer = Tensor::borrow(DataType::kFloat, {3}, dev->data(), 12, kSimDevice);
  ASSERT_TRUE(buffer.ok());
  IoBinding binding(*s);
  ASSERT_TRUE(binding.bind_input("x", Value(ramp({3}, -1, 2))).ok());
  ASSERT_TRUE(binding.bind_output("z", *buffer).ok());
  Status st = s->run(binding);
  ASSERT_TRUE(st.ok()) << st.to_string();
  EXPECT_EQ(binding.outputs()[0].tensor().raw_data(), dev->data());
  EXPECT_FLOAT_EQ(static_cast<float*>(dev->data())[2], 3);

  auto cpu_only = make(b, SessionOptions{});
  IoBinding other(*cpu_only);
  Status refused = other.bind_output("z", *buffer);
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("simulated:0"), std::string::npos) << refused.to_string();
  refused = other.bind_output("z", Device{Device::Type::kCuda, 0});
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("none of this session's providers (CPU)"), std::string::npos) << refused.to_string();
}

TEST(Placement, RunsFromManyThreadsAgree) {
  ModelBuilder b;
  b.input("x", {64}).input("y", {64}).output("z", {64});
  b.node("Add", {"x", "y"}, {"s"});
  b.node("Sigmoid", {"s"}, {"t"});
  b.node("Relu", {"t"}, {"z"});
  auto s = make(b, on_sim());
  ASSERT_TRUE(s);
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        Tensor x = ramp({64}, float(t), 0.5f), y = ramp({64}, float(-i), 0.25f);
        auto out = s->run({{"x", Value(x)}, {"y", Value(y)}});
        if (!out.ok()) { ++bad; continue; }
        for (int k = 0; k < 64; ++k) {
          const float want = 1 / (1 + std::exp(-(x.data<float>()[k] + y.data<float>()[k])));
          if (std::abs((*out)[0].tensor().data<float>()[k] - want) > 1e-6f) ++bad;
        }
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad, 0);
}

TEST(Placement, ProvidersThatCannotBeMadeAreErrorsNeverAFallback) {
  ModelBuilder b;
  b.input("x", {3}).output("z", {3});
  b.node("Relu", {"x"}, {"z"});
  Status failure;
  SessionOptions o;
  o.append_provider("SIM", {{"fail", "1"}});
  EXPECT_FALSE(make(b, o, &failure));
  EXPECT_NE(failure.to_string().find("no simulated device here"), std::string::npos) << failure.to_string();

  SessionOptions unknown;
  unknown.append_provider("NoSuchExecutionProvider");
  EXPECT_FALSE(make(b, unknown, &failure));
  EXPECT_EQ(failure.code(), StatusCode::kNotImplemented);
  EXPECT_NE(failure.message().find("has: "), std::string::npos) << failure.to_string();

  SessionOptions twice;
  twice.append_provider("SIM");
  twice.append_provider("SimExecutionProvider");
  EXPECT_FALSE(make(b, twice, &failure));
  EXPECT_EQ(failure.code(), StatusCode::kInvalidArgument);

  SessionOptions cpu_first;  // the CPU takes everything it is first for
  cpu_first.append_provider("CPUExecutionProvider");
  cpu_first.append_provider("SIM");
  auto s = make(b, cpu_first);
  ASSERT_TRUE(s);
  EXPECT_EQ(find(*s, "Relu")->provider, "CPU");
  EXPECT_EQ(count_copies(*s), 0u);
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
