// Profiling (SessionOptions::enable_profiling): the Chrome-trace file parses as JSON and has
// the session events and one event per kernel call (subgraphs and concurrent runs included);
// `onyx run --profile` and `onyx profile-summary` work end to end. Also the JSON helpers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "core/json.h"
#include "model_builder.h"
#include "onnx/loader.h"
#include "session/session.h"

namespace onyx {
namespace {

using testing::ModelBuilder;
namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("onyx_profiling_test_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// x[2,3] -> Relu 'r1' -> Neg 'n1' -> Sigmoid 's1' -> y
std::string chain_model() {
  ModelBuilder b(13);
  b.input("x", {2, 3}).output("y", {2, 3});
  b.node("Relu", {"x"}, {"a"}, "r1");
  b.node("Neg", {"a"}, {"b"}, "n1");
  b.node("Sigmoid", {"b"}, {"y"}, "s1");
  return b.bytes();
}

json::Value read_json(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  auto doc = json::parse(ss.str());
  EXPECT_TRUE(doc.ok()) << doc.status().to_string();
  return doc.ok() ? *doc : json::Value();
}

struct Counts {
  std::map<std::string, int> node;     // by node name
  std::map<std::string, int> session;  // by event name
  int bad = 0;                         // node events missing a required field
};

Counts count_events(const json::Value& doc) {
  Counts c;
  const json::Value* events = doc.is_array() ? &doc : nullptr;  // ONNX Runtime's form: a top-level array
  if (!events) return c;
  for (const auto& e : events->array) {
    const json::Value* ph = e.find("ph");
    if (!ph || ph->string != "X") continue;
    const json::Value* cat = e.find("cat");
    const std::string name = e.find("name")->string;
    if (cat->string == "Session") {
      ++c.session[name];
      continue;
    }
    const json::Value* args = e.find("args");
    const bool ok = args && args->find("op_name") && args->find("provider") &&
                    args->find("provider")->string == "CPU" && args->find("input_type_shape") &&
                    args->find("input_type_shape")->is_array() && args->find("output_type_shape") &&
                    e.find("dur") && e.find("dur")->is_number() && e.find("dur")->number >= 0 && e.find("ts");
    if (!ok) ++c.bad;
    ++c.node[name];
  }
  return c;
}

TEST(Json, QuoteAndParse) {
  const std::string odd = "a\"b\\c\n\t\x01 é";
  auto v = json::parse("{\"k\":" + json::quote(odd) + ",\"n\":[1,-2.5e3,true,false,null],\"o\":{}}");
  ASSERT_TRUE(v.ok()) << v.status().to_string();
  EXPECT_EQ(v->find("k")->string, odd);
  ASSERT_EQ(v->find("n")->array.size(), 5u);
  EXPECT_EQ(v->find("n")->array[1].number, -2500);
  EXPECT_TRUE(v->find("o")->is_object());
  EXPECT_EQ(json::parse("\"\\u00e9\\ud83d\\ude00\"")->string, "é\xF0\x9F\x98\x80");
  for (const char* bad : {"", "{", "[1,]", "{\"a\" 1}", "tru", "01x", "\"\x01\"", "[1] 2", "{'a':1}"})
    EXPECT_FALSE(json::parse(bad).ok()) << bad;
  EXPECT_FALSE(json::parse(std::string(600, '[') + std::string(600, ']')).ok());  // too deep
}

TEST(Profiling, OffByDefault) {
  const std::string bytes = chain_model();
  auto s = Session::load_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE((*s)->profiling());
  auto file = (*s)->end_profiling();
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(*file, "");
}

TEST(Profiling, WritesEventsForEveryNode) {
  const fs::path dir = temp_dir("every_node");
  const std::string bytes = chain_model();
  SessionOptions o;
  o.enable_profiling = true;
  o.profile_file_prefix = (dir / "trace").string();
  auto s = Session::load_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_TRUE((*s)->profiling());
  Tensor x(DataType::kFloat, {2, 3});
  for (int r = 0; r < 2; ++r) ASSERT_TRUE((*s)->run({{"x", Value(x)}}).ok());
  auto file = (*s)->end_profiling();
  ASSERT_TRUE(file.ok()) << file.status().to_string();
  EXPECT_EQ(fs::path(*file).parent_path(), dir);
  EXPECT_EQ(fs::path(*file).filename().string().rfind("trace_", 0), 0u) << *file;
  EXPECT_EQ(fs::path(*file).extension(), ".json");
  ASSERT_TRUE(fs::exists(*file));
  EXPECT_FALSE((*s)->profiling());
  ASSERT_TRUE((*s)->run({{"x", Value(x)}}).ok());  // after end: not recorded
  EXPECT_EQ((*s)->end_profiling().value(), *file);  // same name, nothing new written

  const json::Value doc = read_json(*file);
  const Counts c = count_events(doc);
  EXPECT_EQ(c.bad, 0);
  EXPECT_EQ(c.node.at("r1"), 2);
  EXPECT_EQ(c.node.at("n1"), 2);
  EXPECT_EQ(c.node.at("s1"), 2);
  EXPECT_EQ(c.session.at("run"), 2);
  for (const char* e : {"model_load", "static_inference", "planning"}) EXPECT_EQ(c.session.count(e), 1u) << e;
  // Each optimizer pass run has its event (at the default level, constant folding runs first).
  EXPECT_EQ(c.session.count("graph_optimization"), 1u);
  EXPECT_GE(c.session.count("optimizer:constant_folding"), 1u);

  // One node event in full.
  for (const auto& e : doc.array) {
    if (!e.find("name") || e.find("name")->string != "n1") continue;
    const json::Value* args = e.find("args");
    EXPECT_EQ(args->find("op_name")->string, "Neg");
    EXPECT_EQ(args->find("node_name")->string, "n1");
    const json::Value& in = args->find("input_type_shape")->array.at(0);
    ASSERT_TRUE(in.find("float32"));
    EXPECT_EQ(in.find("float32")->array.size(), 2u);
    EXPECT_EQ(in.find("float32")->array[1].number, 3);
    EXPECT_EQ(args->find("output_type_shape")->array.size(), 1u);
    break;
  }
  fs::remove_all(dir);
}

TEST(Profiling, WrittenWhenTheSessionEnds) {
  const fs::path dir = temp_dir("on_destroy");
  const std::string bytes = chain_model();
  SessionOptions o;
  o.enable_profiling = true;
  o.profile_file_prefix = (dir / "p").string();
  {
    auto s = Session::load_bytes(bytes.data(), bytes.size(), o);
    ASSERT_TRUE(s.ok());
  }
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += entry.path().extension() == ".json";
  EXPECT_EQ(files, 1);
  // A session that fails to build writes nothing.
  SessionOptions bad = o;
  bad.add_free_dimension_override_by_name("N", -3);
  EXPECT_FALSE(Session::load_bytes(bytes.data(), bytes.size(), bad).ok());
  files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += entry.path().extension() == ".json";
  EXPECT_EQ(files, 1);
  fs::remove_all(dir);
}

TEST(Profiling, SubgraphNodesAndConcurrentRuns) {
  const std::string dir = "/usr/share/libonnx-testdata/data/node/test_loop11";  // Loop with a body graph
  const fs::path out = temp_dir("loop");
  SessionOptions o;
  o.enable_profiling = true;
  o.profile_file_prefix = (out / "loop").string();
  auto s = Session::load_file(dir + "/model.onnx", o);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  std::vector<std::pair<std::string, Value>> feeds;
  size_t k = 0;
  for (const auto& vi : (*s)->inputs()) {
    if ((*s)->input_has_default(vi.name)) continue;
    auto v = onnx_format::load_value_file(dir + "/test_data_set_0/input_" + std::to_string(k++) + ".pb", vi.type);
    ASSERT_TRUE(v.ok()) << v.status().to_string();
    feeds.emplace_back(vi.name, *v);
  }
  constexpr int kThreads = 4, kRuns = 5;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) failures[size_t(t)] += !(*s)->run(feeds).ok();
    });
  for (auto& th : threads) th.join();
  for (int f : failures) EXPECT_EQ(f, 0);
  auto file = (*s)->end_profiling();
  ASSERT_TRUE(file.ok());
  const Counts c = count_events(read_json(*file));
  EXPECT_EQ(c.bad, 0);
  EXPECT_EQ(c.session.at("run"), kThreads * kRuns);
  // Every node of the body graph ran inside the Loop: each has events too.
  const ir::Graph& main = (*s)->model().graph;
  std::set<std::string> body_ops;
  for (const auto& n : main.nodes)
    if (const ir::Attribute* body = n.attribute("body"); body && body->g)
      for (const auto& bn : body->g->nodes) body_ops.insert(bn.name.empty() ? bn.op_type : bn.name);
  ASSERT_FALSE(body_ops.empty());
  for (const auto& name : body_ops) EXPECT_GE(c.node.count(name) ? c.node.at(name) : 0, kThreads * kRuns) << name;
  for (const auto& n : main.nodes) {
    const std::string name = n.name.empty() ? n.op_type : n.name;
    EXPECT_GE(c.node.count(name) ? c.node.at(name) : 0, kThreads * kRuns) << name;
  }
  fs::remove_all(out);
}

#ifdef ONYX_CLI
std::string capture(const std::string& command, int* status) {
  std::string out;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  *status = ::pclose(p);
  return out;
}

TEST(Profiling, CliRunAndSummary) {
  const fs::path dir = temp_dir("cli");
  const std::string model = (dir / "chain.onnx").string();
  std::ofstream(model, std::ios::binary) << chain_model();
  const std::string trace = (dir / "trace.json").string();
  int status = -1;
  std::string out = capture(std::string(ONYX_CLI) + " run " + model + " --random-inputs --profile " + trace, &status);
  ASSERT_EQ(status, 0) << out;
  ASSERT_TRUE(fs::exists(trace)) << out;
  const Counts c = count_events(read_json(trace));
  EXPECT_EQ(c.node.at("r1"), 1);
  EXPECT_EQ(c.session.at("run"), 1);
  int leftovers = 0;
  for (const auto& entry : fs::directory_iterator(dir)) leftovers += entry.path().filename().string().find(".tmp") != std::string::npos;
  EXPECT_EQ(leftovers, 0);

  out = capture(std::string(ONYX_CLI) + " profile-summary " + trace, &status);
  ASSERT_EQ(status, 0) << out;
  for (const char* op : {"Relu", "Neg", "Sigmoid", "all kernels", "slowest nodes", "planning"})
    EXPECT_NE(out.find(op), std::string::npos) << op << "\n" << out;

  out = capture(std::string(ONYX_CLI) + " profile-summary " + model, &status);  // not JSON
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("JSON"), std::string::npos) << out;
  fs::remove_all(dir);
}

TEST(FreeDimsCli, InfoAndRunTakeOverrides) {
  const fs::path dir = temp_dir("cli_free_dims");
  ModelBuilder b(13);
  b.input("x", {-1, 3}).output("y", {-1, 3});  // dim_param "N"
  b.node("Relu", {"x"}, {"y"}, "r");
  const std::string model = (dir / "m.onnx").string();
  std::ofstream(model, std::ios::binary) << b.bytes();
  int status = -1;
  std::string out = capture(std::string(ONYX_CLI) + " info " + model + " --free-dim N=4 --free-dim nope=2", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("float32[4,3]"), std::string::npos) << out;
  EXPECT_NE(out.find("'nope'=2: no graph input"), std::string::npos) << out;
  out = capture(std::string(ONYX_CLI) + " run " + model + " --random-inputs --free-dim N=5", &status);
  ASSERT_EQ(status, 0) << out;
  EXPECT_NE(out.find("float32[5,3]"), std::string::npos) << out;
  out = capture(std::string(ONYX_CLI) + " info " + model + " --free-dim-denotation DATA_BATCH=x", &status);
  EXPECT_EQ(status >> 8, 2) << out;
  fs::remove_all(dir);
}
#endif

}  // namespace
}  // namespace onyx
