// RunOptions: terminate from another thread and a time limit stop a run between nodes (Loop
// iterations included) and leave the session usable; only_execute_path_to_fetches runs only
// what the requested outputs need.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "model_builder.h"
#include "session/session.h"

namespace onyx {
namespace {

using testing::ModelBuilder;

// v = Loop(M, cond=true, v0) with a body that adds 1 to v; M is an int64 input.
std::unique_ptr<Session> counting_loop_session() {
  ModelBuilder b;
  b.input("M", {}, onnx::TensorProto::INT64).input("v0", {1}).output("v", {1});
  auto* cond = b.graph->add_initializer();
  cond->set_name("cond");
  cond->set_data_type(onnx::TensorProto::BOOL);
  cond->add_int32_data(1);
  b.initializer("one", {1}, {1.f});
  auto* loop = b.node("Loop", {"M", "cond", "v0"}, {"v"}, "counting_loop");
  onnx::GraphProto* body = ModelBuilder::loop_body(loop);
  auto* id = body->add_node();
  id->set_op_type("Identity");
  id->add_input("c_in");
  id->add_output("c_out");
  auto* add = body->add_node();
  add->set_op_type("Add");
  add->add_input("v_in");
  add->add_input("one");  // read from the enclosing graph
  add->add_output("v_out");
  const std::string bytes = b.bytes();
  auto s = Session::load_bytes(bytes.data(), bytes.size());
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return s.ok() ? std::move(s).value() : nullptr;
}

std::vector<std::pair<std::string, Value>> loop_feeds(int64_t trips) {
  return {{"M", Value(Tensor::scalar<int64_t>(trips))}, {"v0", Value(Tensor(DataType::kFloat, {1}))}};
}

TEST(RunOptions, TerminateFromAnotherThreadStopsARunAndTheSessionStaysUsable) {
  auto s = counting_loop_session();
  ASSERT_TRUE(s);
  RunOptions options;
  const auto start = std::chrono::steady_clock::now();
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    options.terminate.store(true);
  });
  auto r = s->run(loop_feeds(int64_t(1) << 50), {}, options);  // would run for years
  stopper.join();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_NE(r.status().message().find("terminate"), std::string::npos) << r.status().to_string();
  EXPECT_LT(seconds, 10.0);

  auto again = s->run(loop_feeds(5), {}, options);  // still set: refused at once
  EXPECT_EQ(again.status().code(), StatusCode::kCancelled);
  options.terminate.store(false);
  auto ok = s->run(loop_feeds(5), {}, options);
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  EXPECT_FLOAT_EQ((*ok)[0].tensor().data<float>()[0], 5.f);
}

TEST(RunOptions, TerminatingOneRunLeavesConcurrentRunsAlone) {
  auto s = counting_loop_session();
  ASSERT_TRUE(s);
  RunOptions stopped, others;
  Status stopped_status;
  std::vector<float> others_result(3, -1.f);
  std::thread long_run([&] { stopped_status = s->run(loop_feeds(int64_t(1) << 50), {}, stopped).status(); });
  std::vector<std::thread> short_runs;
  for (int t = 0; t < 3; ++t)
    short_runs.emplace_back([&, t] {
      for (int r = 0; r < 50; ++r) {
        auto out = s->run(loop_feeds(100 + t), {}, others);
        others_result[size_t(t)] = out.ok() ? (*out)[0].tensor().data<float>()[0] : -2.f;
      }
    });
  for (auto& th : short_runs) th.join();
  stopped.terminate.store(true);
  long_run.join();
  EXPECT_EQ(stopped_status.code(), StatusCode::kCancelled) << stopped_status.to_string();
  for (int t = 0; t < 3; ++t) EXPECT_EQ(others_result[size_t(t)], float(100 + t));
}

TEST(RunOptions, TimeLimitStopsARun) {
  auto s = counting_loop_session();
  ASSERT_TRUE(s);
  RunOptions options;
  options.timeout_ms = 50;
  options.tag = "limited";
  const auto start = std::chrono::steady_clock::now();
  auto r = s->run(loop_feeds(int64_t(1) << 50), {}, options);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_NE(r.status().to_string().find("50 ms"), std::string::npos) << r.status().to_string();
  EXPECT_NE(r.status().to_string().find("limited"), std::string::npos) << r.status().to_string();
  EXPECT_LT(seconds, 10.0);
  auto ok = s->run(loop_feeds(3), {}, options);  // a short run fits the limit
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
}

TEST(RunOptions, MemoryLimitFailsARunAndKeepsTheSessionUsable) {
  ModelBuilder mb;
  mb.input("x", {-1}).output("y", {-1});
  mb.node("Relu", {"x"}, {"r"});
  mb.node("Neg", {"r"}, {"y"});
  const std::string bytes = mb.bytes();
  SessionOptions so;
  so.memory_limit_bytes = 1 << 20;
  so.graph_optimization_level = 0;
  auto s = Session::load_bytes(bytes.data(), bytes.size(), so);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  auto big = (*s)->run({{"x", Value(Tensor(DataType::kFloat, {1 << 19}))}});  // 2 MB intermediates
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), StatusCode::kRuntimeError);
  EXPECT_NE(big.status().to_string().find("memory limit of 1048576 bytes"), std::string::npos) << big.status().to_string();
  auto small = (*s)->run({{"x", Value(Tensor(DataType::kFloat, {1000}))}});
  EXPECT_TRUE(small.ok()) << small.status().to_string();
}

// Working memory a kernel takes beyond its outputs counts too: an int8 cubic Resize works in
// double, 8 bytes per element, so a 256 KiB output needs about 2 MiB of scratch.
TEST(RunOptions, MemoryLimitCountsKernelScratch) {
  ModelBuilder mb;
  mb.input("x", {1, 1, 4, 4}, onnx::TensorProto::INT8).output("y", {-1, -1, -1, -1}, onnx::TensorProto::INT8);
  mb.initializer("scales", {4}, {1.f, 1.f, 128.f, 128.f});
  auto* resize = mb.node("Resize", {"x", "", "scales"}, {"y"});
  auto* mode = resize->add_attribute();
  mode->set_name("mode");
  mode->set_type(onnx::AttributeProto::STRING);
  mode->set_s("cubic");
  const std::string bytes = mb.bytes();
  Tensor x(DataType::kInt8, {1, 1, 4, 4});
  for (int i = 0; i < 16; ++i) x.data<int8_t>()[i] = int8_t(i * 7 - 50);
  SessionOptions so;
  so.graph_optimization_level = 0;
  so.memory_limit_bytes = 1 << 20;  // the 256 KiB output fits; its double working copy does not
  auto limited = Session::load_bytes(bytes.data(), bytes.size(), so);
  ASSERT_TRUE(limited.ok()) << limited.status().to_string();
  auto r = (*limited)->run({{"x", Value(x)}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kRuntimeError);
  EXPECT_NE(r.status().to_string().find("memory limit of 1048576 bytes"), std::string::npos) << r.status().to_string();
  so.memory_limit_bytes = 8 << 20;  // room for both: the same run passes
  auto roomy = Session::load_bytes(bytes.data(), bytes.size(), so);
  ASSERT_TRUE(roomy.ok()) << roomy.status().to_string();
  auto ok = (*roomy)->run({{"x", Value(x)}});
  ASSERT_TRUE(ok.ok()) << ok.status().to_string();
  EXPECT_EQ((*ok)[0].tensor().shape(), (Shape{1, 1, 512, 512}));
}

// a = Relu(x); b = Reshape(x, [7]) fails for x of 4 elements.
TEST(RunOptions, OnlyExecutePathToFetchesSkipsNodesOtherOutputsNeed) {
  ModelBuilder mb;
  mb.input("x", {4}).output("a", {4}).output("b", {7});
  auto* shape = mb.graph->add_initializer();
  shape->set_name("seven");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(1);
  shape->add_int64_data(7);
  mb.node("Relu", {"x"}, {"a"});
  mb.node("Reshape", {"x", "seven"}, {"b"}, "bad_reshape");
  const std::string bytes = mb.bytes();
  SessionOptions so;
  so.graph_optimization_level = 0;
  auto s = Session::load_bytes(bytes.data(), bytes.size(), so);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  Tensor x(DataType::kFloat, {4});
  x.data<float>()[0] = -1, x.data<float>()[1] = 2;
  std::vector<std::pair<std::string, Value>> feeds{{"x", Value(x)}};

  auto everything = (*s)->run(feeds, {"a"});  // ORT's default: every node runs
  ASSERT_FALSE(everything.ok());
  EXPECT_NE(everything.status().to_string().find("bad_reshape"), std::string::npos);

  RunOptions pruned;
  pruned.only_execute_path_to_fetches = true;
  auto a = (*s)->run(feeds, {"a"}, pruned);
  ASSERT_TRUE(a.ok()) << a.status().to_string();
  EXPECT_FLOAT_EQ((*a)[0].tensor().data<float>()[0], 0.f);
  EXPECT_FLOAT_EQ((*a)[0].tensor().data<float>()[1], 2.f);
  EXPECT_FALSE((*s)->run(feeds, {"b"}, pruned).ok());
}

}  // namespace
}  // namespace onyx
