// SessionOptions::bf16_gemm: float32 MatMul and Gemm with constant 2-D weights multiply in
// bfloat16 where the CPU has native bf16 products. Checked against a float64 reference:
// float32 (the default) within 1e-5 of the output's largest magnitude, bf16 within 2e-2 and
// visibly different from float32 (so the bf16 path really ran); on CPUs without bf16
// products the option must change nothing. Subgraphs (an If branch) get the option too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/onednn_matmul.h"
#include "model_builder.h"
#include "session/session.h"

namespace onyx {
namespace {

using testing::ModelBuilder;

constexpr int64_t kM = 48, kK = 320, kN = 80;

std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// y = alpha * x * op(w) + beta * c in float64; w stored [N, K] when trans_b.
std::vector<double> reference(const std::vector<float>& x, const std::vector<float>& w, bool trans_b, float alpha,
                              const std::vector<float>& c, float beta) {
  std::vector<double> y(size_t(kM * kN));
  for (int64_t i = 0; i < kM; ++i)
    for (int64_t j = 0; j < kN; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < kK; ++k)
        acc += double(x[size_t(i * kK + k)]) * double(w[size_t(trans_b ? j * kK + k : k * kN + j)]);
      y[size_t(i * kN + j)] = alpha * acc + (c.empty() ? 0.0 : beta * double(c[size_t(j)]));
    }
  return y;
}

// max |y - ref| / max |ref|
double relative_error(const Tensor& y, const std::vector<double>& ref) {
  double err = 0, mag = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    err = std::max(err, std::abs(double(y.data<float>()[i]) - ref[i]));
    mag = std::max(mag, std::abs(ref[i]));
  }
  return err / mag;
}

Tensor run_model(const ModelBuilder& b, bool bf16, const std::vector<float>& x) {
  SessionOptions options;
  options.bf16_gemm = bf16;
  const std::string bytes = b.bytes();
  auto s = Session::load_bytes(bytes.data(), bytes.size(), options);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  if (!s.ok()) return Tensor();
  Tensor xt(DataType::kFloat, {kM, kK});
  std::copy(x.begin(), x.end(), xt.data<float>());
  auto r = (*s)->run({{"x", Value(xt)}});
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  if (!r.ok()) return Tensor();
  return (*r)[0].tensor();
}

// Checks the float32 and bf16 results of one model against its reference.
void check_both_modes(const ModelBuilder& b, const std::vector<float>& x, const std::vector<double>& ref) {
  const Tensor f32 = run_model(b, false, x);
  const Tensor bf16 = run_model(b, true, x);
  ASSERT_TRUE(f32.defined() && bf16.defined());
  EXPECT_LT(relative_error(f32, ref), 1e-5);
  const double bf16_error = relative_error(bf16, ref);
  bool differs = false;
  for (int64_t i = 0; i < f32.numel() && !differs; ++i) differs = f32.data<float>()[i] != bf16.data<float>()[i];
  if (onednn::bf16_products_available()) {
    EXPECT_LT(bf16_error, 2e-2);
    EXPECT_GT(bf16_error, 1e-5) << "bf16_gemm gave float32 accuracy: the bf16 path did not run";
    EXPECT_TRUE(differs);
  } else {
    EXPECT_FALSE(differs) << "without native bf16 products the option must change nothing";
  }
}

TEST(Bf16Gemm, MatMulWithConstantWeights) {
  const std::vector<float> x = random_values(size_t(kM * kK), 1), w = random_values(size_t(kK * kN), 2);
  ModelBuilder b;
  b.input("x", {kM, kK}).output("y", {kM, kN});
  b.initializer("w", {kK, kN}, w);
  b.node("MatMul", {"x", "w"}, {"y"});
  check_both_modes(b, x, reference(x, w, false, 1.f, {}, 0.f));
}

TEST(Bf16Gemm, GemmWithTransposedWeightsScaleAndBias) {
  const std::vector<float> x = random_values(size_t(kM * kK), 3), w = random_values(size_t(kN * kK), 4);
  const std::vector<float> c = random_values(size_t(kN), 5);
  for (auto [alpha, beta] : {std::pair<float, float>{1.f, 1.f}, {0.5f, 0.25f}}) {  // bias, then accumulate
    ModelBuilder b;
    b.input("x", {kM, kK}).output("y", {kM, kN});
    b.initializer("w", {kN, kK}, w);
    b.initializer("c", {kN}, c);
    auto* gemm = b.node("Gemm", {"x", "w", "c"}, {"y"});
    for (auto [name, value] : {std::pair<const char*, float>{"alpha", alpha}, {"beta", beta}}) {
      auto* a = gemm->add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto::FLOAT);
      a->set_f(value);
    }
    auto* t = gemm->add_attribute();
    t->set_name("transB");
    t->set_type(onnx::AttributeProto::INT);
    t->set_i(1);
    SCOPED_TRACE(alpha);
    check_both_modes(b, x, reference(x, w, true, alpha, c, beta));
  }
}

TEST(Bf16Gemm, ReachesSubgraphs) {
  // If(cond) { MatMul(x, w) } else { MatMul(x, w) }, each branch holding w as its own
  // initializer (a constant there, so packed): the branches are planned as subgraphs.
  const std::vector<float> x = random_values(size_t(kM * kK), 6), w = random_values(size_t(kK * kN), 7);
  ModelBuilder b;
  // cond is a graph input whose initializer is only its default, so the optimiser cannot
  // fold the If away and the MatMul stays in a subgraph.
  b.input("x", {kM, kK}).input("cond", {}, onnx::TensorProto::BOOL).output("y", {kM, kN});
  auto* cond = b.graph->add_initializer();
  cond->set_name("cond");
  cond->set_data_type(onnx::TensorProto::BOOL);
  cond->add_int32_data(1);
  auto* node = b.node("If", {"cond"}, {"y"});
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* attr = node->add_attribute();
    attr->set_name(branch);
    attr->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* g = attr->mutable_g();
    g->set_name(branch);
    auto* wt = g->add_initializer();
    wt->set_name("w");
    wt->set_data_type(onnx::TensorProto::FLOAT);
    wt->add_dims(kK);
    wt->add_dims(kN);
    for (float v : w) wt->add_float_data(v);
    ModelBuilder::set_type(g->add_output(), std::string(branch) + "_y", onnx::TensorProto::FLOAT, {kM, kN});
    auto* mm = g->add_node();
    mm->set_op_type("MatMul");
    mm->add_input("x");
    mm->add_input("w");
    mm->add_output(std::string(branch) + "_y");
  }
  check_both_modes(b, x, reference(x, w, false, 1.f, {}, 0.f));
}

}  // namespace
}  // namespace onyx
