// The CUDA provider. Without a usable device, asking for it must be a clear error (and the
// tests that need a device report themselves skipped); in a build without CUDA, the error
// says so. With a device, small graphs run on CUDA with every node placed there and agree
// with the CPU provider.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "cuda_test_support.h"
#include "providers/execution_provider.h"

namespace onyx {
namespace {

using testing::ModelBuilder;
using namespace cuda_test;

ModelBuilder relu_model() {
  ModelBuilder b;
  b.input("x", {4}).output("y", {4});
  b.node("Relu", {"x"}, {"y"});
  return b;
}

#ifndef ONYX_WITH_CUDA

TEST(CudaProvider, ABuildWithoutCudaSaysSo) {
  ModelBuilder b = relu_model();
  SessionOptions o;
  o.append_provider("CUDAExecutionProvider");
  Status failure;
  EXPECT_FALSE(load(b, o, &failure));
  EXPECT_EQ(failure.code(), StatusCode::kNotImplemented);
  EXPECT_NE(failure.message().find("built without CUDA"), std::string::npos) << failure.to_string();
}

#else

TEST(CudaProvider, WithoutADeviceItIsSkippedUnlessTheSessionAllowsNoFallback) {
  if (have_device()) GTEST_SKIP() << "a CUDA device is present";
  // Not listed as available, and saying why.
  const Status usable = ProviderRegistry::global().available("CUDAExecutionProvider");
  EXPECT_EQ(usable.code(), StatusCode::kRuntimeError);
  EXPECT_NE(usable.to_string().find("no CUDA device is usable here"), std::string::npos) << usable.to_string();
  const auto names = ProviderRegistry::global().available_ort_names();  // the tests' simulated devices aside
  EXPECT_EQ(std::count(names.begin(), names.end(), "CUDAExecutionProvider"), 0);
  EXPECT_EQ(names.back(), "CPUExecutionProvider");
  // A priority list: CUDA is left out and the CPU takes the model.
  ModelBuilder b = relu_model();
  SessionOptions o;
  o.append_provider("CUDA");
  Status failure;
  auto session = load(b, o, &failure);
  ASSERT_TRUE(session) << failure.to_string();
  EXPECT_EQ(session->provider_names(), std::vector<std::string>{"CPU"});
  // Strict: an error naming the reason.
  o.disable_cpu_fallback = true;
  EXPECT_FALSE(load(b, o, &failure));
  EXPECT_EQ(failure.code(), StatusCode::kRuntimeError);
  EXPECT_NE(failure.to_string().find("no CUDA device is usable here"), std::string::npos) << failure.to_string();
  EXPECT_NE(failure.to_string().find("disable_cpu_ep_fallback"), std::string::npos) << failure.to_string();
}

TEST(CudaProvider, OnnxRuntimeOptionsItDoesNotActOnAreAccepted) {
  const ProviderOptions ort_options = {{"cudnn_conv_algo_search", "EXHAUSTIVE"},
                                       {"do_copy_in_default_stream", "1"},
                                       {"arena_extend_strategy", "kSameAsRequested"},
                                       {"cudnn_conv_use_max_workspace", "1"}};
  auto made = ProviderRegistry::global().create("CUDA", ort_options);
  if (!have_device()) {  // refused for the device, not for the options
    ASSERT_FALSE(made.ok());
    EXPECT_EQ(made.status().code(), StatusCode::kRuntimeError) << made.status().to_string();
    return;
  }
  ASSERT_TRUE(made.ok()) << made.status().to_string();
  EXPECT_EQ((*made)->options_not_acted_on().size(), 4u);
}

TEST(CudaProvider, BadOptionsAreRefusedByName) {
  auto made = ProviderRegistry::global().create("CUDA", {{"device_idx", "0"}});
  ASSERT_FALSE(made.ok());
  // Options are checked before the device is looked for, so this holds with or without one.
  EXPECT_NE(made.status().to_string().find("unknown CUDA provider option 'device_idx'"), std::string::npos)
      << made.status().to_string();
  auto bad = ProviderRegistry::global().create("CUDA", {{"gpu_mem_limit", "lots"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

TEST(CudaProvider, ElementwiseWithBroadcastingMatchesTheCpu) {
  ModelBuilder b;
  b.input("a", {2, 3, 4}).input("c", {3, 1}).output("y", {2, 3, 4});
  b.node("Mul", {"a", "c"}, {"m"});
  b.node("Sub", {"m", "a"}, {"s"});
  b.node("Sigmoid", {"s"}, {"g"});
  b.node("Tanh", {"g"}, {"t"});
  b.node("Erf", {"t"}, {"y"});
  expect_cuda_matches_cpu(b, {{"a", {2, 3, 4}}, {"c", {3, 1}}}, 1e-5);
}

TEST(CudaProvider, BatchedMatMulSoftmaxAndLayerNormMatchTheCpu) {
  ModelBuilder b;
  b.input("a", {2, 5, 8}).input("w", {8, 16}).input("s", {16}).input("z", {16}).output("y", {2, 5, 16});
  b.node("MatMul", {"a", "w"}, {"p"});
  b.node("Softmax", {"p"}, {"q"});
  auto* ln = b.node("LayerNormalization", {"q", "s", "z"}, {"y"});
  auto* eps = ln->add_attribute();
  eps->set_name("epsilon");
  eps->set_type(onnx::AttributeProto::FLOAT);
  eps->set_f(1e-3f);
  expect_cuda_matches_cpu(b, {{"a", {2, 5, 8}}, {"w", {8, 16}}, {"s", {16}}, {"z", {16}}}, 1e-4);
}

TEST(CudaProvider, TransposeReshapeAndCastsMatchTheCpu) {
  ModelBuilder b;
  b.input("x", {2, 3, 4}).output("y", {4, 6});
  auto* t = b.node("Transpose", {"x"}, {"t"});
  auto* perm = t->add_attribute();
  perm->set_name("perm");
  perm->set_type(onnx::AttributeProto::INTS);
  for (int64_t p : {2, 0, 1}) perm->add_ints(p);
  auto* shape = b.graph->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(2);
  shape->add_int64_data(4);
  shape->add_int64_data(-1);
  b.node("Reshape", {"t", "shape"}, {"r"});
  auto* to16 = b.node("Cast", {"r"}, {"h"});
  auto* a16 = to16->add_attribute();
  a16->set_name("to");
  a16->set_type(onnx::AttributeProto::INT);
  a16->set_i(onnx::TensorProto::FLOAT16);
  auto* to32 = b.node("Cast", {"h"}, {"y"});
  auto* a32 = to32->add_attribute();
  a32->set_name("to");
  a32->set_type(onnx::AttributeProto::INT);
  a32->set_i(onnx::TensorProto::FLOAT);
  expect_cuda_matches_cpu(b, {{"x", {2, 3, 4}}}, 1e-3);  // float16 rounding
}

// BERT's embedding and feed-forward ops: Gather of a table (negative ids too), the residual
// SkipLayerNormalization with its sum output, BiasGelu and FastGelu.
TEST(CudaProvider, EmbeddingSkipLayerNormAndGelusMatchTheCpu) {
  ModelBuilder b;
  auto* ms = b.model.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  b.input("table", {10, 8}).input("skip", {3, 8}).output("y", {2, 3, 8}).output("sum", {2, 3, 8}).output("z", {2, 3, 8});
  int64_initializer(b, "ids", {2, 3}, {0, 9, -1, 4, 4, 2});
  b.initializer("gamma", {8}, random_values(8, 11));
  b.initializer("beta", {8}, random_values(8, 12));
  b.initializer("bias", {8}, random_values(8, 13));
  b.node("Gather", {"table", "ids"}, {"e"});
  b.node("SkipLayerNormalization", {"e", "skip", "gamma", "beta", "bias"}, {"n", "", "", "sum"})->set_domain("com.microsoft");
  b.node("BiasGelu", {"n", "bias"}, {"y"})->set_domain("com.microsoft");
  b.node("FastGelu", {"sum", "bias"}, {"z"})->set_domain("com.microsoft");
  expect_cuda_matches_cpu(b, {{"table", {10, 8}}, {"skip", {3, 8}}}, 1e-5);
}

// Gather reads its indices on the device: a negative index counts from the end, and one out of
// range fails the run with the node named (found on the device, reported when the output is
// copied back), as the CPU kernel fails it; the session runs again afterwards.
TEST(CudaProvider, GatherIndicesAreCheckedOnTheDevice) {
  ModelBuilder b;
  b.input("table", {10, 8}).input("ids", {3}, onnx::TensorProto::INT64).output("e", {3, 8});
  b.node("Gather", {"table", "ids"}, {"e"}, "embed");
  const Tensor table = tensor_of({10, 8}, random_values(80, 21));
  auto ids = [](std::vector<int64_t> v) {
    Tensor t(DataType::kInt64, {3});
    std::copy(v.begin(), v.end(), t.data<int64_t>());
    return Value(t);
  };
  auto cpu = load(b, SessionOptions());
  ASSERT_TRUE(cpu);
  auto cpu_bad = cpu->run({{"table", Value(table)}, {"ids", ids({1, 10, 2})}});
  ASSERT_FALSE(cpu_bad.ok());
  EXPECT_EQ(cpu_bad.status().code(), StatusCode::kInvalidArgument);
  if (!have_device()) GTEST_SKIP() << "no CUDA device (the CPU half ran)";
  SessionOptions o;
  o.append_provider("CUDA");
  o.disable_cpu_fallback = true;
  auto gpu = load(b, o);
  ASSERT_TRUE(gpu);
  auto bad = gpu->run({{"table", Value(table)}, {"ids", ids({1, 10, 2})}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().to_string().find("out of range for the gathered axis in node 'embed' (Gather)"),
            std::string::npos) << bad.status().to_string();
  auto good = gpu->run({{"table", Value(table)}, {"ids", ids({1, -10, 9})}});
  ASSERT_TRUE(good.ok()) << good.status().to_string();
  const int64_t rows[3] = {1, 0, 9};
  for (int j = 0; j < 3; ++j)
    for (int c = 0; c < 8; ++c)
      EXPECT_EQ((*good)[0].tensor().data<float>()[j * 8 + c], table.data<float>()[rows[j] * 8 + c]) << j << "," << c;
}

// MultiHeadAttention as the attention fusion emits it: with the Q/K/V bias and a broadcast
// attention bias, and causal (GPT-2's form) with more keys than queries.
TEST(CudaProvider, MultiHeadAttentionMatchesTheCpu) {
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "with biases");
    ModelBuilder b;
    auto* ms = b.model.add_opset_import();
    ms->set_domain("com.microsoft");
    ms->set_version(1);
    const int64_t seq = 5, len = causal ? 7 : 5;
    b.input("q", {2, seq, 8}).input("k", {2, len, 8}).input("v", {2, len, 12}).output("y", {2, seq, 12});
    std::vector<std::string> ins = {"q", "k", "v"};
    if (!causal) {
      b.input("mask", {2, 1, 1, len});
      b.initializer("bias", {28}, random_values(28, 21));
      ins.insert(ins.end(), {"bias", "", "mask"});
    }
    auto* mha = b.node("MultiHeadAttention", ins, {"y"});
    mha->set_domain("com.microsoft");
    int_attribute(mha, "num_heads", 2);
    if (causal) int_attribute(mha, "unidirectional", 1);
    std::vector<std::pair<std::string, Shape>> inputs = {{"q", {2, seq, 8}}, {"k", {2, len, 8}}, {"v", {2, len, 12}}};
    if (!causal) inputs.push_back({"mask", {2, 1, 1, len}});
    expect_cuda_matches_cpu(b, inputs, 1e-5);
  }
}

// Gemm with transB and a broadcast C, then Slice, Concat, Split, Expand, Where and Pow.
TEST(CudaProvider, GemmSliceConcatSplitExpandWhereAndPowMatchTheCpu) {
  ModelBuilder b;
  b.input("a", {4, 6}).input("w", {5, 6}).input("c", {5}).output("y", {2, 4, 6});
  int_attribute(b.node("Gemm", {"a", "w", "c"}, {"g"}), "transB", 1);
  int64_initializer(b, "starts", {1}, {1});
  int64_initializer(b, "ends", {1}, {4});
  int64_initializer(b, "axes", {1}, {1});
  b.node("Slice", {"g", "starts", "ends", "axes"}, {"s"});
  int_attribute(b.node("Concat", {"s", "s"}, {"j"}), "axis", 1);
  int64_initializer(b, "pieces", {2}, {2, 4});
  int_attribute(b.node("Split", {"j", "pieces"}, {"j1", "j2"}), "axis", 1);
  int_attribute(b.node("Concat", {"j2", "j1"}, {"k"}), "axis", 1);
  int64_initializer(b, "shape", {3}, {2, 1, 6});
  b.node("Expand", {"k", "shape"}, {"x"});
  auto* cond = b.graph->add_initializer();
  cond->set_name("keep");
  cond->set_data_type(onnx::TensorProto::BOOL);
  cond->add_dims(6);
  for (int v : {1, 0, 1, 1, 0, 1}) cond->add_int32_data(v);
  b.initializer("two", {}, {2.f});
  b.node("Pow", {"x", "two"}, {"p"});
  b.node("Where", {"keep", "p", "x"}, {"y"});
  expect_cuda_matches_cpu(b, {{"a", {4, 6}}, {"w", {5, 6}}, {"c", {5}}}, 1e-5);
}

#endif

}  // namespace
}  // namespace onyx
