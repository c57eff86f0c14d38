// Placement on providers, without a GPU: a "SIM" provider whose device is host memory tagged
// as another device (Device::Type::kSimulated). Its kernels refuse to read anything that is
// not on that device, so a missing or misplaced copy fails the run. Checks which provider
// each node goes to and why, the copy steps, constants copied once at planning, strict
// placement, outputs returned on the host, device inputs passed through, and errors for
// providers that cannot be made. The device itself is in sim_provider.h; placement_host_test.cc
// holds the tests about values on the host.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>

#include "sim_provider.h"

namespace onyx {
namespace {

using namespace sim_test;

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

}  // namespace
}  // namespace onyx
