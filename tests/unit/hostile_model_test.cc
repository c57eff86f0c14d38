// Hand-made hostile models, each attacking one assumption of the loader or the planner.
// Each must give a clear error (or a correct, bounded run), never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "model_builder.h"
#include "session/run_options.h"
#include "session/session.h"

namespace onyx {
namespace {

using testing::ModelBuilder;
namespace fs = std::filesystem;

Status load_status(const ModelBuilder& b, const std::string& dir = "") {
  const std::string bytes = b.bytes();
  auto s = Session::load_bytes(bytes.data(), bytes.size(), {}, dir);
  return s.ok() ? Status::Ok() : s.status();
}

void expect_error_with(const Status& s, const std::string& needle) {
  ASSERT_FALSE(s.ok()) << "expected an error mentioning '" << needle << "'";
  EXPECT_NE(s.to_string().find(needle), std::string::npos) << s.to_string();
}

ModelBuilder identity_model() {
  ModelBuilder b;
  b.input("x", {2}).output("y", {2});
  b.node("Identity", {"x"}, {"y"});
  return b;
}

// Adds an INTS attribute to node n.
void set_ints(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> values) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}

// Loads the model and, when it loads, runs it on zeros: the run must fail with a clear error
// (or, with may_run, may succeed).
// Under the sanitizer build this also proves that neither shape inference at load nor the
// kernel at run computes with the hostile values in a way that overflows.
void expect_load_or_run_error(const ModelBuilder& b, const std::vector<std::pair<std::string, Shape>>& inputs,
                              bool may_run = false) {
  const std::string bytes = b.bytes();
  auto s = Session::load_bytes(bytes.data(), bytes.size());
  if (!s.ok()) {
    EXPECT_FALSE(s.status().to_string().empty());
    return;
  }
  std::vector<std::pair<std::string, Value>> feeds;
  for (const auto& [name, shape] : inputs) feeds.emplace_back(name, Value(Tensor(DataType::kFloat, shape)));
  auto r = (*s)->run(feeds);
  if (may_run && r.ok()) return;  // a legal model whose hostility was only to the static rules
  ASSERT_FALSE(r.ok()) << "a run with hostile attribute values succeeded";
  EXPECT_FALSE(r.status().to_string().empty());
}

TEST(HostileModel, WindowAttributesNearInt64Max) {
  constexpr int64_t kMax = INT64_MAX;
  {  // Conv pads: in + pad_begin + pad_end overflows int64
    ModelBuilder b;
    b.input("x", {1, 1, 4, 4}).output("y", {-1, -1, -1, -1});
    b.initializer("w", {1, 1, 3, 3}, std::vector<float>(9, 1.f));
    set_ints(b.node("Conv", {"x", "w"}, {"y"}), "pads", {kMax, kMax, kMax, kMax});
    expect_load_or_run_error(b, {{"x", {1, 1, 4, 4}}});
  }
  {  // ConvTranspose strides and output_padding: stride * (in - 1) + output_padding overflows
    ModelBuilder b;
    b.input("x", {1, 1, 4, 4}).output("y", {-1, -1, -1, -1});
    b.initializer("w", {1, 1, 3, 3}, std::vector<float>(9, 1.f));
    auto* n = b.node("ConvTranspose", {"x", "w"}, {"y"});
    set_ints(n, "strides", {kMax, kMax});
    set_ints(n, "output_padding", {kMax - 1, kMax - 1});
    expect_load_or_run_error(b, {{"x", {1, 1, 4, 4}}});
  }
  {  // MaxPool dilations: (kernel - 1) * dilation overflows
    ModelBuilder b;
    b.input("x", {1, 1, 4, 4}).output("y", {-1, -1, -1, -1});
    auto* n = b.node("MaxPool", {"x"}, {"y"});
    set_ints(n, "kernel_shape", {3, 3});
    set_ints(n, "dilations", {kMax, kMax});
    expect_load_or_run_error(b, {{"x", {1, 1, 4, 4}}});
  }
  {  // AveragePool SAME_UPPER with a huge stride: ceil(in / stride) computed as in + stride - 1
    ModelBuilder b;
    b.input("x", {1, 1, 4, 4}).output("y", {-1, -1, -1, -1});
    auto* n = b.node("AveragePool", {"x"}, {"y"});
    set_ints(n, "kernel_shape", {2, 2});
    set_ints(n, "strides", {kMax, kMax});
    auto* pad = n->add_attribute();
    pad->set_name("auto_pad");
    pad->set_type(onnx::AttributeProto::STRING);
    pad->set_s("SAME_UPPER");
    expect_load_or_run_error(b, {{"x", {1, 1, 4, 4}}});
  }
}

TEST(HostileModel, ConstantPadsAndScalesNearTheLimits) {
  {  // Pad with constant pads of INT64_MAX at both ends: their sum overflows int64
    ModelBuilder b;
    b.input("x", {2, 2}).output("y", {-1, -1});
    auto* pads = b.graph->add_initializer();
    pads->set_name("pads");
    pads->set_data_type(onnx::TensorProto::INT64);
    pads->add_dims(4);
    for (int i = 0; i < 4; ++i) pads->add_int64_data(INT64_MAX);
    b.node("Pad", {"x", "pads"}, {"y"});
    expect_load_or_run_error(b, {{"x", {2, 2}}});
  }
  {  // Resize by a finite scale of 1e30: floor(in * scale) is far past int64
    ModelBuilder b;
    b.input("x", {1, 1, 2, 2}).output("y", {-1, -1, -1, -1});
    b.initializer("scales", {4}, {1.f, 1.f, 1e30f, 1e30f});
    b.node("Resize", {"x", "", "scales"}, {"y"});
    expect_load_or_run_error(b, {{"x", {1, 1, 2, 2}}});
  }
}

TEST(HostileModel, RanksPastTheStaticLimitAndDeclaredDimsOutOfRange) {
  // Static rules keep ranks above 1,024 unknown; rules that filled such shapes dim by dim
  // wrote past an empty vector at load. Declared (not checked) input dims outside
  // [0, 2^62] must not reach the rules' arithmetic either.
  {
    ModelBuilder b;
    b.input("x", std::vector<int64_t>(1025, 1)).input("z", {1}).output("y", {});
    b.node("Add", {"x", "z"}, {"y"});
    const std::string bytes = b.bytes();
    auto s = Session::load_bytes(bytes.data(), bytes.size());
    if (s.ok()) {
      auto r = (*s)->run({{"x", Value(Tensor(DataType::kFloat, Shape(1025, 1)))}, {"z", Value(Tensor(DataType::kFloat, {1}))}});
      EXPECT_FALSE(r.ok() && (*r)[0].tensor().rank() != 1025) << "a rank-1025 sum must keep its rank";
    }
  }
  {
    ModelBuilder b;
    b.input("x", {2}).output("y", {});
    auto* shape = b.graph->add_initializer();
    shape->set_name("shape");
    shape->set_data_type(onnx::TensorProto::INT64);
    shape->add_dims(1025);
    for (int i = 0; i < 1025; ++i) shape->add_int64_data(i == 0 ? 2 : 1);
    b.node("Reshape", {"x", "shape"}, {"y"});
    expect_load_or_run_error(b, {{"x", {2}}}, /*may_run=*/true);
  }
  {  // Concat of four axis dims of 2^62 declared on the inputs: their sum overflows int64
    ModelBuilder b;
    for (const char* name : {"a", "b", "c", "d"}) b.input(name, {int64_t(1) << 62});
    b.output("y", {});
    auto* concat = b.node("Concat", {"a", "b", "c", "d"}, {"y"});
    auto* axis = concat->add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(0);
    const std::string bytes = b.bytes();
    auto s = Session::load_bytes(bytes.data(), bytes.size());
    EXPECT_TRUE(s.ok() || !s.status().to_string().empty());
  }
  {  // Slice of a declared dim of INT64_MAX (read as unknown by the rules)
    ModelBuilder b;
    auto* in = b.graph->add_input();
    ModelBuilder::set_type(in, "x", onnx::TensorProto::FLOAT, {1});
    in->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_value(INT64_MAX);
    b.output("y", {});
    auto* starts = b.graph->add_initializer();
    starts->set_name("starts");
    starts->set_data_type(onnx::TensorProto::INT64);
    starts->add_dims(1);
    starts->add_int64_data(-1);
    auto* ends = b.graph->add_initializer();
    ends->CopyFrom(*starts);
    ends->set_name("ends");
    ends->set_int64_data(0, INT64_MAX);
    b.node("Slice", {"x", "starts", "ends"}, {"y"});
    const std::string bytes = b.bytes();
    auto s = Session::load_bytes(bytes.data(), bytes.size());
    if (s.ok()) EXPECT_FALSE((*s)->run({{"x", Value(Tensor(DataType::kFloat, {3}))}}).ok()) << "x disagrees with its declared dim";
  }
}

TEST(HostileModel, AbsurdInitializerDims) {
  ModelBuilder b = identity_model();
  auto* t = b.graph->add_initializer();
  t->set_name("huge");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(int64_t(1) << 31);
  t->add_dims(int64_t(1) << 31);  // 2^62 elements, no data
  expect_error_with(load_status(b), "'huge'");
}

TEST(HostileModel, OverflowingDims) {
  ModelBuilder b = identity_model();
  auto* t = b.graph->add_initializer();
  t->set_name("overflow");
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int i = 0; i < 4; ++i) t->add_dims(int64_t(1) << 40);
  expect_error_with(load_status(b), "'overflow'");
}

TEST(HostileModel, NegativeDims) {
  ModelBuilder b = identity_model();
  auto* t = b.graph->add_initializer();
  t->set_name("neg");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(-3);
  expect_error_with(load_status(b), "negative");
}

TEST(HostileModel, RawDataShorterThanDims) {
  ModelBuilder b = identity_model();
  auto* t = b.graph->add_initializer();
  t->set_name("short");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(100);
  t->set_raw_data(std::string(12, '\0'));
  expect_error_with(load_status(b), "raw_data holds 12");
}

TEST(HostileModel, TypedValuesShorterThanDimsAreRefusedBeforeAllocating) {
  // 2^40 floats declared (4 TB), one given: refused from the count, not from a failed malloc.
  ModelBuilder b = identity_model();
  auto* t = b.graph->add_initializer();
  t->set_name("short_typed");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(int64_t(1) << 20);
  t->add_dims(int64_t(1) << 20);
  t->add_float_data(1.f);
  expect_error_with(load_status(b), "needs 1099511627776 values in float_data but has 1");
}

TEST(HostileModel, SparseInitializerTooLargeToMakeDense) {
  ModelBuilder b = identity_model();
  auto* sp = b.graph->add_sparse_initializer();
  sp->add_dims(int64_t(1) << 20);
  sp->add_dims(int64_t(1) << 20);
  auto* values = sp->mutable_values();
  values->set_name("sparse_huge");
  values->set_data_type(onnx::TensorProto::FLOAT);
  values->add_dims(1);
  values->add_float_data(1.f);
  auto* indices = sp->mutable_indices();
  indices->set_data_type(onnx::TensorProto::INT64);
  indices->add_dims(1);
  indices->add_int64_data(0);
  expect_error_with(load_status(b), "too large to make dense");
}

TEST(HostileModel, UnknownDataType) {
  ModelBuilder b = identity_model();
  auto* t = b.graph->add_initializer();
  t->set_name("weird");
  t->set_data_type(99);
  expect_error_with(load_status(b), "unknown data type 99");
}

TEST(HostileModel, DeeplyNestedSubgraphs) {
  // If inside If inside If ... 100 levels.
  ModelBuilder b;
  b.input("c", {}, onnx::TensorProto::BOOL).output("y", {1});
  onnx::GraphProto* g = b.graph;
  std::string cond = "c";
  for (int depth = 0; depth < 100; ++depth) {
    auto* n = g->add_node();
    n->set_op_type("If");
    n->add_input(cond);
    n->add_output("y");
    for (const char* branch : {"then_branch", "else_branch"}) {
      auto* a = n->add_attribute();
      a->set_name(branch);
      a->set_type(onnx::AttributeProto::GRAPH);
      a->mutable_g()->set_name(branch);
      ModelBuilder::set_type(a->mutable_g()->add_output(), "y", onnx::TensorProto::FLOAT, {1});
    }
    g = n->mutable_attribute(0)->mutable_g();
  }
  // Protobuf's own recursion limit (100 messages deep) stops this before onyx's graph limit.
  const Status s = load_status(b);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.to_string().find("nested deeper") != std::string::npos ||
              s.to_string().find("cannot parse model") != std::string::npos)
      << s.to_string();
}

TEST(HostileModel, RecursiveFunction) {
  ModelBuilder b;
  auto* op = b.model.add_opset_import();
  op->set_domain("local");
  op->set_version(1);
  b.input("x", {2}).output("y", {2});
  auto* f = b.model.add_functions();
  f->set_name("Forever");
  f->set_domain("local");
  f->add_input("a");
  f->add_output("b");
  auto* inner = f->add_node();
  inner->set_op_type("Forever");
  inner->set_domain("local");
  inner->add_input("a");
  inner->add_output("b");
  b.node("Forever", {"x"}, {"y"})->set_domain("local");
  expect_error_with(load_status(b), "nested deeper");
}

TEST(HostileModel, DuplicateProducers) {
  ModelBuilder b;
  b.input("x", {2}).output("y", {2});
  b.node("Identity", {"x"}, {"y"}, "first");
  b.node("Identity", {"x"}, {"y"}, "second");
  expect_error_with(load_status(b), "produced by two nodes");
}

TEST(HostileModel, DuplicateGraphInputs) {
  ModelBuilder b = identity_model();
  b.input("x", {2});
  expect_error_with(load_status(b), "listed twice");
}

TEST(HostileModel, NodeOverwritesInitializer) {
  ModelBuilder b = identity_model();
  b.initializer("w", {2}, {1, 2});
  b.node("Identity", {"x"}, {"w"}, "clobber");
  expect_error_with(load_status(b), "initializer");
}

TEST(HostileModel, HugeExternalOffset) {
  const fs::path dir = fs::temp_directory_path() / ("onyx_hostile_" + std::to_string(::getpid()));
  fs::create_directories(dir / "m");
  std::ofstream(dir / "m" / "w.bin", std::ios::binary) << std::string(8, '\0');
  std::ofstream(dir / "secret.bin", std::ios::binary) << std::string(8, '\0');
  fs::create_symlink(dir / "secret.bin", dir / "m" / "link.bin");
  auto model_with = [&](const std::string& location, const std::string& offset) {
    ModelBuilder b = identity_model();
    auto* t = b.graph->add_initializer();
    t->set_name("w");
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(2);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    for (auto [k, v] : {std::pair<std::string, std::string>{"location", location}, {"offset", offset}, {"length", "8"}}) {
      auto* e = t->add_external_data();
      e->set_key(k);
      e->set_value(v);
    }
    return b;
  };
  expect_error_with(load_status(model_with("w.bin", "9223372036854775000"), (dir / "m").string()), "past the end");
  expect_error_with(load_status(model_with("w.bin", "-8"), (dir / "m").string()), "past the end");
  expect_error_with(load_status(model_with("w.bin", "12abc"), (dir / "m").string()), "offset");
  expect_error_with(load_status(model_with("link.bin", "0"), (dir / "m").string()), "escapes the model folder");
  EXPECT_TRUE(load_status(model_with("w.bin", "0"), (dir / "m").string()).ok());
  fs::remove_all(dir);
}

TEST(HostileModel, InitializerShadowingAnInputIsItsDefault) {
  ModelBuilder b = identity_model();
  b.initializer("x", {2}, {3, 4});
  const std::string bytes = b.bytes();
  auto s = Session::load_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  auto by_default = (*s)->run({});
  ASSERT_TRUE(by_default.ok()) << by_default.status().to_string();
  EXPECT_EQ((*by_default)[0].tensor().data<float>()[1], 4.f);
  Tensor x(DataType::kFloat, {2});
  x.data<float>()[1] = 9.f;
  auto fed = (*s)->run({{"x", Value(x)}});
  ASSERT_TRUE(fed.ok()) << fed.status().to_string();
  EXPECT_EQ((*fed)[0].tensor().data<float>()[1], 9.f);
}

TEST(HostileModel, AbsurdShapeAtRunIsAnErrorNotAnAllocation) {
  ModelBuilder b;
  b.input("shape", {2}, onnx::TensorProto::INT64).output("y", {-1, -1});
  b.node("ConstantOfShape", {"shape"}, {"y"});
  const std::string bytes = b.bytes();
  auto s = Session::load_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  Tensor shape(DataType::kInt64, {2});
  shape.data<int64_t>()[0] = int64_t(1) << 31;
  shape.data<int64_t>()[1] = int64_t(1) << 31;
  auto r = (*s)->run({{"shape", Value(shape)}});
  EXPECT_FALSE(r.ok());
  shape.data<int64_t>()[0] = -1;
  EXPECT_FALSE((*s)->run({{"shape", Value(shape)}}).ok());
  // 4 TB: under the size check, refused by the system: an error, not an abort.
  shape.data<int64_t>()[0] = int64_t(1) << 20;
  shape.data<int64_t>()[1] = int64_t(1) << 20;
  auto huge = (*s)->run({{"shape", Value(shape)}});
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().to_string().find("out of memory"), std::string::npos) << huge.status().to_string();
  shape.data<int64_t>()[0] = 2;
  shape.data<int64_t>()[1] = 3;
  EXPECT_TRUE((*s)->run({{"shape", Value(shape)}}).ok());  // the session is still usable
}

TEST(HostileModel, NodeNamingFewerOutputsThanItsKernelWrites) {
  // DynamicQuantizeLinear writes three outputs; a node naming one of them leaves the kernel two
  // scratch outputs, which must stay valid while it writes both (found by run_fuzzer).
  ModelBuilder b;
  b.input("x", {4}).output("y", {4}, onnx::TensorProto::UINT8);
  b.node("DynamicQuantizeLinear", {"x"}, {"y"});
  const std::string bytes = b.bytes();
  auto s = Session::load_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  Tensor x(DataType::kFloat, {4});
  for (int i = 0; i < 4; ++i) x.data<float>()[i] = float(i) - 1.f;  // -1 .. 2: scale 3/255
  auto r = (*s)->run({{"x", Value(x)}});
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  const uint8_t* y = (*r)[0].tensor().data<uint8_t>();
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[3], 255);
}

TEST(HostileModel, StringInitializerClaimingHugeDims) {
  // 2^40 strings declared, one given: an error before 2^40 std::strings are made.
  ModelBuilder b = identity_model();
  auto* t = b.graph->add_initializer();
  t->set_name("s");
  t->set_data_type(onnx::TensorProto::STRING);
  t->add_dims(int64_t(1) << 40);
  t->add_string_data("only one");
  const Status s = load_status(b);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidModel) << s.to_string();
}

TEST(HostileModel, StringLengthPastTheEndOfTheModel) {
  // A 1 MB string whose bytes are cut short: the string's length prefix claims more than the
  // model holds.
  ModelBuilder b = identity_model();
  auto* t = b.graph->add_initializer();
  t->set_name("s");
  t->set_data_type(onnx::TensorProto::STRING);
  t->add_dims(1);
  t->add_string_data(std::string(1 << 20, 'x'));
  const std::string bytes = b.bytes();
  const std::string cut = bytes.substr(0, bytes.size() / 2);
  auto s = Session::load_bytes(cut.data(), cut.size());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidModel) << s.status().to_string();
}

// Runs `session` twice on `feeds`, which it would take hours over: once with a 100 ms time limit,
// once terminated from another thread after 100 ms. Both runs must stop with CANCELLED, within
// 20 s (the limit is checked between nodes and, by kernels with unbounded work, inside them).
void expect_stops_at_the_time_limit_and_on_terminate(const Session& session,
                                                     const std::vector<std::pair<std::string, Value>>& feeds) {
  RunOptions limited;
  limited.timeout_ms = 100;
  const auto start = std::chrono::steady_clock::now();
  auto timed_out = session.run(feeds, {}, limited);
  ASSERT_FALSE(timed_out.ok());
  EXPECT_EQ(timed_out.status().code(), StatusCode::kCancelled) << timed_out.status().to_string();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));

  RunOptions stoppable;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stoppable.terminate = true;
  });
  auto terminated = session.run(feeds, {}, stoppable);
  stopper.join();
  ASSERT_FALSE(terminated.ok());
  EXPECT_EQ(terminated.status().code(), StatusCode::kCancelled) << terminated.status().to_string();
}

TEST(HostileModel, LoopWithoutTripCountStopsAtTheTimeLimitAndOnTerminate) {
  // Loop("", cond, v0) whose body keeps cond true: it would never end on its own.
  ModelBuilder b;
  b.input("v0", {1}).output("v", {1});
  auto* cond = b.graph->add_initializer();
  cond->set_name("cond");
  cond->set_data_type(onnx::TensorProto::BOOL);
  cond->add_int32_data(1);
  auto* loop = b.node("Loop", {"", "cond", "v0"}, {"v"}, "endless");
  onnx::GraphProto* body = ModelBuilder::loop_body(loop);
  for (auto [in, out] : {std::pair<const char*, const char*>{"c_in", "c_out"}, {"v_in", "v_out"}}) {
    auto* id = body->add_node();
    id->set_op_type("Identity");
    id->add_input(in);
    id->add_output(out);
  }
  const std::string bytes = b.bytes();
  auto s = Session::load_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  const std::vector<std::pair<std::string, Value>> feeds = {{"v0", Value(Tensor(DataType::kFloat, {1}))}};

  expect_stops_at_the_time_limit_and_on_terminate(**s, feeds);
}

// MaxPool with SAME_UPPER padding and a window of 875,172,163 x 2 over a 32 x 32 map (the
// run_fuzzer hang of 2026-11-24): oneDNN's pooling walks every tap of every window, padding
// included (10^12 taps); such windows go to the reference loops, which visit only the taps
// inside the input. Each output is the max over all rows of columns j and j + 1.
ModelBuilder giant_window_pool(int64_t rows, int64_t cols, std::vector<int64_t> kernel) {
  ModelBuilder b;
  b.input("x", {1, 1, rows, cols}).output("y", {-1, -1, -1, -1});
  auto* n = b.node("MaxPool", {"x"}, {"y"});
  set_ints(n, "kernel_shape", std::move(kernel));
  auto* pad = n->add_attribute();
  pad->set_name("auto_pad");
  pad->set_type(onnx::AttributeProto::STRING);
  pad->set_s("SAME_UPPER");
  return b;
}

TEST(HostileModel, PoolWindowFarLargerThanItsInput) {
  const ModelBuilder b = giant_window_pool(32, 32, {875172163, 2});
  Tensor x(DataType::kFloat, {1, 1, 32, 32});
  float* xp = x.data<float>();
  for (int64_t i = 0; i < 32 * 32; ++i) xp[i] = float((i * 7919) % 1000) - 500.f;
  for (int level : {0, 99}) {
    SessionOptions options;
    options.graph_optimization_level = level;
    const std::string bytes = b.bytes();
    auto s = Session::load_bytes(bytes.data(), bytes.size(), options);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    auto r = (*s)->run({{"x", Value(x)}});
    ASSERT_TRUE(r.ok()) << r.status().to_string();
    const Tensor& y = (*r)[0].tensor();
    ASSERT_EQ(y.shape(), (Shape{1, 1, 32, 32}));
    for (int64_t i = 0; i < 32; ++i)
      for (int64_t j = 0; j < 32; ++j) {
        float want = -1e30f;
        for (int64_t row = 0; row < 32; ++row)
          for (int64_t col = j; col < std::min<int64_t>(j + 2, 32); ++col) want = std::max(want, xp[row * 32 + col]);
        ASSERT_EQ(y.data<float>()[i * 32 + j], want) << "level " << level << " at " << i << "," << j;
      }
  }
}

// Pools whose taps inside the input alone number 10^10 to 10^13 stop at the run's time limit
// and on terminate, instead of running for hours: a 4095 x 4095 window over 2048 x 2048 (MaxPool's
// reference loops) and, at level 99, a 64 x 64 window (NhwcMaxPool, past oneDNN's budget).
TEST(HostileModel, LongPoolStopsAtTheTimeLimitAndOnTerminate) {
  for (auto [level, window] : {std::pair<int, int64_t>{0, 4095}, {99, 64}}) {
    const ModelBuilder b = giant_window_pool(2048, 2048, {window, window});
    SessionOptions options;
    options.graph_optimization_level = level;
    const std::string bytes = b.bytes();
    auto s = Session::load_bytes(bytes.data(), bytes.size(), options);
    ASSERT_TRUE(s.ok()) << s.status().to_string();
    const std::vector<std::pair<std::string, Value>> feeds = {
        {"x", Value(Tensor(DataType::kFloat, {1, 1, 2048, 2048}))}};
    SCOPED_TRACE("level " + std::to_string(level));
    expect_stops_at_the_time_limit_and_on_terminate(**s, feeds);
  }
}

}  // namespace
}  // namespace onyx
