// Initializer overrides (SessionOptions::add_initializer): caller memory replaces an
// initializer without a copy; bad names, dtypes and shapes are errors at session creation;
// two sessions from the same model bytes with different overrides differ (the LoRA case).
#include <gtest/gtest.h>

#include <vector>

#include "model_builder.h"
#include "session/session.h"

namespace onyx {
namespace {

using testing::ModelBuilder;

// y[1,2] = MatMul(x[1,3], w[3,2]) + b[2]
std::string linear_model() {
  ModelBuilder b(13);
  b.input("x", {1, 3}).output("y", {1, 2});
  b.initializer("w", {3, 2}, {1, 0, 0, 1, 1, 1});
  b.initializer("b", {2}, {0.5f, -0.5f});
  b.node("MatMul", {"x", "w"}, {"xw"}, "matmul");
  b.node("Add", {"xw", "b"}, {"y"}, "add");
  return b.bytes();
}

// Caller memory as a tensor (the test keeps the memory alive).
Tensor borrowed(DataType dtype, const Shape& shape, void* data, size_t size) {
  auto t = Tensor::borrow(dtype, shape, data, size);
  EXPECT_TRUE(t.ok()) << t.status().to_string();
  return t.ok() ? std::move(t).value() : Tensor();
}

Result<std::unique_ptr<Session>> make(const std::string& bytes, const SessionOptions& options) {
  return Session::load_bytes(bytes.data(), bytes.size(), options);
}

std::vector<float> run(const Session& s) {
  Tensor x(DataType::kFloat, {1, 3});
  x.data<float>()[0] = 1;
  x.data<float>()[1] = 2;
  x.data<float>()[2] = 3;
  auto out = s.run({{"x", Value(x)}});
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  if (!out.ok()) return {};
  const Tensor& y = (*out)[0].tensor();
  return std::vector<float>(y.data<float>(), y.data<float>() + y.numel());
}

TEST(InitializerOverride, ReplacesWithoutCopy) {
  std::vector<float> w = {2, 0, 0, 2, 0, 0};  // caller memory, alive for the session's life
  std::vector<float> b = {0.5f, -0.5f};
  auto wt = Tensor::borrow(DataType::kFloat, {3, 2}, w.data(), w.size() * sizeof(float));
  auto bt = Tensor::borrow(DataType::kFloat, {2}, b.data(), b.size() * sizeof(float));
  ASSERT_TRUE(wt.ok() && bt.ok());
  SessionOptions o;
  o.add_initializer("w", *wt);
  o.add_initializer("b", *bt);
  auto s = make(linear_model(), o);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  // The Add reads b in place; the float32 MatMul packed w into its own layout at creation, so
  // the session holds w only in that form.
  EXPECT_EQ((*s)->model().graph.initializers.at("b").raw_data(), static_cast<const void*>(b.data()));
  ASSERT_EQ((*s)->model().graph.initializers.count("w"), 1u);  // its type stays, for static inference
  EXPECT_EQ((*s)->model().graph.initializers.at("w").raw_data(), nullptr);  // its data does not
  EXPECT_EQ(run(**s), (std::vector<float>{2.5f, 3.5f}));  // x·w + b with w = 2·I (first two rows)
}

TEST(InitializerOverride, TwoSessionsSameBytesDifferentAdapters) {
  const std::string bytes = linear_model();
  std::vector<float> adapter_a = {1, 1, 1, 1, 1, 1}, adapter_b = {0, 1, 0, 1, 0, 1};
  std::vector<float> bias_b = {10, 20};
  SessionOptions oa, ob;
  oa.add_initializer("w", borrowed(DataType::kFloat, {3, 2}, adapter_a.data(), adapter_a.size() * 4));
  std::vector<Tensor> values = {borrowed(DataType::kFloat, {3, 2}, adapter_b.data(), adapter_b.size() * 4),
                                borrowed(DataType::kFloat, {2}, bias_b.data(), bias_b.size() * 4)};
  ASSERT_TRUE(ob.add_external_initializers({"w", "b"}, values).ok());
  auto sa = make(bytes, oa);
  auto sb = make(bytes, ob);
  SessionOptions plain;
  auto s0 = make(bytes, plain);
  ASSERT_TRUE(sa.ok() && sb.ok() && s0.ok());
  EXPECT_EQ(run(**s0), (std::vector<float>{4.5f, 4.5f}));
  EXPECT_EQ(run(**sa), (std::vector<float>{6.5f, 5.5f}));
  EXPECT_EQ(run(**sb), (std::vector<float>{10.f, 26.f}));
}

TEST(InitializerOverride, Errors) {
  const std::string bytes = linear_model();
  std::vector<float> buf(8, 1.f);
  auto expect_invalid = [&](const SessionOptions& o, const std::string& fragment) {
    auto s = make(bytes, o);
    ASSERT_FALSE(s.ok()) << fragment;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.status().message().find(fragment), std::string::npos) << s.status().message();
  };
  SessionOptions unknown;
  unknown.add_initializer("x", borrowed(DataType::kFloat, {1, 3}, buf.data(), 32));  // an input, not an initializer
  expect_invalid(unknown, "the model has no initializer of that name (initializers: b, w)");
  SessionOptions dtype;
  dtype.add_initializer("b", borrowed(DataType::kInt32, {2}, buf.data(), 32));
  expect_invalid(dtype, "initializer override 'b' is int32[2] but the model's initializer is float32[2]");
  SessionOptions shape;
  shape.add_initializer("w", borrowed(DataType::kFloat, {2, 3}, buf.data(), 32));
  expect_invalid(shape, "is float32[2,3] but the model's initializer is float32[3,2]");
  SessionOptions twice;
  twice.add_initializer("b", borrowed(DataType::kFloat, {2}, buf.data(), 32));
  twice.add_initializer("b", borrowed(DataType::kFloat, {2}, buf.data(), 32));
  expect_invalid(twice, "given twice");
  SessionOptions undefined;
  undefined.add_initializer("b", Tensor());
  expect_invalid(undefined, "undefined tensor");

  SessionOptions counts;
  EXPECT_EQ(counts.add_external_initializers({"w", "b"}, {Tensor()}).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(counts.initializer_overrides.empty());
}

TEST(InitializerOverride, BorrowChecksTheBuffer) {
  float four[4] = {};
  EXPECT_FALSE(Tensor::borrow(DataType::kFloat, {5}, four, sizeof four).ok());
  EXPECT_FALSE(Tensor::borrow(DataType::kFloat, {-1}, four, sizeof four).ok());
  EXPECT_FALSE(Tensor::borrow(DataType::kString, {1}, four, sizeof four).ok());
  EXPECT_FALSE(Tensor::borrow(DataType::kFloat, {2}, nullptr, 8).ok());
  auto t = Tensor::borrow(DataType::kFloat, {2, 2}, four, sizeof four);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->raw_data(), static_cast<void*>(four));
  EXPECT_TRUE(Tensor::borrow(DataType::kFloat, {0}, nullptr, 0).ok());
}

TEST(InitializerOverride, InputWithDefault) {
  // An initializer that is also a graph input (a default) can be overridden too; a feed
  // still takes precedence over it.
  ModelBuilder b(13);
  b.input("x", {2}).input("k", {2}).output("y", {2});
  b.initializer("k", {2}, {1, 1});
  b.node("Mul", {"x", "k"}, {"y"});
  const std::string bytes = b.bytes();
  std::vector<float> k = {3, 4};
  SessionOptions o;
  o.add_initializer("k", borrowed(DataType::kFloat, {2}, k.data(), 8));
  auto s = make(bytes, o);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  Tensor x(DataType::kFloat, {2});
  x.data<float>()[0] = 1;
  x.data<float>()[1] = 2;
  auto out = (*s)->run({{"x", Value(x)}});
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  EXPECT_EQ((*out)[0].tensor().data<float>()[0], 3.f);
  EXPECT_EQ((*out)[0].tensor().data<float>()[1], 8.f);
}

}  // namespace
}  // namespace onyx
