// A developer's report, skipped unless ONYX_PASS_REPORT_MODEL names a model file: the op
// histogram before and after each optimisation level, and which passes changed the graph.
//   ONYX_PASS_REPORT_MODEL=bench/models/bert_base.onnx build/tests/onyx_pass_tests --gtest_filter='PassReport.*'
// ONYX_PASS_REPORT_LEVEL picks one level (default: 1, 2 and 99); ONYX_PASS_REPORT_FREE_DIMS
// ("batch=1,sequence=128") fixes symbolic dims by name first; ONYX_PASS_REPORT_VERBOSE logs
// each pass.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <set>

#include "onnx/loader.h"
#include "session/free_dims.h"
#include "pass_test_util.h"

namespace onyx::testing {
namespace {

TEST(PassReport, Model) {
  const char* path = std::getenv("ONYX_PASS_REPORT_MODEL");
  if (!path) GTEST_SKIP() << "set ONYX_PASS_REPORT_MODEL to a model file";
  std::vector<int> levels = {1, 2, 99};
  if (const char* l = std::getenv("ONYX_PASS_REPORT_LEVEL")) levels = {std::atoi(l)};
  for (int level : levels) {
    auto model = onnx_format::load_model_file(path);
    ASSERT_TRUE(model.ok()) << model.status().to_string();
    if (const char* dims = std::getenv("ONYX_PASS_REPORT_FREE_DIMS")) {
      std::map<std::string, int64_t> by_name;
      std::string spec = dims;
      for (size_t pos = 0; pos < spec.size();) {
        size_t comma = spec.find(',', pos);
        if (comma == std::string::npos) comma = spec.size();
        const std::string item = spec.substr(pos, comma - pos);
        const size_t eq = item.find('=');
        if (eq != std::string::npos) by_name[item.substr(0, eq)] = std::stoll(item.substr(eq + 1));
        pos = comma + 1;
      }
      ASSERT_TRUE(apply_free_dimension_overrides(model->graph, by_name, {}).ok());
    }
    const auto before = histogram(model->graph);
    auto report = apply_level(*model, level, std::getenv("ONYX_PASS_REPORT_VERBOSE") ? 0 : 2);
    ASSERT_TRUE(report.ok()) << report.status().to_string();
    const auto after = histogram(model->graph);
    std::printf("level %d: %s\n", level, report->summary().c_str());
    std::set<std::string> ops;
    for (const auto& kv : before) ops.insert(kv.first);
    for (const auto& kv : after) ops.insert(kv.first);
    for (const auto& op : ops) {
      const int b = before.count(op) ? before.at(op) : 0, a = after.count(op) ? after.at(op) : 0;
      std::printf("  %-40s %5d -> %5d\n", op.c_str(), b, a);
    }
  }
}

}  // namespace
}  // namespace onyx::testing
