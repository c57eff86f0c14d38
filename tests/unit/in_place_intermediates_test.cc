// A kernel's in-place output (Kernel::in_place_outputs) takes the block of an intermediate
// input that the run's arena made and that nothing reads afterwards (GraphPlan's donations):
// the run then needs one block where it needed two. Checked through the session's memory
// limit, which counts every block of the run's arena; and the cases that must not write over
// the input (read later, a graph output, a graph input) give unchanged values.
#include <gtest/gtest.h>

#include "model_builder.h"
#include "session/session.h"

namespace onyx {
namespace {

using testing::ModelBuilder;

constexpr int64_t kN = 1 << 18;  // 1 MiB of float32

// a = Relu(x); out = GradAccumulate(a, g, reset) = a + g (reset false), in_place {0 <- 0}.
// `a_read_later` adds after it b = Neg(a), which must still see a's values.
std::unique_ptr<Session> accumulate_session(bool a_read_later, bool a_is_output, size_t memory_limit) {
  ModelBuilder b(17);
  auto* op = b.model.add_opset_import();
  op->set_domain("ai.onyx.training");
  op->set_version(1);
  b.input("x", {kN}).input("g", {kN}).input("reset", {}, onnx::TensorProto::BOOL).output("out", {kN});
  b.node("Relu", {"x"}, {"a"}, "relu");
  b.node("GradAccumulate", {"a", "g", "reset"}, {"out"}, "accumulate")->set_domain("ai.onyx.training");
  if (a_read_later) {
    b.output("b", {kN});
    b.node("Neg", {"a"}, {"b"}, "neg");
  }
  if (a_is_output) b.output("a", {kN});
  SessionOptions options;
  options.graph_optimization_level = 0;
  options.memory_limit_bytes = memory_limit;
  const std::string bytes = b.bytes();
  auto s = Session::load_bytes(bytes.data(), bytes.size(), options);
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return s.ok() ? std::move(s).value() : nullptr;
}

Tensor ramp(float scale) {
  Tensor t(DataType::kFloat, {kN});
  for (int64_t i = 0; i < kN; ++i) t.data<float>()[i] = scale * float(i % 7 - 3);
  return t;
}

Result<std::vector<Value>> run(const Session& s, const Tensor& x, const Tensor& g) {
  return s.run({{"x", Value(x)}, {"g", Value(g)}, {"reset", Value(Tensor::scalar<bool>(false))}});
}

TEST(InPlaceIntermediates, TheOutputTakesTheDeadInputsBlock) {
  const Tensor x = ramp(1.f), g = ramp(0.5f);
  // a (1 MiB) and out (1 MiB) fit only if out is written over a.
  const size_t one_and_a_half = size_t(kN) * sizeof(float) * 3 / 2;
  auto s = accumulate_session(false, false, one_and_a_half);
  ASSERT_TRUE(s);
  for (int repeat = 0; repeat < 3; ++repeat) {  // the arena's cached blocks too
    auto out = run(*s, x, g);
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    const float* o = (*out)[0].tensor().data<float>();
    for (int64_t i = 0; i < kN; ++i) ASSERT_FLOAT_EQ(o[i], std::max(0.f, x.data<float>()[i]) + g.data<float>()[i]);
  }
  // The same graph under the same limit with a second reader of a: two blocks are needed.
  auto twice = accumulate_session(true, false, one_and_a_half);
  ASSERT_TRUE(twice);
  EXPECT_FALSE(run(*twice, x, g).ok());
}

TEST(InPlaceIntermediates, AnInputReadLaterOrReturnedIsNotWrittenOver) {
  const Tensor x = ramp(1.f), g = ramp(0.5f);
  for (bool later : {true, false}) {
    auto s = accumulate_session(later, !later, 0);
    ASSERT_TRUE(s);
    auto out = run(*s, x, g);
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    const float* sum = (*out)[0].tensor().data<float>();
    const float* other = (*out)[1].tensor().data<float>();  // b = -a, or a itself
    for (int64_t i = 0; i < kN; ++i) {
      const float a = std::max(0.f, x.data<float>()[i]);
      ASSERT_FLOAT_EQ(sum[i], a + g.data<float>()[i]);
      ASSERT_FLOAT_EQ(other[i], later ? -a : a);
    }
  }
}

TEST(InPlaceIntermediates, AGraphInputIsNeverWrittenOver) {
  // GradAccumulate straight over the graph input x: the caller's tensor keeps its values.
  ModelBuilder b(17);
  auto* op = b.model.add_opset_import();
  op->set_domain("ai.onyx.training");
  op->set_version(1);
  b.input("x", {kN}).input("g", {kN}).input("reset", {}, onnx::TensorProto::BOOL).output("out", {kN});
  b.node("GradAccumulate", {"x", "g", "reset"}, {"out"}, "accumulate")->set_domain("ai.onyx.training");
  const std::string bytes = b.bytes();
  auto s = Session::load_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  const Tensor x = ramp(1.f), g = ramp(0.5f);
  const Tensor x_before = x.clone();
  auto out = run(**s, x, g);
  ASSERT_TRUE(out.ok()) << out.status().to_string();
  for (int64_t i = 0; i < kN; ++i) {
    ASSERT_FLOAT_EQ(x.data<float>()[i], x_before.data<float>()[i]);
    ASSERT_FLOAT_EQ((*out)[0].tensor().data<float>()[i], x_before.data<float>()[i] + g.data<float>()[i]);
  }
}

}  // namespace
}  // namespace onyx
