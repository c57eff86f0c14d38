// `onyx quantize --int4` (optimizer/quantize_int4.h): the written MatMulNBits follow ONNX
// Runtime's layout, read back here by a decoder of the test's own (nibble order, 1-D scales,
// zero points two a byte per row; 8 bits one a byte), so every weight is within half a quantisation step of the
// original (symmetric: or clamped at +7 steps); symmetric blocks hit their largest-magnitude value exactly; a K that is not a
// multiple of the block pads the last block; Gemm's transB and bias carry over; the model runs
// and stays close to the float one.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <random>

#include "cli_runner.h"
#include "model_builder.h"
#include "onnx/loader.h"
#include "optimizer/quantize_int4.h"

namespace onyx {
namespace {

using testing::ModelBuilder;
using testing::run_cli;

std::vector<float> random_values(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.f, 0.5f);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// y = Gemm(MatMul(x, W1), W2, C, transB = 1): K = 40 (not a multiple of 16 or 32).
std::string two_products() {
  ModelBuilder b;
  b.input("x", {3, 40}).output("y", {3, 5});
  b.initializer("W1", {40, 24}, random_values(40 * 24, 1));
  b.initializer("W2", {5, 24}, random_values(5 * 24, 2));
  b.initializer("C", {5}, random_values(5, 3));
  b.node("MatMul", {"x", "W1"}, {"h"}, "first");
  auto* gemm = b.node("Gemm", {"h", "W2", "C"}, {"y"}, "second");
  auto* trans = gemm->add_attribute();
  trans->set_name("transB");
  trans->set_type(onnx::AttributeProto::INT);
  trans->set_i(1);
  return b.bytes();
}

int64_t int_attr(const ir::Node& n, const char* name) {
  const ir::Attribute* a = n.attribute(name);
  return a ? a->i : -1;
}

// W[n, k] (N x K) decoded from a MatMulNBits node's initializers (4 bits: two codes a byte, the
// even one in the low nibble; 8 bits: one a byte; zero points packed the same way per row).
std::vector<float> decode(const ir::Graph& g, const ir::Node& node) {
  const int64_t k = int_attr(node, "K"), n = int_attr(node, "N"), block = int_attr(node, "block_size");
  const int64_t bits = int_attr(node, "bits"), per_byte = 8 / bits, mask = (1 << bits) - 1;
  const int64_t blocks = (k + block - 1) / block, zp_row = (blocks + per_byte - 1) / per_byte;
  const Tensor& codes = g.initializers.at(node.inputs[1]);
  const Tensor& scales = g.initializers.at(node.inputs[2]);
  EXPECT_EQ(codes.shape(), (Shape{n, blocks, block / per_byte}));
  EXPECT_EQ(scales.shape(), (Shape{n * blocks}));
  const bool has_zp = node.inputs.size() > 3 && !node.inputs[3].empty();
  const uint8_t* zp = has_zp ? g.initializers.at(node.inputs[3]).data<uint8_t>() : nullptr;
  if (has_zp) {
    EXPECT_EQ(g.initializers.at(node.inputs[3]).shape(), (Shape{n * zp_row}));
  }
  std::vector<float> w(size_t(n * k));
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < k; ++c) {
      const int64_t j = c / block, t = c % block;
      const uint8_t byte = codes.data<uint8_t>()[(r * blocks + j) * (block / per_byte) + t / per_byte];
      const int code = (byte >> ((t % per_byte) * bits)) & mask;
      int zero = 1 << (bits - 1);
      if (zp) zero = (zp[r * zp_row + j / per_byte] >> ((j % per_byte) * bits)) & mask;
      w[size_t(r * k + c)] = float(code - zero) * scales.data<float>()[r * blocks + j];
    }
  return w;
}

ir::Model load(const std::string& bytes) {
  auto m = onnx_format::load_model_bytes(bytes.data(), bytes.size(), ".");
  EXPECT_TRUE(m.ok()) << m.status().to_string();
  return std::move(*m);
}

void check_weights_within_half_a_step(bool symmetric, int64_t block, int64_t bits = 4) {
  ir::Model model = load(two_products());
  const Tensor w1 = model.graph.initializers.at("W1"), w2 = model.graph.initializers.at("W2");
  optimizer::Int4QuantizeOptions options;
  options.symmetric = symmetric;
  options.block_size = block;
  options.bits = bits;
  const float top = float((1 << (bits - 1)) - 1);  // symmetric codes span -2^(bits-1) .. top steps
  auto report = optimizer::quantize_int4(model, options);
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  EXPECT_EQ(report->quantized, 2);
  EXPECT_FALSE(model.graph.initializers.count("W1")) << "the float weights are dropped";
  ASSERT_EQ(model.graph.nodes.size(), 2u);
  for (const ir::Node& node : model.graph.nodes) {
    EXPECT_EQ(node.op_type, "MatMulNBits");
    EXPECT_EQ(node.domain, "com.microsoft");
    EXPECT_EQ(int_attr(node, "bits"), bits);
    EXPECT_EQ(int_attr(node, "block_size"), block);
    EXPECT_EQ(node.inputs.size() > 3 && !node.inputs[3].empty(), !symmetric);
    const bool gemm = node.name == "second";
    const Tensor& original = gemm ? w2 : w1;  // W1 is K x N; W2 is already N x K (transB)
    const int64_t k = int_attr(node, "K"), n = int_attr(node, "N");
    EXPECT_EQ(k, gemm ? 24 : 40);
    EXPECT_EQ(n, gemm ? 5 : 24);
    if (gemm) EXPECT_EQ(node.inputs.size() == 6 ? node.inputs[5] : "", "C") << "the bias is input 5";
    const std::vector<float> w = decode(model.graph, node);
    const int64_t blocks = (k + block - 1) / block;
    const Tensor& scales = model.graph.initializers.at(node.inputs[2]);
    for (int64_t r = 0; r < n; ++r)
      for (int64_t j = 0; j < blocks; ++j) {
        const float step = std::abs(scales.data<float>()[r * blocks + j]);
        float largest = 0.f, largest_decoded = 0.f;
        for (int64_t c = j * block; c < std::min(k, (j + 1) * block); ++c) {
          const float want = gemm ? original.data<float>()[r * k + c] : original.data<float>()[c * n + r];
          const float got = w[size_t(r * k + c)];
          // Symmetric codes span -8..7 steps (8 bits: -128..127): a value of the opposite sign to
          // the block's extreme past the top step is clamped there.
          const float allowed = std::max(0.5f * step, symmetric ? std::abs(want) - top * step : 0.f);
          ASSERT_LE(std::abs(got - want), allowed * 1.0001f) << node.name << " (" << r << ", " << c << ")";
          if (std::abs(want) > std::abs(largest)) largest = want, largest_decoded = got;
        }
        if (symmetric) EXPECT_NEAR(largest_decoded, largest, 1e-6f * std::abs(largest));
      }
  }
}

TEST(QuantizeInt4, AsymmetricWeightsWithinHalfAStep) { check_weights_within_half_a_step(false, 16); }
TEST(QuantizeInt4, AsymmetricWeightsWithinHalfAStepBlock32) { check_weights_within_half_a_step(false, 32); }
TEST(QuantizeInt4, SymmetricWeightsWithinHalfAStep) { check_weights_within_half_a_step(true, 16); }
TEST(QuantizeInt4, EightBitWeightsWithinHalfAStep) {
  check_weights_within_half_a_step(false, 32, 8);
  check_weights_within_half_a_step(true, 16, 8);
}

TEST(QuantizeInt4, RefusesABlockThatIsNotAPowerOfTwo) {
  ir::Model model = load(two_products());
  optimizer::Int4QuantizeOptions options;
  options.block_size = 24;
  EXPECT_FALSE(optimizer::quantize_int4(model, options).ok());
}

#ifdef ONYX_CLI
TEST(QuantizeInt4, CommandWritesAModelThatRunsCloseToTheFloatOne) {
  const auto dir = testing::scratch_folder("quantize_int4_test", "cli");
  const std::string model = (dir / "m.onnx").string(), out = (dir / "q.onnx").string();
  std::ofstream(model, std::ios::binary) << two_products();
  std::string text;
  ASSERT_EQ(run_cli("quantize " + model + " -o " + out + " --int4 --block-size 16 --no-compare", &text), 0) << text;
  EXPECT_NE(text.find("2 of 2 MatMul/Gemm quantised"), std::string::npos) << text;
  text.clear();
  EXPECT_EQ(run_cli("compare " + model + " " + out + " --runs 3 --atol 1.5 --rtol 0.1", &text), 0) << text;
  text.clear();
  EXPECT_EQ(run_cli("compare " + model + " " + out + " --runs 3 --atol 0 --rtol 0", &text), 1) << text;
  text.clear();
  EXPECT_EQ(run_cli("quantize " + model + " -o " + out + " --int4 --block-size 48", &text), 2) << text;
  EXPECT_NE(text.find("--block-size takes a power of 2"), std::string::npos) << text;
  // 8-bit codes: closer to the float model than 4-bit ones, and only 4 or 8 bits are taken
  text.clear();
  ASSERT_EQ(run_cli("quantize " + model + " -o " + out + " --int4 --bits 8 --block-size 16 --no-compare", &text), 0) << text;
  EXPECT_NE(text.find("8-bit weights"), std::string::npos) << text;
  text.clear();
  EXPECT_EQ(run_cli("compare " + model + " " + out + " --runs 3 --atol 0.1 --rtol 0.01", &text), 0) << text;
  text.clear();
  EXPECT_EQ(run_cli("quantize " + model + " -o " + out + " --int4 --bits 3", &text), 2) << text;
  EXPECT_NE(text.find("--bits takes 4 or 8"), std::string::npos) << text;
  std::filesystem::remove_all(dir);
}
#endif

}  // namespace
}  // namespace onyx
