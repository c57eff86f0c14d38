// Lifting large raw_data out of a model file before parsing (src/onnx/raw_data_lift.h): the
// skeleton plus the lifted bytes is the same message protobuf reads from the whole file; bytes
// the walk cannot read lift nothing; and a model file loads with its large initializers read in
// place (views of the mapped file where aligned for their type, copies where not).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "model_builder.h"
#include "onnx/loader.h"
#include "onnx/raw_data_lift.h"
#include "session/session.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;
using onnx_format::lift_raw_data;
using testing::ModelBuilder;

std::string floats_as_bytes(size_t n, float start) {
  std::string s(n * sizeof(float), '\0');
  for (size_t i = 0; i < n; ++i) {
    const float v = start + float(i);
    std::memcpy(&s[i * sizeof(float)], &v, sizeof(float));
  }
  return s;
}

onnx::TensorProto* raw_initializer(ModelBuilder& b, const std::string& name, int elem, int64_t n, std::string bytes) {
  auto* t = b.graph->add_initializer();
  t->set_name(name);
  t->set_data_type(elem);
  t->add_dims(n);
  t->set_raw_data(std::move(bytes));
  return t;
}

// The skeleton, parsed, with each lifted field put back, serializes like the whole message.
void expect_same_message_as_whole(const std::string& bytes, const onnx_format::ModelSkeleton& skeleton) {
  onnx::ModelProto whole, rebuilt;
  ASSERT_TRUE(whole.ParseFromString(bytes));
  ASSERT_TRUE(rebuilt.ParseFromString(skeleton.bytes));
  for (const auto& l : skeleton.lifted) {
    ASSERT_LT(l.initializer_index, rebuilt.graph().initializer_size());
    EXPECT_FALSE(rebuilt.graph().initializer(l.initializer_index).has_raw_data());
    rebuilt.mutable_graph()->mutable_initializer(l.initializer_index)->set_raw_data(bytes.substr(l.offset, l.size));
  }
  EXPECT_EQ(rebuilt.SerializeAsString(), whole.SerializeAsString());
  EXPECT_LT(skeleton.bytes.size(), bytes.size());
}

ModelBuilder mixed_model() {
  ModelBuilder b;
  b.model.set_producer_name("raw_data_lift_test");
  b.input("x", {1000}).output("y", {1000});
  raw_initializer(b, "big", onnx::TensorProto::FLOAT, 1000, floats_as_bytes(1000, 1.f));     // lifted
  raw_initializer(b, "small", onnx::TensorProto::FLOAT, 4, floats_as_bytes(4, 0.5f));       // too small
  b.external_initializer("outside", {300}, "weights.bin", 0, 1200);                          // no raw_data
  raw_initializer(b, "ids", onnx::TensorProto::INT64, 300, std::string(300 * 8, '\x05'));   // lifted
  b.initializer("typed", {2}, {1.f, 2.f});
  // A subgraph's initializer stays in the skeleton, however large.
  auto* n = b.node("If", {"cond"}, {"y"});
  auto* attr = n->add_attribute();
  attr->set_name("then_branch");
  attr->set_type(onnx::AttributeProto::GRAPH);
  auto* sub = attr->mutable_g()->add_initializer();
  sub->set_name("inner");
  sub->set_data_type(onnx::TensorProto::FLOAT);
  sub->add_dims(600);
  sub->set_raw_data(floats_as_bytes(600, 3.f));
  return b;
}

TEST(RawDataLift, SkeletonPlusLiftedBytesIsTheWholeMessage) {
  const std::string bytes = mixed_model().bytes();
  auto skeleton = lift_raw_data(bytes.data(), bytes.size(), 1024);
  ASSERT_TRUE(skeleton.has_value());
  ASSERT_EQ(skeleton->lifted.size(), 2u);
  EXPECT_EQ(skeleton->lifted[0].initializer_index, 0);
  EXPECT_EQ(skeleton->lifted[0].size, 4000u);
  EXPECT_EQ(bytes.compare(skeleton->lifted[0].offset, 4000, floats_as_bytes(1000, 1.f)), 0);
  EXPECT_EQ(skeleton->lifted[1].initializer_index, 3);
  EXPECT_EQ(skeleton->lifted[1].size, 2400u);
  expect_same_message_as_whole(bytes, *skeleton);

  // Nothing of 1024 bytes or more outside subgraphs: nothing to lift.
  EXPECT_FALSE(lift_raw_data(bytes.data(), bytes.size(), 5000).has_value());
}

// A length-delimited field: key byte (field number << 3 | 2), length, payload.
std::string length_delimited(char key, const std::string& payload) {
  std::string field(1, key);
  uint64_t v = payload.size();
  for (; v >= 0x80; v >>= 7) field.push_back(char((v & 0x7f) | 0x80));
  field.push_back(char(v));
  return field + payload;
}

TEST(RawDataLift, TensorWithRawDataTwiceStaysWhole) {
  // Protobuf keeps the last of two raw_data fields; the walk lifts neither.
  ModelBuilder b = mixed_model();
  onnx::TensorProto twice;
  twice.set_name("twice");
  twice.set_data_type(onnx::TensorProto::FLOAT);
  twice.add_dims(500);
  twice.set_raw_data(floats_as_bytes(500, 9.f));
  const std::string tensor_bytes = twice.SerializeAsString() + length_delimited('\x4a', floats_as_bytes(500, -9.f));
  const std::string graph_bytes = b.graph->SerializeAsString() + length_delimited('\x2a', tensor_bytes);
  onnx::ModelProto shell = b.model;
  shell.clear_graph();
  const std::string model_bytes = shell.SerializeAsString() + length_delimited('\x3a', graph_bytes);

  auto skeleton = lift_raw_data(model_bytes.data(), model_bytes.size(), 1024);
  ASSERT_TRUE(skeleton.has_value());
  EXPECT_EQ(skeleton->lifted.size(), 2u);
  for (const auto& l : skeleton->lifted) EXPECT_NE(l.initializer_index, 5) << "the tensor with two raw_data fields";
  expect_same_message_as_whole(model_bytes, *skeleton);
  onnx::ModelProto whole;
  ASSERT_TRUE(whole.ParseFromString(model_bytes));
  ASSERT_EQ(whole.graph().initializer_size(), 6);
  EXPECT_EQ(whole.graph().initializer(5).raw_data(), floats_as_bytes(500, -9.f));
}

TEST(RawDataLift, BytesTheWalkCannotReadLiftNothing) {
  const std::string bytes = mixed_model().bytes();
  // Truncated anywhere: inside the graph the lengths run past the end.
  for (size_t cut : {bytes.size() - 1, bytes.size() / 2, size_t(40), size_t(3), size_t(1)})
    EXPECT_FALSE(lift_raw_data(bytes.data(), cut, 1024).has_value()) << "cut at " << cut;
  // A group (wire type 3) at the top level, a field number 0, an over-long varint.
  for (const std::string& tail : {std::string("\x0b\x0c", 2), std::string("\x00\x01", 2),
                                  std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 11)}) {
    const std::string odd = bytes + tail;
    EXPECT_FALSE(lift_raw_data(odd.data(), odd.size(), 1024).has_value());
  }
  // Two graph fields: protobuf merges them; the walk leaves that to protobuf.
  onnx::ModelProto extra;
  extra.mutable_graph()->set_name("second");
  const std::string twice = bytes + extra.SerializeAsString();
  EXPECT_FALSE(lift_raw_data(twice.data(), twice.size(), 1024).has_value());
  // No graph at all.
  onnx::ModelProto empty;
  empty.set_ir_version(8);
  const std::string no_graph = empty.SerializeAsString();
  EXPECT_FALSE(lift_raw_data(no_graph.data(), no_graph.size(), 1024).has_value());
}

fs::path scratch_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("onyx_lift_test_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// y = x + w, w float[1024] lifted from the file at an offset whose remainder mod 4 is `misalign`
// (the producer name's length moves it).
std::string write_add_model(const fs::path& path, size_t misalign) {
  for (size_t pad = 0; pad < 8; ++pad) {
    ModelBuilder b;
    b.model.set_producer_name(std::string(1 + pad, 'p'));
    b.input("x", {1024}).output("y", {1024});
    raw_initializer(b, "w", onnx::TensorProto::FLOAT, 1024, floats_as_bytes(1024, 0.25f));
    b.node("Add", {"x", "w"}, {"y"});
    const std::string bytes = b.bytes();
    auto skeleton = lift_raw_data(bytes.data(), bytes.size(), 1024);
    if (!skeleton || skeleton->lifted.size() != 1 || skeleton->lifted[0].offset % 4 != misalign) continue;
    std::ofstream(path, std::ios::binary) << bytes;
    return bytes;
  }
  return {};
}

TEST(RawDataLift, ModelFileReadsLargeInitializersInPlace) {
  const fs::path dir = scratch_dir("file");
  for (size_t misalign : {size_t(0), size_t(2)}) {
    SCOPED_TRACE("raw_data offset mod 4 = " + std::to_string(misalign));
    const fs::path path = dir / ("model" + std::to_string(misalign) + ".onnx");
    const std::string bytes = write_add_model(path, misalign);
    ASSERT_FALSE(bytes.empty());
    auto from_file = onnx_format::load_model_file(path.string());
    ASSERT_TRUE(from_file.ok()) << from_file.status().to_string();
    auto from_bytes = onnx_format::load_model_bytes(bytes.data(), bytes.size(), "");
    ASSERT_TRUE(from_bytes.ok()) << from_bytes.status().to_string();
    const Tensor& w = from_file->graph.initializers.at("w");
    ASSERT_EQ(w.shape(), (Shape{1024}));
    EXPECT_EQ(std::memcmp(w.raw_data(), from_bytes->graph.initializers.at("w").raw_data(), 4096), 0);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(w.raw_data()) % alignof(float), 0u);
    // Aligned bytes are a view of the file, named like external data; misaligned ones a copy.
    const auto ref = from_file->graph.external_data.find("w");
    if (misalign == 0) {
      ASSERT_NE(ref, from_file->graph.external_data.end());
      EXPECT_EQ(ref->second.location, path.filename().string());
      EXPECT_EQ(ref->second.length, 4096);
      EXPECT_EQ(bytes.compare(size_t(ref->second.offset), 4096, floats_as_bytes(1024, 0.25f)), 0);
    } else {
      EXPECT_EQ(ref, from_file->graph.external_data.end());
    }
    EXPECT_TRUE(from_bytes->graph.external_data.empty());

    auto session = Session::load_file(path.string());
    ASSERT_TRUE(session.ok()) << session.status().to_string();
    Tensor x(DataType::kFloat, {1024});
    for (int i = 0; i < 1024; ++i) x.data<float>()[i] = float(i);
    auto out = (*session)->run({{"x", Value(x)}});
    ASSERT_TRUE(out.ok()) << out.status().to_string();
    const Tensor& y = out->at(0).tensor();
    for (int i = 0; i < 1024; ++i) ASSERT_EQ(y.data<float>()[i], 2.f * float(i) + 0.25f) << i;
  }
  fs::remove_all(dir);
}

TEST(RawDataLift, WrongSizeIsTheSameErrorAsFromBytes) {
  const fs::path dir = scratch_dir("size");
  ModelBuilder b;
  b.input("x", {1024}).output("y", {1024});
  raw_initializer(b, "w", onnx::TensorProto::FLOAT, 2048, floats_as_bytes(1024, 0.f));  // half the bytes
  b.node("Add", {"x", "w"}, {"y"});
  const std::string bytes = b.bytes();
  std::ofstream(dir / "m.onnx", std::ios::binary) << bytes;
  auto from_file = onnx_format::load_model_file((dir / "m.onnx").string());
  auto from_bytes = onnx_format::load_model_bytes(bytes.data(), bytes.size(), "");
  ASSERT_FALSE(from_file.ok());
  ASSERT_FALSE(from_bytes.ok());
  EXPECT_NE(from_file.status().message().find("needs 8192 bytes but raw_data holds 4096"), std::string::npos)
      << from_file.status().to_string();
  EXPECT_NE(from_bytes.status().message().find("needs 8192 bytes but raw_data holds 4096"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace onyx
