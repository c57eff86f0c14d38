// Helpers for the optimizer pass tests: build a small model with the protobuf classes, load
// it, apply passes (by name, or a whole level), and compare the op histogram and the outputs
// of the graph before and after on random inputs.
#pragma once
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/value.h"
#include "ir/graph.h"
#include "optimizer/pass_manager.h"

namespace onyx::testing {

// A ModelProto under construction. Dims: >= 0 fixed, -1 the symbolic dim "N".
struct PassModel {
  onnx::ModelProto model;
  onnx::GraphProto* graph;

  explicit PassModel(int64_t opset = 17);
  PassModel& import(const std::string& domain, int64_t version);
  PassModel& input(const std::string& name, std::vector<int64_t> dims, int elem = onnx::TensorProto::FLOAT);
  PassModel& output(const std::string& name, int elem = onnx::TensorProto::FLOAT, std::vector<int64_t> dims = {},
                    bool with_shape = false);
  // A node; returns it so attributes can be added with the attr_* helpers.
  onnx::NodeProto* node(const std::string& op, std::vector<std::string> ins, std::vector<std::string> outs,
                        const std::string& domain = "");
  // Initializers from values (float32, int64) or random normal floats (seeded by name).
  PassModel& init(const std::string& name, std::vector<int64_t> dims, std::vector<float> values);
  PassModel& init_i64(const std::string& name, std::vector<int64_t> dims, std::vector<int64_t> values);
  PassModel& init_random(const std::string& name, std::vector<int64_t> dims, float scale = 1.f, float offset = 0.f);
  // A scalar float initializer named after its value's role.
  std::string scalar(const std::string& name, float value);
  std::string bytes() const { return model.SerializeAsString(); }
};

void attr_int(onnx::NodeProto* n, const std::string& name, int64_t v);
void attr_float(onnx::NodeProto* n, const std::string& name, float v);
void attr_ints(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v);
void attr_tensor(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> dims, std::vector<float> v);

ir::Model load(const PassModel& m);
// Applies the registered passes named (as one phase, to a fixpoint) or a whole level.
Result<optimizer::OptimizeReport> apply_passes(ir::Model& model, const std::vector<std::string>& names);
Result<optimizer::OptimizeReport> apply_level(ir::Model& model, int level, int log_level = 2);
// "Op" -> count ("com.microsoft:Gelu" for other domains).
std::map<std::string, int> histogram(const ir::Graph& graph);
// Random inputs for every graph input that has no initializer, from its declared type (the
// symbolic dim "N" is 2); float in [-3, 3], integers in [0, 4), bools alternate.
std::vector<Value> random_inputs(const ir::Model& model, uint32_t seed = 7);
// Plans and runs the model's main graph.
Result<std::vector<Value>> run_model(const ir::Model& model, const std::vector<Value>& inputs);
// EXPECTs that the two output lists agree: same dtypes and shapes, floats within
// atol + rtol * |expected|, others exactly.
void expect_same_outputs(const std::vector<Value>& expected, const std::vector<Value>& actual, double rtol,
                         double atol);

// The common test: loads `m` twice, applies `passes` (or `level` when passes is empty) to one,
// EXPECTs the optimised histogram to be `want` (ops not listed must be absent), and EXPECTs
// equal outputs on random inputs. Returns the optimised model.
ir::Model check_rewrite(const PassModel& m, const std::vector<std::string>& passes,
                        const std::map<std::string, int>& want, double rtol = 1e-5, double atol = 1e-6,
                        int level = 99);

}  // namespace onyx::testing
