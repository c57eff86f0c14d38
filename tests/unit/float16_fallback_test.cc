// The float16 fallback of CPU steps (GraphPlan::compute_in_float32): a node whose CPU kernel
// has no float16 path (MultiHeadAttention) runs on float32 copies of its float16 inputs and
// its float16 output is narrowed back; the answer is the float32 model's within float16's
// rounding, and a kernel missing for another type (double) stays an error naming the node.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/convert.h"
#include "model_builder.h"
#include "session/session.h"

namespace onyx {
namespace {

std::string attention_model(int elem) {
  testing::ModelBuilder b(17);
  auto* ms = b.model.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  for (const char* x : {"q", "k", "v"}) b.input(x, {1, 3, 4}, elem);
  b.output("y", {1, 3, 4}, elem);
  auto* n = b.node("MultiHeadAttention", {"q", "k", "v"}, {"y"}, "attention");
  n->set_domain("com.microsoft");
  auto* heads = n->add_attribute();
  heads->set_name("num_heads");
  heads->set_type(onnx::AttributeProto::INT);
  heads->set_i(2);
  return b.bytes();
}

Tensor filled(DataType dtype, int seed) {
  Tensor wide(DataType::kFloat, {1, 3, 4});
  for (int64_t i = 0; i < 12; ++i) wide.data<float>()[i] = std::sin(float(seed * 17 + i)) * 0.9f;
  if (dtype == DataType::kFloat) return wide;
  Tensor out(dtype, {1, 3, 4});
  EXPECT_TRUE(convert_elements(wide, out).ok());
  return out;
}

Result<std::vector<Value>> run(DataType dtype, int elem) {
  const std::string bytes = attention_model(elem);
  ONYX_ASSIGN_OR_RETURN(auto session, Session::load_bytes(bytes.data(), bytes.size()));
  return session->run({{"q", Value(filled(dtype, 1))}, {"k", Value(filled(dtype, 2))}, {"v", Value(filled(dtype, 3))}});
}

TEST(Float16Fallback, AKernelWithoutFloat16RunsInFloat32AndAnswersInFloat16) {
  auto reference = run(DataType::kFloat, onnx::TensorProto::FLOAT);
  ASSERT_TRUE(reference.ok()) << reference.status().to_string();
  auto half = run(DataType::kFloat16, onnx::TensorProto::FLOAT16);
  ASSERT_TRUE(half.ok()) << half.status().to_string();
  const Tensor& y = (*half)[0].tensor();
  ASSERT_EQ(y.dtype(), DataType::kFloat16);
  Tensor wide(DataType::kFloat, y.shape());
  ASSERT_TRUE(convert_elements(y, wide).ok());
  for (int64_t i = 0; i < 12; ++i)
    EXPECT_NEAR(wide.data<float>()[i], (*reference)[0].tensor().data<float>()[i], 3e-3) << i;
}

TEST(Float16Fallback, AKernelMissingForAnotherTypeStaysAnErrorNamingTheNode) {
  auto doubles = run(DataType::kDouble, onnx::TensorProto::DOUBLE);
  ASSERT_FALSE(doubles.ok());
  EXPECT_EQ(doubles.status().code(), StatusCode::kNotImplemented);
  EXPECT_NE(doubles.status().to_string().find("attention"), std::string::npos) << doubles.status().to_string();
}

}  // namespace
}  // namespace onyx
