// The loader reads initializers in every encoding, sparse initializers and external data,
// and models at opsets up to 21 load and run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "model_builder.h"
#include "onnx/loader.h"
#include "session/session.h"

namespace onyx {
namespace {

using testing::ModelBuilder;
namespace fs = std::filesystem;

Result<ir::Model> load(const ModelBuilder& b, const std::string& dir = "") {
  const std::string bytes = b.bytes();
  return onnx_format::load_model_bytes(bytes.data(), bytes.size(), dir);
}

TEST(Loader, TypedFieldEncodings) {
  ModelBuilder b;
  b.input("x", {1}).output("x", {1});
  auto* i8 = b.graph->add_initializer();
  i8->set_name("i8");
  i8->set_data_type(onnx::TensorProto::INT8);
  i8->add_dims(3);
  for (int v : {-128, 0, 127}) i8->add_int32_data(v);
  auto* f16 = b.graph->add_initializer();
  f16->set_name("f16");
  f16->set_data_type(onnx::TensorProto::FLOAT16);
  f16->add_dims(1);
  f16->add_int32_data(0x3c00);  // 1.0
  auto* u64 = b.graph->add_initializer();
  u64->set_name("u64");
  u64->set_data_type(onnx::TensorProto::UINT64);
  u64->add_uint64_data(~0ull);
  auto* s = b.graph->add_initializer();
  s->set_name("s");
  s->set_data_type(onnx::TensorProto::STRING);
  s->add_dims(2);
  s->add_string_data("a");
  s->add_string_data("bc");
  auto* raw = b.graph->add_initializer();
  raw->set_name("raw");
  raw->set_data_type(onnx::TensorProto::INT32);
  raw->add_dims(2);
  const int32_t vals[2] = {7, -9};
  raw->set_raw_data(reinterpret_cast<const char*>(vals), sizeof(vals));

  auto m = load(b);
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  const auto& init = m->graph.initializers;
  EXPECT_EQ(init.at("i8").data<int8_t>()[0], -128);
  EXPECT_EQ(init.at("i8").data<int8_t>()[2], 127);
  EXPECT_EQ(float(init.at("f16").data<Float16>()[0]), 1.f);
  EXPECT_EQ(init.at("u64").rank(), 0);
  EXPECT_EQ(init.at("u64").data<uint64_t>()[0], ~0ull);
  EXPECT_EQ(init.at("s").data<std::string>()[1], "bc");
  EXPECT_EQ(init.at("raw").data<int32_t>()[1], -9);
}

TEST(Loader, WrongValueCountIsAnError) {
  ModelBuilder b;
  b.input("x", {1}).output("x", {1});
  b.initializer("w", {4}, {1, 2, 3});  // 3 values for 4 elements
  auto m = load(b);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().to_string().find("'w'"), std::string::npos) << m.status().to_string();
}

TEST(Loader, SparseInitializerBecomesDense) {
  ModelBuilder b;
  b.input("x", {1}).output("x", {1});
  auto* sp = b.graph->add_sparse_initializer();
  sp->add_dims(2);
  sp->add_dims(3);
  auto* values = sp->mutable_values();
  values->set_name("sp");
  values->set_data_type(onnx::TensorProto::FLOAT);
  values->add_dims(2);
  values->add_float_data(5.f);
  values->add_float_data(6.f);
  auto* indices = sp->mutable_indices();
  indices->set_data_type(onnx::TensorProto::INT64);
  indices->add_dims(2);
  indices->add_int64_data(1);  // linear index 1 -> [0,1]
  indices->add_int64_data(5);  // linear index 5 -> [1,2]
  auto m = load(b);
  ASSERT_TRUE(m.ok()) << m.status().to_string();
  const Tensor& t = m->graph.initializers.at("sp");
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  const float want[6] = {0, 5, 0, 0, 0, 6};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t.data<float>()[i], want[i]) << i;

  indices->set_int64_data(1, 6);  // out of range
  EXPECT_FALSE(load(b).ok());
}

TEST(Loader, ExternalDataIsMappedWithItsValues) {
  const fs::path dir = fs::temp_directory_path() / ("onyx_extval_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const float vals[4] = {1.5f, -2.f, 3.25f, 0.f};
  {
    std::ofstream f(dir / "w.bin", std::ios::binary);
    f.write("PAD!", 4);
    f.write(reinterpret_cast<const char*>(vals), sizeof(vals));
  }
  ModelBuilder b;
  b.input("x", {4}).output("y", {4});
  b.node("Add", {"x", "w"}, {"y"});
  auto* t = b.graph->add_initializer();
  t->set_name("w");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(4);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  for (auto [k, v] : {std::pair<const char*, const char*>{"location", "w.bin"}, {"offset", "4"}, {"length", "16"}}) {
    auto* e = t->add_external_data();
    e->set_key(k);
    e->set_value(v);
  }
  const std::string bytes = b.bytes();
  auto s = Session::load_bytes(bytes.data(), bytes.size(), {}, dir.string());
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  Tensor x(DataType::kFloat, {4});
  auto r = (*s)->run({{"x", Value(x)}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  for (int i = 0; i < 4; ++i) EXPECT_EQ((*r)[0].tensor().data<float>()[i], vals[i]);
  fs::remove_all(dir);
}

// Opset 18+ moved Reduce axes to an input and added Split num_outputs and Pad axes.
TEST(Loader, Opset21ModelsRun) {
  ModelBuilder b(21, 10);
  b.input("x", {2, 4}).output("mean", {2, 1}).output("a", {2, 2}).output("b", {2, 2}).output("p", {2, 6});
  auto* axes = b.graph->add_initializer();
  axes->set_name("axes");
  axes->set_data_type(onnx::TensorProto::INT64);
  axes->add_dims(1);
  axes->add_int64_data(1);
  auto* pads = b.graph->add_initializer();
  pads->set_name("pads");
  pads->set_data_type(onnx::TensorProto::INT64);
  pads->add_dims(2);
  pads->add_int64_data(1);
  pads->add_int64_data(1);
  b.node("ReduceMean", {"x", "axes"}, {"mean"});
  auto* split = b.node("Split", {"x"}, {"a", "b"});
  auto* n = split->add_attribute();
  n->set_name("axis");
  n->set_type(onnx::AttributeProto::INT);
  n->set_i(1);
  auto* no = split->add_attribute();
  no->set_name("num_outputs");
  no->set_type(onnx::AttributeProto::INT);
  no->set_i(2);
  b.node("Pad", {"x", "pads", "", "axes"}, {"p"});
  const std::string bytes = b.bytes();
  auto s = Session::load_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  Tensor x(DataType::kFloat, {2, 4});
  for (int i = 0; i < 8; ++i) x.data<float>()[i] = float(i);
  auto r = (*s)->run({{"x", Value(x)}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const auto& out = *r;
  EXPECT_EQ(out[0].tensor().shape(), (Shape{2, 1}));
  EXPECT_FLOAT_EQ(out[0].tensor().data<float>()[1], 5.5f);
  EXPECT_EQ(out[2].tensor().shape(), (Shape{2, 2}));
  EXPECT_FLOAT_EQ(out[2].tensor().data<float>()[0], 2.f);
  EXPECT_EQ(out[3].tensor().shape(), (Shape{2, 6}));
  EXPECT_FLOAT_EQ(out[3].tensor().data<float>()[0], 0.f);
  EXPECT_FLOAT_EQ(out[3].tensor().data<float>()[1], 0.f);
}

}  // namespace
}  // namespace onyx

namespace onyx {
namespace {

// IR versions 11 to 13 (ONNX 1.18 and later) load and run; past 13, and 0, are refused by number.
TEST(Loader, IrVersionsUpTo13Load) {
  for (int64_t ir : {int64_t(11), int64_t(13)}) {
    ModelBuilder b(21, ir);
    b.input("x", {3}).output("y", {3});
    b.node("Add", {"x", "x"}, {"y"});
    const std::string bytes = b.bytes();
    auto session = Session::load_bytes(bytes.data(), bytes.size());
    ASSERT_TRUE(session.ok()) << "IR " << ir << ": " << session.status().to_string();
    Tensor x(DataType::kFloat, {3});
    for (int i = 0; i < 3; ++i) x.data<float>()[i] = float(i) + 0.5f;
    auto out = (*session)->run({{"x", Value(x)}});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    EXPECT_EQ(out->at(0).tensor().data<float>()[2], 5.f);
  }
  for (int64_t ir : {int64_t(0), int64_t(14)}) {
    ModelBuilder b(21, ir);
    b.input("x", {3}).output("y", {3});
    b.node("Add", {"x", "x"}, {"y"});
    auto loaded = load(b);
    ASSERT_FALSE(loaded.ok()) << "IR " << ir;
    EXPECT_NE(loaded.status().message().find("unsupported IR version " + std::to_string(ir)), std::string::npos)
        << loaded.status().to_string();
  }
}

}  // namespace
}  // namespace onyx
