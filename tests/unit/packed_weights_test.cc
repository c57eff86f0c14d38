// Weights packed by kernels (float32 MatMul / Gemm through oneDNN) are held once: the session
// drops an initializer once every reader has packed it, keeps it when any reader reads it in
// place or when it is a graph output, and results are the same either way.
#include <gtest/gtest.h>

#include <vector>

#include "model_builder.h"
#include "session/session.h"

namespace onyx {
namespace {

using testing::ModelBuilder;

Result<std::unique_ptr<Session>> make(const std::string& bytes, int level = 99) {
  SessionOptions o;
  o.graph_optimization_level = level;
  return Session::load_bytes(bytes.data(), bytes.size(), o);
}

std::vector<float> run(const Session& s) {
  Tensor x = Tensor::create(DataType::kFloat, {2, 3}).value();
  for (int i = 0; i < 6; ++i) x.data<float>()[i] = float(i) - 2.5f;
  auto out = s.run({{"x", Value(x)}});
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  if (!out.ok()) return {};
  const Tensor& y = (*out)[0].tensor();
  return std::vector<float>(y.data<float>(), y.data<float>() + y.numel());
}

const std::vector<float> kW = {1, 2, 3, 4, 5, 6};  // [3, 2]

TEST(PackedWeights, DroppedWhenEveryReaderPacked) {
  ModelBuilder b(13);
  b.input("x", {2, 3}).output("y", {2, 2});
  b.initializer("w", {3, 2}, kW);
  b.node("MatMul", {"x", "w"}, {"p"}, "m1");
  b.node("MatMul", {"x", "w"}, {"q"}, "m2");
  b.node("Add", {"p", "q"}, {"y"}, "add");
  auto s = make(b.bytes(), 0);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  ASSERT_EQ((*s)->model().graph.initializers.count("w"), 1u);  // its type stays, for static inference
  EXPECT_EQ((*s)->model().graph.initializers.at("w").raw_data(), nullptr);  // its data does not
  // x = [[-2.5,-1.5,-0.5],[0.5,1.5,2.5]]; x·w doubled.
  EXPECT_EQ(run(**s), (std::vector<float>{-19, -28, 35, 44}));
  EXPECT_EQ(run(**s), (std::vector<float>{-19, -28, 35, 44}));  // the packed copy serves every run
}

TEST(PackedWeights, KeptWhenAnotherReaderReadsInPlace) {
  ModelBuilder b(13);
  b.input("x", {2, 3}).output("y", {2, 2});
  b.initializer("w", {3, 2}, kW);
  b.node("MatMul", {"x", "w"}, {"p"}, "m");
  b.node("ReduceSum", {"w"}, {"ws"}, "reduce");  // all axes, keepdims: [1, 1] = 21
  b.node("Add", {"p", "ws"}, {"y"}, "add");
  auto s = make(b.bytes(), 0);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ((*s)->model().graph.initializers.count("w"), 1u);
  EXPECT_EQ(run(**s), (std::vector<float>{11.5f, 7, 38.5f, 43}));
}

TEST(PackedWeights, KeptWhenAGraphOutput) {
  ModelBuilder b(13);
  b.input("x", {2, 3}).output("y", {2, 2}).output("w", {3, 2});
  b.initializer("w", {3, 2}, kW);
  b.node("MatMul", {"x", "w"}, {"y"}, "m");
  auto s = make(b.bytes(), 0);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  Tensor x = Tensor::create(DataType::kFloat, {2, 3}).value();
  auto out = (*s)->run({{"x", Value(x)}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  const Tensor& w = (*out)[1].tensor();
  ASSERT_EQ(w.numel(), 6);
  EXPECT_EQ(std::vector<float>(w.data<float>(), w.data<float>() + 6), kW);
}

}  // namespace
}  // namespace onyx
