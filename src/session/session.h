// Session: a loaded, planned model that runs. run() is const and thread-safe.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/value.h"
#include "ir/graph.h"

namespace onyx {

class GraphPlan;
namespace ops { struct GraphTypes; }

struct SessionOptions {
  enum class ExecutionMode { kSequential, kParallel };
  // Accepted for ONNX Runtime compatibility; no graph passes exist yet, so every level runs
  // the graph as loaded.
  int graph_optimization_level = 99;  // 0 disable, 1 basic, 2 extended, 99 all
  // Accepted; kernels run on the calling thread until the intra-op pool lands.
  int intra_op_threads = 0;           // 0: one per core
  int inter_op_threads = 0;
  ExecutionMode execution_mode = ExecutionMode::kSequential;  // nodes run in plan order either way
  int log_level = 2;                  // messages at this severity or above print: 0 verbose .. 4 fatal
  // Check every node output against the static type rules at run (a test aid; costs time).
  bool verify_shapes = false;
};

class Session {
 public:
  static Result<std::unique_ptr<Session>> load_file(const std::string& path, const SessionOptions& options = {});
  static Result<std::unique_ptr<Session>> load_bytes(const void* data, size_t size, const SessionOptions& options = {},
                                                     const std::string& base_dir = "");
  ~Session();

  const ir::Model& model() const { return *model_; }
  // Graph inputs the caller may feed (initializers with the same name are defaults).
  const std::vector<ir::ValueInfo>& inputs() const { return model_->graph.inputs; }
  const std::vector<ir::ValueInfo>& outputs() const { return model_->graph.outputs; }
  // Static types of every value the rules could derive or the model declares (best-effort).
  const ops::GraphTypes& static_types() const { return *types_; }
  // True when input `name` has an initializer default and may be left out.
  bool input_has_default(const std::string& name) const;

  // Runs the model. Every feed is checked against the declared input type (kind, dtype, rank,
  // fixed dims); an unknown or missing input is an error. `output_names` empty = all outputs.
  Result<std::vector<Value>> run(const std::vector<std::pair<std::string, Value>>& feeds,
                                 const std::vector<std::string>& output_names = {}) const;

 private:
  Session() = default;
  static Result<std::unique_ptr<Session>> from_model(std::unique_ptr<ir::Model> model, const SessionOptions& options);
  Status check_feed(const ir::ValueInfo& info, const Value& value) const;

  std::unique_ptr<ir::Model> model_;
  std::shared_ptr<GraphPlan> plan_;
  std::unique_ptr<ops::GraphTypes> types_;
  SessionOptions options_;
};

}  // namespace onyx
