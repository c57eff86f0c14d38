// Free-dimension overrides (SessionOptions::free_dimension_overrides_by_*): the loader keeps
// denotations; overrides by dim_param name and by denotation fix the static types, the
// metadata and the checks on feeds, and leave the outputs unchanged.
#include <gtest/gtest.h>

#include <cstring>

#include "model_builder.h"
#include "ops/infer_graph.h"
#include "session/free_dims.h"
#include "session/session.h"

namespace onyx {
namespace {

using testing::ModelBuilder;

struct D {
  int64_t value = -1;        // >= 0: dim_value
  std::string param;         // dim_param
  std::string denotation;
};

void set_dims(onnx::ValueInfoProto* vi, const std::string& name, const std::vector<D>& dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = tt->mutable_shape();
  for (const D& d : dims) {
    auto* dim = shape->add_dim();
    if (d.value >= 0) dim->set_dim_value(d.value);
    else if (!d.param.empty()) dim->set_dim_param(d.param);
    if (!d.denotation.empty()) dim->set_denotation(d.denotation);
  }
}

// x[batch,3,height,width] -> Conv(w[2,3,3,3], pad 1) -> c -> Relu -> y[batch,2,height,width].
std::string conv_model() {
  ModelBuilder b(13);
  set_dims(b.graph->add_input(), "x",
           {{-1, "batch", "DATA_BATCH"}, {3, "", "DATA_CHANNEL"}, {-1, "height", ""}, {-1, "width", ""}});
  set_dims(b.graph->add_output(), "y", {{-1, "batch", ""}, {2, "", ""}, {-1, "height", ""}, {-1, "width", ""}});
  set_dims(b.graph->add_value_info(), "c", {{-1, "batch", ""}, {2, "", ""}, {-1, "height", ""}, {-1, "width", ""}});
  std::vector<float> w(2 * 3 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(int(i % 7) - 3) * 0.25f;
  b.initializer("w", {2, 3, 3, 3}, w);
  auto* conv = b.node("Conv", {"x", "w"}, {"c"}, "conv");
  auto* pads = conv->add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  b.node("Relu", {"c"}, {"y"}, "relu");
  return b.bytes();
}

Result<std::unique_ptr<Session>> make(const std::string& bytes, const SessionOptions& options = {}) {
  return Session::load_bytes(bytes.data(), bytes.size(), options);
}

Tensor input(const Shape& shape) {
  Tensor t(DataType::kFloat, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = float((i * 37) % 11) - 5.f;
  return t;
}

std::string dims_of(const ir::TypeInfo& t) { return t.shape.to_string(); }

TEST(FreeDims, LoaderKeepsDenotations) {
  auto s = make(conv_model());
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  const auto& dims = (*s)->inputs()[0].type.shape.dims;
  ASSERT_EQ(dims.size(), 4u);
  EXPECT_EQ(dims[0].denotation, "DATA_BATCH");
  EXPECT_EQ(dims[0].symbol, "batch");
  EXPECT_EQ(dims[1].denotation, "DATA_CHANNEL");
  EXPECT_EQ(dims[2].denotation, "");
}

TEST(FreeDims, ByNameFixesMetadataAndStaticTypes) {
  const std::string bytes = conv_model();
  auto plain = make(bytes);
  ASSERT_TRUE(plain.ok()) << plain.status().to_string();
  EXPECT_EQ(dims_of((*plain)->inputs()[0].type), "[batch,3,height,width]");
  EXPECT_EQ(dims_of((*plain)->static_types().all.at("y")), "[batch,2,height,width]");

  SessionOptions o;
  o.graph_optimization_level = 1;  // keep Conv -> Relu unfused: the test reads the value between them
  o.add_free_dimension_override_by_name("batch", 2);
  o.add_free_dimension_override_by_name("height", 5);
  o.free_dimension_overrides_by_name["width"] = 6;
  auto s = make(bytes, o);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(dims_of((*s)->inputs()[0].type), "[2,3,5,6]");
  EXPECT_EQ((*s)->inputs()[0].type.shape.dims[0].denotation, "DATA_BATCH");  // kept
  EXPECT_EQ(dims_of((*s)->outputs()[0].type), "[2,2,5,6]");                  // same dim_params
  EXPECT_EQ(dims_of((*s)->static_types().all.at("c")), "[2,2,5,6]");
  EXPECT_EQ(dims_of((*s)->static_types().inferred.at("y")), "[2,2,5,6]");    // derived by the rules
  bool value_info_fixed = false;
  for (const auto& vi : (*s)->model().graph.value_infos)
    if (vi.name == "c") value_info_fixed = dims_of(vi.type) == "[2,2,5,6]";
  EXPECT_TRUE(value_info_fixed);
}

TEST(FreeDims, OutputsUnchanged) {
  const std::string bytes = conv_model();
  SessionOptions o;
  o.free_dimension_overrides_by_name = {{"batch", 2}, {"height", 5}, {"width", 6}};
  o.verify_shapes = true;  // static types and kernels must agree
  auto fixed = make(bytes, o);
  auto plain = make(bytes);
  ASSERT_TRUE(fixed.ok() && plain.ok());
  const Tensor x = input({2, 3, 5, 6});
  auto a = (*fixed)->run({{"x", Value(x)}});
  auto b = (*plain)->run({{"x", Value(x)}});
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  const Tensor& ya = (*a)[0].tensor();
  const Tensor& yb = (*b)[0].tensor();
  ASSERT_EQ(ya.shape(), (Shape{2, 2, 5, 6}));
  ASSERT_EQ(ya.shape(), yb.shape());
  EXPECT_EQ(std::memcmp(ya.raw_data(), yb.raw_data(), ya.nbytes()), 0);
}

TEST(FreeDims, ContradictingFeedIsInvalidArgument) {
  SessionOptions o;
  o.free_dimension_overrides_by_name = {{"batch", 2}, {"height", 5}, {"width", 6}};
  auto s = make(conv_model(), o);
  ASSERT_TRUE(s.ok());
  auto r = (*s)->run({{"x", Value(input({3, 3, 5, 6}))}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("dim 0 must be 2"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("free-dimension override for dim_param 'batch'"), std::string::npos)
      << r.status().message();
  auto r2 = (*s)->run({{"x", Value(input({2, 3, 5, 7}))}});
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE((*s)->run({{"x", Value(input({2, 3, 5, 6}))}}).ok());
}

TEST(FreeDims, ByDenotation) {
  SessionOptions o;
  o.add_free_dimension_override("DATA_BATCH", 4);
  auto s = make(conv_model(), o);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(dims_of((*s)->inputs()[0].type), "[4,3,height,width]");
  EXPECT_EQ(dims_of((*s)->outputs()[0].type), "[4,2,height,width]");  // the dim_param it fixed
  auto r = (*s)->run({{"x", Value(input({1, 3, 4, 4}))}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("denotation DATA_BATCH"), std::string::npos) << r.status().message();
  EXPECT_TRUE((*s)->run({{"x", Value(input({4, 3, 4, 4}))}}).ok());

  SessionOptions lower;  // denotations match case-insensitively
  lower.add_free_dimension_override("data_batch", 3);
  auto s2 = make(conv_model(), lower);
  ASSERT_TRUE(s2.ok());
  EXPECT_EQ(dims_of((*s2)->inputs()[0].type), "[3,3,height,width]");
}

TEST(FreeDims, NameWinsOverDenotation) {
  SessionOptions o;
  o.add_free_dimension_override("DATA_BATCH", 3);
  o.add_free_dimension_override_by_name("batch", 2);
  ::testing::internal::CaptureStderr();
  auto s = make(conv_model(), o);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ((*s)->inputs()[0].type.shape.dims[0].value, 2);
  EXPECT_NE(err.find("override by name (2) wins"), std::string::npos) << err;
}

TEST(FreeDims, UnknownNamesAreWarnedAndHarmless) {
  SessionOptions o;
  o.add_free_dimension_override_by_name("sequence", 7);
  o.add_free_dimension_override("DATA_TIME", 9);
  ::testing::internal::CaptureStderr();
  auto s = make(conv_model(), o);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_NE(err.find("onyx [W] free-dimension override 'sequence'=7: no graph input has a dim_param"), std::string::npos) << err;
  EXPECT_NE(err.find("DATA_TIME=9: no graph input dim has that denotation"), std::string::npos) << err;
  EXPECT_EQ(dims_of((*s)->inputs()[0].type), "[batch,3,height,width]");
  EXPECT_TRUE((*s)->run({{"x", Value(input({1, 3, 4, 4}))}}).ok());

  o.log_level = 3;  // errors only: the warning is not printed
  ::testing::internal::CaptureStderr();
  auto quiet = make(conv_model(), o);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_TRUE(quiet.ok());
}

TEST(FreeDims, FixedDimKeepsItsSizeWithAWarning) {
  SessionOptions o;
  o.add_free_dimension_override("DATA_CHANNEL", 8);  // the model fixes that dim at 3
  ::testing::internal::CaptureStderr();
  auto s = make(conv_model(), o);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->inputs()[0].type.shape.dims[1].value, 3);
  EXPECT_NE(err.find("is fixed at 3 by the model"), std::string::npos) << err;
}

TEST(FreeDims, BadOverridesAreErrors) {
  SessionOptions negative;
  negative.add_free_dimension_override_by_name("batch", -1);
  auto s = make(conv_model(), negative);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);

  // One dim_param reached through two denotations with different sizes.
  ModelBuilder b(13);
  set_dims(b.graph->add_input(), "a", {{-1, "n", "DATA_BATCH"}});
  set_dims(b.graph->add_input(), "b", {{-1, "n", "DATA_FEATURE"}});
  set_dims(b.graph->add_output(), "y", {{-1, "n", ""}});
  b.node("Add", {"a", "b"}, {"y"});
  SessionOptions clash;
  clash.free_dimension_overrides_by_denotation = {{"DATA_BATCH", 2}, {"DATA_FEATURE", 3}};
  auto c = make(b.bytes(), clash);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("dim_param 'n' to both 2"), std::string::npos) << c.status().message();

  clash.free_dimension_overrides_by_denotation = {{"DATA_BATCH", 2}};  // one fixes "n" on both inputs
  auto ok = make(b.bytes(), clash);
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  EXPECT_EQ(dims_of((*ok)->inputs()[1].type), "[2]");
}

TEST(FreeDims, UnnamedDimByDenotation) {
  ModelBuilder b(13);
  set_dims(b.graph->add_input(), "a", {{-1, "", "DATA_BATCH"}, {4, "", ""}});
  set_dims(b.graph->add_output(), "y", {{-1, "", ""}, {4, "", ""}});
  b.node("Relu", {"a"}, {"y"});
  SessionOptions o;
  o.add_free_dimension_override("DATA_BATCH", 5);
  auto s = make(b.bytes(), o);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(dims_of((*s)->inputs()[0].type), "[5,4]");
  EXPECT_EQ(dims_of((*s)->static_types().inferred.at("y")), "[5,4]");
}

}  // namespace
}  // namespace onyx
