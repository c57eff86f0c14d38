// Bad input of every kind gets a clear error that names the problem, never a crash.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "model_builder.h"
#include "session/session.h"

namespace onyx {
namespace {

using testing::ModelBuilder;
namespace fs = std::filesystem;

Status load_error(const std::string& bytes, const std::string& base_dir = "") {
  auto s = Session::load_bytes(bytes.data(), bytes.size(), {}, base_dir);
  return s.ok() ? Status::Ok() : s.status();
}

void expect_error(const Status& s, StatusCode code, const std::string& needle) {
  ASSERT_FALSE(s.ok()) << "expected an error mentioning '" << needle << "'";
  EXPECT_EQ(s.code(), code) << s.to_string();
  EXPECT_NE(s.to_string().find(needle), std::string::npos) << s.to_string();
}

ModelBuilder relu_model() {
  ModelBuilder b;
  b.input("x", {-1, 3}).output("y", {-1, 3});
  b.node("Relu", {"x"}, {"y"}, "relu1");
  return b;
}

TEST(BadInput, MissingFile) {
  auto s = Session::load_file("/nonexistent/model.onnx");
  expect_error(s.status(), StatusCode::kNotFound, "/nonexistent/model.onnx");
}

TEST(BadInput, EmptyBytes) { expect_error(load_error(""), StatusCode::kInvalidModel, "empty"); }

TEST(BadInput, GarbageBytes) {
  static const char kGarbage[] = "\xff\xff\xff\xff garbage \x01\x02";
  expect_error(load_error(std::string(kGarbage, sizeof(kGarbage) - 1)), StatusCode::kInvalidModel, "protobuf");
}

TEST(BadInput, TruncatedModel) {
  ModelBuilder b = relu_model();
  b.initializer("w", {4}, {1, 2, 3, 4});
  const std::string bytes = b.bytes();
  for (size_t cut : {bytes.size() / 3, bytes.size() / 2, bytes.size() - 3}) {
    Status s = load_error(bytes.substr(0, cut));
    EXPECT_FALSE(s.ok()) << "cut at " << cut;
  }
}

TEST(BadInput, UnknownOp) {
  ModelBuilder b;
  b.input("x", {2}).output("y", {2});
  b.node("NoSuchOp", {"x"}, {"y"}, "mystery");
  expect_error(load_error(b.bytes()), StatusCode::kNotImplemented, "NoSuchOp");
}

TEST(BadInput, UnknownDomain) {
  ModelBuilder b;
  b.input("x", {2}).output("y", {2});
  b.node("Relu", {"x"}, {"y"})->set_domain("com.example");
  expect_error(load_error(b.bytes()), StatusCode::kInvalidModel, "com.example");
}

TEST(BadInput, NoKernelForTypeNamesNodeOpOpsetAndType) {
  ModelBuilder b;
  b.input("x", {2}, onnx::TensorProto::UINT8).output("y", {2}, onnx::TensorProto::UINT8);
  b.node("Relu", {"x"}, {"y"}, "relu_u8");
  auto s = Session::load_bytes(b.bytes().data(), b.bytes().size());
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  Tensor x(DataType::kUInt8, {2});
  auto r = (*s)->run({{"x", Value(x)}});
  expect_error(r.status(), StatusCode::kNotImplemented, "uint8");
  EXPECT_NE(r.status().to_string().find("'relu_u8' (Relu)"), std::string::npos) << r.status().to_string();
  EXPECT_NE(r.status().to_string().find("opset 17"), std::string::npos) << r.status().to_string();
}

TEST(BadInput, CyclicGraph) {
  ModelBuilder b;
  b.input("x", {2}).output("y", {2});
  b.node("Relu", {"z"}, {"y"}, "a");
  b.node("Relu", {"y"}, {"z"}, "b");
  expect_error(load_error(b.bytes()), StatusCode::kInvalidModel, "cycle");
}

TEST(BadInput, UndefinedValue) {
  ModelBuilder b;
  b.input("x", {2}).output("y", {2});
  b.node("Relu", {"ghost"}, {"y"}, "a");
  expect_error(load_error(b.bytes()), StatusCode::kInvalidModel, "'ghost'");
}

class ExternalDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("onyx_ext_" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "model");
    std::ofstream(dir_ / "model" / "weights.bin", std::ios::binary) << std::string(16, '\0');
    std::ofstream(dir_ / "secret.bin", std::ios::binary) << std::string(16, '\0');
  }
  void TearDown() override { fs::remove_all(dir_); }
  Status load_with_external(const std::string& location, int64_t offset, int64_t length) {
    ModelBuilder b;
    b.input("x", {4}).output("y", {4});
    b.node("Relu", {"x"}, {"y"});
    b.external_initializer("w", {4}, location, offset, length);
    return load_error(b.bytes(), (dir_ / "model").string());
  }
  fs::path dir_;
};

TEST_F(ExternalDataTest, InsideFolderLoads) { EXPECT_TRUE(load_with_external("weights.bin", 0, 16).ok()); }

TEST_F(ExternalDataTest, EscapingPathIsRefused) {
  expect_error(load_with_external("../secret.bin", 0, 16), StatusCode::kInvalidModel, "escapes the model folder");
  expect_error(load_with_external((dir_ / "secret.bin").string(), 0, 16), StatusCode::kInvalidModel, "absolute");
}

TEST_F(ExternalDataTest, RangePastEndIsRefused) {
  expect_error(load_with_external("weights.bin", 8, 16), StatusCode::kInvalidModel, "past the end");
  expect_error(load_with_external("weights.bin", 32, 16), StatusCode::kInvalidModel, "past the end");
}

TEST_F(ExternalDataTest, MissingFileIsRefused) {
  expect_error(load_with_external("nothere.bin", 0, 16), StatusCode::kInvalidModel, "nothere.bin");
}

class RunInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string bytes = relu_model().bytes();
    auto s = Session::load_bytes(bytes.data(), bytes.size());
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    session_ = std::move(s).value();
  }
  std::unique_ptr<Session> session_;
};

TEST_F(RunInputTest, GoodInputRuns) {
  Tensor x(DataType::kFloat, {2, 3});
  x.data<float>()[0] = -1.f;
  x.data<float>()[1] = 2.f;
  auto r = session_->run({{"x", Value(x)}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ((*r)[0].tensor().data<float>()[0], 0.f);
  EXPECT_EQ((*r)[0].tensor().data<float>()[1], 2.f);
}

TEST_F(RunInputTest, UnknownInputName) {
  auto r = session_->run({{"nope", Value(Tensor(DataType::kFloat, {1, 3}))}});
  expect_error(r.status(), StatusCode::kNotFound, "'nope'");
}

TEST_F(RunInputTest, MissingInput) { expect_error(session_->run({}).status(), StatusCode::kInvalidArgument, "'x' is missing"); }

TEST_F(RunInputTest, WrongDtype) {
  auto r = session_->run({{"x", Value(Tensor(DataType::kInt32, {1, 3}))}});
  expect_error(r.status(), StatusCode::kInvalidArgument, "int32");
}

TEST_F(RunInputTest, WrongRank) {
  auto r = session_->run({{"x", Value(Tensor(DataType::kFloat, {3}))}});
  expect_error(r.status(), StatusCode::kInvalidArgument, "rank");
}

TEST_F(RunInputTest, DimContradictsFixedDim) {
  auto r = session_->run({{"x", Value(Tensor(DataType::kFloat, {2, 4}))}});
  expect_error(r.status(), StatusCode::kInvalidArgument, "dim 1 must be 3");
}

TEST_F(RunInputTest, UnknownOutputName) {
  auto r = session_->run({{"x", Value(Tensor(DataType::kFloat, {1, 3}))}}, {"zzz"});
  expect_error(r.status(), StatusCode::kNotFound, "'zzz'");
}

}  // namespace
}  // namespace onyx
