// IoBinding: bound inputs, outputs written straight into caller buffers, outputs of unknown
// shape allocated by onyx, clear errors for buffers that do not fit, and flat memory across
// many runs with one binding.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <tuple>

#include "model_builder.h"
#include "process_stats.h"
#include "session/session.h"

namespace onyx {
namespace {

using testing::ModelBuilder;

// z = Relu(x + y) with x, y, z float [N, 4] (N symbolic); also w = x (a pass-through).
std::unique_ptr<Session> add_relu_session() {
  ModelBuilder b;
  b.input("x", {-1, 4}).input("y", {-1, 4}).output("z", {-1, 4}).output("w", {-1, 4});
  b.node("Add", {"x", "y"}, {"s"});
  b.node("Relu", {"s"}, {"z"});
  b.node("Identity", {"x"}, {"w"});
  const std::string bytes = b.bytes();
  SessionOptions options;
  options.graph_optimization_level = 0;  // keep the Identity: w must pass x through
  auto s = Session::load_bytes(bytes.data(), bytes.size(), options);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return s.ok() ? std::move(s).value() : nullptr;
}

Tensor borrowed(DataType dtype, const Shape& shape, void* data, size_t size) {
  auto t = Tensor::borrow(dtype, shape, data, size);
  EXPECT_TRUE(t.ok()) << t.status().to_string();
  return t.ok() ? std::move(t).value() : Tensor();
}

Tensor filled(Shape shape, float start) {
  Tensor t(DataType::kFloat, std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = start + float(i) * (i % 2 ? -1.f : 1.f);
  return t;
}

TEST(IoBinding, OutputIsWrittenIntoTheCallerBuffer) {
  auto s = add_relu_session();
  ASSERT_TRUE(s);
  IoBinding b(*s);
  Tensor x = filled({3, 4}, 1), y = filled({3, 4}, -2);
  ASSERT_TRUE(b.bind_input("x", Value(x)).ok());
  ASSERT_TRUE(b.bind_input("y", Value(y)).ok());
  std::vector<float> z(12, -7.f);
  ASSERT_TRUE(b.bind_output("z", borrowed(DataType::kFloat, {3, 4}, z.data(), z.size() * 4)).ok());
  ASSERT_TRUE(s->run(b).ok());
  ASSERT_EQ(b.outputs().size(), 1u);
  EXPECT_EQ(b.outputs()[0].tensor().raw_data(), z.data());
  EXPECT_EQ(b.copied_outputs(), 0u);  // Relu wrote straight into z
  for (int i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(z[i], std::max(0.f, x.data<float>()[i] + y.data<float>()[i])) << i;
}

TEST(IoBinding, PassThroughOutputIsCopiedIntoTheBuffer) {
  auto s = add_relu_session();
  ASSERT_TRUE(s);
  IoBinding b(*s);
  Tensor x = filled({2, 4}, 3);
  ASSERT_TRUE(b.bind_input("x", Value(x)).ok());
  ASSERT_TRUE(b.bind_input("y", Value(filled({2, 4}, 0))).ok());
  std::vector<float> w(8, 0.f);
  ASSERT_TRUE(b.bind_output("w", borrowed(DataType::kFloat, {2, 4}, w.data(), w.size() * 4)).ok());
  ASSERT_TRUE(s->run(b).ok());
  EXPECT_EQ(std::memcmp(w.data(), x.raw_data(), 32), 0);
  EXPECT_EQ(b.outputs()[0].tensor().raw_data(), w.data());
  EXPECT_EQ(b.copied_outputs(), 1u);  // the Identity aliases x: one copy into w
}

TEST(IoBinding, BufferOfTheWrongShapeIsAnErrorAndUntouched) {
  auto s = add_relu_session();
  ASSERT_TRUE(s);
  IoBinding b(*s);
  ASSERT_TRUE(b.bind_input("x", Value(filled({3, 4}, 1))).ok());
  ASSERT_TRUE(b.bind_input("y", Value(filled({3, 4}, 1))).ok());
  std::vector<float> z(8, -7.f);  // [2, 4]: the run makes [3, 4]
  ASSERT_TRUE(b.bind_output("z", borrowed(DataType::kFloat, {2, 4}, z.data(), z.size() * 4)).ok());
  Status st = s->run(b);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("float32[2,4]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("float32[3,4]"), std::string::npos) << st.message();
  for (float v : z) EXPECT_EQ(v, -7.f);
}

TEST(IoBinding, BindErrorsAreClear) {
  auto s = add_relu_session();
  ASSERT_TRUE(s);
  IoBinding b(*s);
  std::vector<int32_t> ints(12);
  Status st = b.bind_output("z", borrowed(DataType::kInt32, {3, 4}, ints.data(), 48));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("float32"), std::string::npos) << st.message();
  std::vector<float> wrong_rank(12);
  EXPECT_EQ(b.bind_output("z", borrowed(DataType::kFloat, {12}, wrong_rank.data(), 48)).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(b.bind_output("nope").code(), StatusCode::kNotFound);
  EXPECT_EQ(b.bind_input("nope", Value(filled({1, 4}, 0))).code(), StatusCode::kNotFound);
  EXPECT_EQ(b.bind_input("x", Value(filled({1, 5}, 0))).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(b.bind_output("z", Device{Device::Type::kCuda, 0}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s->run(b).code(), StatusCode::kInvalidArgument);  // no outputs bound
  ASSERT_TRUE(b.bind_output("z").ok());
  EXPECT_EQ(s->run(b).code(), StatusCode::kInvalidArgument);  // inputs missing
}

TEST(IoBinding, RebindingOneInputKeepsTheOthers) {
  auto s = add_relu_session();
  ASSERT_TRUE(s);
  IoBinding b(*s);
  ASSERT_TRUE(b.bind_input("x", Value(filled({1, 4}, 1))).ok());
  ASSERT_TRUE(b.bind_input("y", Value(filled({1, 4}, 10))).ok());
  ASSERT_TRUE(b.bind_output("z").ok());
  ASSERT_TRUE(s->run(b).ok());
  const float first = b.outputs()[0].tensor().data<float>()[0];
  ASSERT_TRUE(b.bind_input("x", Value(filled({1, 4}, 5))).ok());
  ASSERT_TRUE(s->run(b).ok());
  EXPECT_FLOAT_EQ(first, 11.f);
  EXPECT_FLOAT_EQ(b.outputs()[0].tensor().data<float>()[0], 15.f);
  EXPECT_EQ(b.inputs().size(), 2u);
}

TEST(IoBinding, OutputBufferSharedWithAnInputIsFilledAfterTheRun) {
  auto s = add_relu_session();
  ASSERT_TRUE(s);
  IoBinding b(*s);
  Tensor x = filled({4, 4}, 2), y = filled({4, 4}, -1);
  const Tensor x_before = x.clone();
  ASSERT_TRUE(b.bind_input("x", Value(x)).ok());
  ASSERT_TRUE(b.bind_input("y", Value(y)).ok());
  ASSERT_TRUE(b.bind_output("z", x).ok());  // in place: z overwrites x
  ASSERT_TRUE(s->run(b).ok());
  EXPECT_EQ(b.copied_outputs(), 1u);  // written after the kernels were done reading x
  for (int i = 0; i < 16; ++i)
    EXPECT_FLOAT_EQ(x.data<float>()[i], std::max(0.f, x_before.data<float>()[i] + y.data<float>()[i]));
}

// AdamW (ai.onyx.training) over x, g, m, v [6]: its outputs may be written over x, m and v
// (Kernel::in_place_outputs). `x_read_twice` adds a second reader of x (Neg), which must
// turn the in-place write back into a copy after the run.
std::unique_ptr<Session> adamw_session(bool x_read_twice) {
  ModelBuilder b(17);
  auto* op = b.model.add_opset_import();
  op->set_domain("ai.onyx.training");
  op->set_version(1);
  b.input("lr", {}).input("t", {}, onnx::TensorProto::INT64);
  for (const char* n : {"x", "g", "m", "v"}) b.input(n, {6});
  for (const char* n : {"x2", "m2", "v2"}) b.output(n, {6});
  b.node("AdamW", {"lr", "t", "x", "g", "m", "v"}, {"x2", "m2", "v2"}, "adamw")->set_domain("ai.onyx.training");
  if (x_read_twice) {
    b.output("negx", {6});
    b.node("Neg", {"x"}, {"negx"}, "neg");
  }
  const std::string bytes = b.bytes();
  auto s = Session::load_bytes(bytes.data(), bytes.size());
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return s.ok() ? std::move(s).value() : nullptr;
}

TEST(IoBinding, AnInPlaceKernelWritesItsInputsBufferWithoutACopy) {
  for (bool x_read_twice : {false, true}) {
    auto s = adamw_session(x_read_twice);
    ASSERT_TRUE(s);
    Tensor x = filled({6}, 1), g = filled({6}, 0.5f), m(DataType::kFloat, {6}), v(DataType::kFloat, {6});
    const Tensor x_before = x.clone();
    IoBinding b(*s);
    ASSERT_TRUE(b.bind_input("lr", Value(Tensor::scalar<float>(0.1f))).ok());
    ASSERT_TRUE(b.bind_input("t", Value(Tensor::scalar<int64_t>(1))).ok());
    ASSERT_TRUE(b.bind_input("g", Value(g)).ok());
    for (auto [in, out, t] : {std::tuple{"x", "x2", x}, std::tuple{"m", "m2", m}, std::tuple{"v", "v2", v}}) {
      ASSERT_TRUE(b.bind_input(in, Value(t)).ok());
      ASSERT_TRUE(b.bind_output(out, t).ok());
    }
    if (x_read_twice) ASSERT_TRUE(b.bind_output("negx").ok());
    ASSERT_TRUE(s->run(b).ok());
    // x, m, v written in place; with a second reader x is copied in after the run.
    EXPECT_EQ(b.copied_outputs(), x_read_twice ? 1u : 0u);
    for (int i = 0; i < 6; ++i) {
      // First AdamW step: m = 0.1 g, v = 0.001 g^2, x moves by lr * sign(g) (up to eps).
      const float gi = g.data<float>()[i];
      EXPECT_NEAR(m.data<float>()[i], 0.1f * gi, 1e-7);
      EXPECT_NEAR(v.data<float>()[i], 0.001f * gi * gi, 1e-6 * gi * gi);
      EXPECT_NEAR(x.data<float>()[i], x_before.data<float>()[i] - 0.1f * (gi > 0 ? 1.f : -1.f), 1e-4);
      if (x_read_twice) EXPECT_FLOAT_EQ(b.outputs()[3].tensor().data<float>()[i], -x_before.data<float>()[i]);
    }
  }
}

TEST(IoBinding, DataDependentOutputShapeIsAllocatedByOnyx) {
  ModelBuilder mb;
  mb.input("x", {-1}).output("idx", {1, -1}, onnx::TensorProto::INT64);
  mb.node("NonZero", {"x"}, {"idx"});
  const std::string bytes = mb.bytes();
  auto s = Session::load_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  IoBinding b(**s);
  Tensor x(DataType::kFloat, {6});
  x.data<float>()[1] = 1, x.data<float>()[4] = 2;
  ASSERT_TRUE(b.bind_input("x", Value(x)).ok());
  ASSERT_TRUE(b.bind_output("idx").ok());
  ASSERT_TRUE((*s)->run(b).ok());
  const Tensor& idx = b.outputs()[0].tensor();
  ASSERT_EQ(idx.shape(), (Shape{1, 2}));
  auto before = (*s)->output_types_for({{"x", {6}}});  // the count of nonzeros is data: unknown
  ASSERT_TRUE(before.ok());
  ASSERT_EQ(before->at(0).shape.dims.size(), 2u);
  EXPECT_EQ(before->at(0).shape.dims[0].value, std::optional<int64_t>(1));
  EXPECT_FALSE(before->at(0).shape.dims[1].value.has_value());
  EXPECT_EQ(idx.data<int64_t>()[0], 1);
  EXPECT_EQ(idx.data<int64_t>()[1], 4);
}

TEST(IoBinding, OutputShapesAreKnownBeforeTheRun) {
  auto s = add_relu_session();
  ASSERT_TRUE(s);
  auto types = s->output_types_for({{"x", {5, 4}}, {"y", {5, 4}}});
  ASSERT_TRUE(types.ok()) << types.status().to_string();
  EXPECT_EQ((*types)[0].to_string(), "float32[5,4]");
  EXPECT_EQ((*types)[1].to_string(), "float32[5,4]");
  EXPECT_EQ(s->output_types_for({{"x", {5, 3}}}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s->output_types_for({{"nope", {5, 4}}}).status().code(), StatusCode::kNotFound);

  // A MatMul whose weight was packed (and dropped from the graph) still gives its shape.
  ModelBuilder mb;
  mb.input("a", {-1, 8}).output("b", {-1, 16});
  mb.initializer("w", {8, 16}, std::vector<float>(128, 0.5f));
  mb.node("MatMul", {"a", "w"}, {"b"});
  const std::string bytes = mb.bytes();
  auto m = Session::load_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  auto mt = (*m)->output_types_for({{"a", {3, 8}}});
  ASSERT_TRUE(mt.ok()) << mt.status().to_string();
  EXPECT_EQ((*mt)[0].to_string(), "float32[3,16]");
}

TEST(IoBinding, BindingsOnSeveralThreadsShareOneSession) {
  auto s = add_relu_session();
  ASSERT_TRUE(s);
  constexpr int kThreads = 4, kRuns = 300;
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      IoBinding b(*s);
      const int64_t rows = 1 + t;  // each thread its own shape
      Tensor x = filled({rows, 4}, float(t)), y = filled({rows, 4}, 1);
      std::vector<float> z(size_t(rows) * 4);
      if (!b.bind_input("x", Value(x)).ok() || !b.bind_input("y", Value(y)).ok() ||
          !b.bind_output("z", borrowed(DataType::kFloat, {rows, 4}, z.data(), z.size() * 4)).ok()) {
        wrong[t] = -1;
        return;
      }
      for (int r = 0; r < kRuns; ++r) {
        std::fill(z.begin(), z.end(), -1.f);
        if (!s->run(b).ok()) ++wrong[t];
        for (int64_t i = 0; i < rows * 4; ++i)
          if (z[size_t(i)] != std::max(0.f, x.data<float>()[i] + y.data<float>()[i])) {
            ++wrong[t];
            break;
          }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

// AddressSanitizer builds: g++ says so with __SANITIZE_ADDRESS__, clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define ONYX_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ONYX_TEST_UNDER_ASAN 1
#endif
#endif

TEST(IoBinding, ThousandRunsWithOneBindingKeepMemoryFlat) {
#ifdef ONYX_TEST_UNDER_ASAN
  GTEST_SKIP() << "AddressSanitizer's quarantine keeps freed memory resident: RSS says nothing here";
#endif
  auto s = add_relu_session();
  ASSERT_TRUE(s);
  IoBinding b(*s);
  std::vector<float> z(16384 * 4);  // 256 KB
  Tensor big_x = filled({16384, 4}, 1), big_y = filled({16384, 4}, 2);
  ASSERT_TRUE(b.bind_input("x", Value(big_x)).ok());
  ASSERT_TRUE(b.bind_input("y", Value(big_y)).ok());
  ASSERT_TRUE(b.bind_output("z", borrowed(DataType::kFloat, {16384, 4}, z.data(), z.size() * 4)).ok());
  ASSERT_TRUE(b.bind_output("w").ok());
  for (int r = 0; r < 100; ++r) ASSERT_TRUE(s->run(b).ok());
  const int64_t warm = testing::rss_kb();
  for (int r = 0; r < 1000; ++r) ASSERT_TRUE(s->run(b).ok());
  const int64_t after = testing::rss_kb();
  ASSERT_GT(warm, 0);
  // A leak of one 256 KB intermediate per run would add 250 MB here.
  EXPECT_LT(after - warm, 2048) << "RSS grew from " << warm << " kB to " << after << " kB";
  EXPECT_FLOAT_EQ(z[0], 3.f);
}

}  // namespace
}  // namespace onyx
