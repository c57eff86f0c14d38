// Model-local functions are inlined at load, with attribute references bound per call.
#include <gtest/gtest.h>

#include "model_builder.h"
#include "session/session.h"

namespace onyx {
namespace {

TEST(FunctionInline, CallsAreExpandedWithBoundAttributes) {
  testing::ModelBuilder b;
  auto* custom = b.model.add_opset_import();
  custom->set_domain("local");
  custom->set_version(1);
  b.input("x", {3}).output("y", {3});
  // Function LeakyNeg(a) = Neg(LeakyRelu(a, alpha=@slope))
  auto* f = b.model.add_functions();
  f->set_name("LeakyNeg");
  f->set_domain("local");
  f->add_input("a");
  f->add_output("b");
  f->add_attribute("slope");
  auto* op = f->add_opset_import();
  op->set_version(17);
  auto* n1 = f->add_node();
  n1->set_op_type("LeakyRelu");
  n1->add_input("a");
  n1->add_output("t");
  auto* alpha = n1->add_attribute();
  alpha->set_name("alpha");
  alpha->set_type(onnx::AttributeProto::FLOAT);
  alpha->set_ref_attr_name("slope");
  auto* n2 = f->add_node();
  n2->set_op_type("Neg");
  n2->add_input("t");
  n2->add_output("b");
  // Two calls, so internal names must not collide.
  auto* c1 = b.node("LeakyNeg", {"x"}, {"m"}, "call1");
  c1->set_domain("local");
  auto* s1 = c1->add_attribute();
  s1->set_name("slope");
  s1->set_type(onnx::AttributeProto::FLOAT);
  s1->set_f(0.5f);
  auto* c2 = b.node("LeakyNeg", {"m"}, {"y"}, "call2");
  c2->set_domain("local");
  auto* s2 = c2->add_attribute();
  s2->set_name("slope");
  s2->set_type(onnx::AttributeProto::FLOAT);
  s2->set_f(0.25f);

  const std::string bytes = b.bytes();
  auto session = Session::load_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(session.ok()) << session.status().to_string();
  EXPECT_EQ((*session)->model().graph.nodes.size(), 4u);
  Tensor x(DataType::kFloat, {3});
  x.data<float>()[0] = -4.f;
  x.data<float>()[1] = 2.f;
  x.data<float>()[2] = 0.f;
  auto r = (*session)->run({{"x", Value(x)}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const float* y = (*r)[0].tensor().data<float>();
  // call1: -4 -> -(-2) = 2; 2 -> -2.  call2: 2 -> -2; -2 -> -(-0.5) = 0.5.
  EXPECT_FLOAT_EQ(y[0], -2.f);
  EXPECT_FLOAT_EQ(y[1], 0.5f);
  EXPECT_FLOAT_EQ(y[2], 0.f);
}

}  // namespace
}  // namespace onyx
