// The CUDA kernels of a training step's ops (ORTModule on a GPU): the products with transposes,
// alpha and a bias epilogue, the elementwise and row gradients, Sum and GatherGrad, each in a
// small graph placed wholly on CUDA and compared with the CPU kernels. Without a device the CPU
// half runs and the tests report themselves skipped.
#include <gtest/gtest.h>

#include "cuda_test_support.h"

namespace onyx {
namespace {

using testing::ModelBuilder;

#ifdef ONYX_WITH_CUDA
using namespace cuda_test;

void import_training_domains(ModelBuilder& b) {
  for (const char* domain : {"com.microsoft", "ai.onyx.training"}) {
    auto* o = b.model.add_opset_import();
    o->set_domain(domain);
    o->set_version(1);
  }
}

TEST(CudaTrainingKernels, ProductsWithTransposesAlphaAndABiasMatchTheCpu) {
  ModelBuilder b;
  import_training_domains(b);
  b.input("a", {2, 3, 7, 5}).input("b", {3, 6, 7}).input("w", {9, 5}).input("x", {4, 7, 5}).input("bias", {9});
  b.output("y", {2, 3, 5, 6}).output("z", {4, 7, 9}).output("g", {4, 7, 9}).output("t", {4, 5, 5});
  // y = 0.5 * a^T b^T over a broadcast batch (3 of b against 2 x 3 of a).
  auto* fm = b.node("FusedMatMul", {"a", "b"}, {"y"});
  fm->set_domain("com.microsoft");
  int_attribute(fm, "transA", 1);
  int_attribute(fm, "transB", 1);
  float_attribute(fm, "alpha", 0.5f);
  // z = x w^T + bias (a Linear layer), g = Gelu(x w^T + bias), t = x^T x per batch item.
  auto* linear = b.node("FusedMatMulBias", {"x", "w", "bias"}, {"z"});
  linear->set_domain("ai.onyx.training");
  int_attribute(linear, "transB", 1);
  auto* gelu = b.node("FusedMatMulBias", {"x", "w", "bias"}, {"g"});
  gelu->set_domain("ai.onyx.training");
  int_attribute(gelu, "transB", 1);
  string_attribute(gelu, "activation", "Gelu");
  auto* gram = b.node("FusedMatMul", {"x", "x"}, {"t"});
  gram->set_domain("com.microsoft");
  int_attribute(gram, "transA", 1);
  expect_cuda_matches_cpu(b, {{"a", {2, 3, 7, 5}}, {"b", {3, 6, 7}}, {"w", {9, 5}}, {"x", {4, 7, 5}}, {"bias", {9}}},
                          1e-5);
}

TEST(CudaTrainingKernels, GradientsOfGeluReluSoftmaxAndLayerNormMatchTheCpu) {
  ModelBuilder b;
  import_training_domains(b);
  b.input("dy", {300, 48}).input("x", {300, 48}).input("scale", {48});
  b.output("erf", {300, 48}).output("tanh", {300, 48}).output("relu", {300, 48}).output("softmax", {300, 48});
  b.output("dx", {300, 48}).output("dscale", {48}).output("dbias", {48});
  b.node("GeluGrad", {"dy", "x"}, {"erf"})->set_domain("ai.onyx.training");
  auto* tanh_form = b.node("GeluGrad", {"dy", "x"}, {"tanh"});
  tanh_form->set_domain("ai.onyx.training");
  string_attribute(tanh_form, "approximate", "tanh");
  b.node("ReluGrad", {"dy", "x"}, {"relu"})->set_domain("ai.onyx.training");
  b.node("SoftmaxGrad", {"dy", "x"}, {"softmax"})->set_domain("ai.onyx.training");
  auto* ln = b.node("LayerNormalizationGrad", {"dy", "x", "scale"}, {"dx", "dscale", "dbias"});
  ln->set_domain("ai.onyx.training");
  float_attribute(ln, "epsilon", 1e-5f);
  expect_cuda_matches_cpu(b, {{"dy", {300, 48}}, {"x", {300, 48}}, {"scale", {48}}}, 2e-5);
}

TEST(CudaTrainingKernels, SumWithBroadcastingAndGatherGradWithRepeatedIndicesMatchTheCpu) {
  ModelBuilder b;
  import_training_domains(b);
  b.input("p", {3, 4, 6}).input("q", {3, 4, 6}).input("r", {3, 4, 6}).input("s", {4, 1});
  b.input("dy", {2, 3, 6}).input("table", {10, 6});
  b.output("sum", {3, 4, 6}).output("dtable", {10, 6});
  b.node("Sum", {"p", "q", "s", "r"}, {"sum"});
  int64_initializer(b, "ids", {2, 3}, {0, 9, -1, 4, 4, 2});  // 9 and -1 are one row; 4 twice
  b.node("GatherGrad", {"dy", "ids", "table"}, {"dtable"})->set_domain("ai.onyx.training");
  expect_cuda_matches_cpu(b, {{"p", {3, 4, 6}}, {"q", {3, 4, 6}}, {"r", {3, 4, 6}}, {"s", {4, 1}}, {"dy", {2, 3, 6}},
                              {"table", {10, 6}}},
                          1e-6);
}

// AttentionCore and its gradient, with query, key and value apart (more keys than queries,
// value heads wider than query heads) and packed in one projection's output.
TEST(CudaTrainingKernels, AttentionCoresAndTheirGradientsMatchTheCpu) {
  ModelBuilder b;
  import_training_domains(b);
  b.input("q", {2, 5, 6}).input("k", {2, 7, 6}).input("v", {2, 7, 8}).input("qkv", {2, 6, 18});
  b.input("dy", {2, 5, 8}).input("p", {2, 2, 5, 7}).input("dy_packed", {2, 6, 6}).input("p_packed", {2, 2, 6, 6});
  b.output("y", {2, 5, 8}).output("probs", {2, 2, 5, 7}).output("y_packed", {2, 6, 6}).output("probs_packed", {2, 2, 6, 6});
  b.output("dq", {2, 5, 6}).output("dk", {2, 7, 6}).output("dv", {2, 7, 8}).output("dqkv", {2, 6, 18});
  auto core = [&](std::vector<std::string> ins, std::vector<std::string> outs, const char* op) {
    auto* n = b.node(op, std::move(ins), std::move(outs));
    n->set_domain("ai.onyx.training");
    int_attribute(n, "num_heads", 2);
    float_attribute(n, "scale", 0.4f);
  };
  core({"q", "k", "v"}, {"y", "probs"}, "AttentionCore");
  core({"qkv"}, {"y_packed", "probs_packed"}, "AttentionCore");
  core({"dy", "q", "k", "v", "p"}, {"dq", "dk", "dv"}, "AttentionCoreGrad");
  core({"dy_packed", "qkv", "p_packed"}, {"dqkv"}, "AttentionCoreGrad");
  expect_cuda_matches_cpu(b, {{"q", {2, 5, 6}}, {"k", {2, 7, 6}}, {"v", {2, 7, 8}}, {"qkv", {2, 6, 18}}, {"dy", {2, 5, 8}},
                              {"p", {2, 2, 5, 7}}, {"dy_packed", {2, 6, 6}}, {"p_packed", {2, 2, 6, 6}}},
                          1e-5);
}

#else

TEST(CudaTrainingKernels, NeedACudaBuild) { GTEST_SKIP() << "built without CUDA"; }

#endif  // ONYX_WITH_CUDA

}  // namespace
}  // namespace onyx
