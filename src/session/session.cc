#include "session/session.h"

#include "core/logging.h"
#include "onnx/loader.h"
#include "ops/infer_graph.h"
#include "session/graph_plan.h"

namespace onyx {

Session::~Session() = default;

Result<std::unique_ptr<Session>> Session::load_file(const std::string& path, const SessionOptions& options) {
  ONYX_ASSIGN_OR_RETURN(ir::Model model, onnx_format::load_model_file(path));
  auto s = from_model(std::make_unique<ir::Model>(std::move(model)), options);
  if (!s.ok()) return s.take_status().with_context("while planning model '" + path + "'");
  return s;
}

Result<std::unique_ptr<Session>> Session::load_bytes(const void* data, size_t size, const SessionOptions& options,
                                                     const std::string& base_dir) {
  ONYX_ASSIGN_OR_RETURN(ir::Model model, onnx_format::load_model_bytes(data, size, base_dir));
  return from_model(std::make_unique<ir::Model>(std::move(model)), options);
}

Result<std::unique_ptr<Session>> Session::from_model(std::unique_ptr<ir::Model> model, const SessionOptions& options) {
  std::unique_ptr<Session> s(new Session());
  s->options_ = options;
  s->model_ = std::move(model);
  s->types_ = std::make_unique<ops::GraphTypes>(ops::infer_graph_types(s->model_->graph, s->model_->opsets));
  for (const auto& w : s->types_->warnings) log_message(LogLevel::kWarning, options.log_level, "static inference: " + w);
  ONYX_ASSIGN_OR_RETURN(s->plan_, GraphPlan::build(s->model_->graph, s->model_->opsets, nullptr,
                                                   options.verify_shapes ? &s->types_->inferred : nullptr));
  log_message(LogLevel::kInfo, options.log_level,
              "planned " + std::to_string(s->model_->graph.nodes.size()) + " nodes on CPU (IR " +
                  std::to_string(s->model_->ir_version) + ", producer '" + s->model_->producer_name + "')");
  return s;
}

bool Session::input_has_default(const std::string& name) const {
  return model_->graph.initializers.count(name) > 0;
}

Status Session::check_feed(const ir::ValueInfo& info, const Value& value) const {
  using K = ir::TypeInfo::Kind;
  const ir::TypeInfo& t = info.type;
  if (t.kind == K::kTensor) {
    if (!value.is_tensor()) return invalid_argument("input '", info.name, "' expects a tensor, got ", value.describe());
    const Tensor& x = value.tensor();
    if (t.elem_type != DataType::kUndefined && x.dtype() != t.elem_type)
      return invalid_argument("input '", info.name, "' expects element type ", data_type_name(t.elem_type), ", got ",
                              data_type_name(x.dtype()));
    if (t.shape.has_rank) {
      if (x.rank() != int64_t(t.shape.dims.size()))
        return invalid_argument("input '", info.name, "' expects rank ", t.shape.dims.size(), " ", t.shape.to_string(),
                                ", got shape ", shape_to_string(x.shape()));
      for (size_t d = 0; d < t.shape.dims.size(); ++d) {
        const auto& dim = t.shape.dims[d];
        if (dim.value && *dim.value != x.shape()[d])
          return invalid_argument("input '", info.name, "' dim ", d, " must be ", *dim.value, " (declared ",
                                  t.shape.to_string(), "), got shape ", shape_to_string(x.shape()));
      }
    }
  } else if (t.kind == K::kSequence) {
    if (!value.is_sequence()) return invalid_argument("input '", info.name, "' expects a sequence, got ", value.describe());
  }
  return Status::Ok();
}

Result<std::vector<Value>> Session::run(const std::vector<std::pair<std::string, Value>>& feeds,
                                        const std::vector<std::string>& output_names) const {
  const auto& graph_inputs = model_->graph.inputs;
  std::vector<Value> inputs(graph_inputs.size());
  std::vector<bool> fed(graph_inputs.size(), false);
  for (const auto& [name, value] : feeds) {
    size_t i = 0;
    while (i < graph_inputs.size() && graph_inputs[i].name != name) ++i;
    if (i == graph_inputs.size()) {
      std::string valid;
      for (const auto& vi : graph_inputs)
        if (!input_has_default(vi.name)) valid += (valid.empty() ? "" : ", ") + vi.name;
      return not_found("the model has no input named '", name, "' (inputs: ", valid, ")");
    }
    if (fed[i]) return invalid_argument("input '", name, "' is fed twice");
    ONYX_RETURN_IF_ERROR(check_feed(graph_inputs[i], value));
    inputs[i] = value;
    fed[i] = true;
  }
  for (size_t i = 0; i < graph_inputs.size(); ++i) {
    const ir::TypeInfo::Kind kind = graph_inputs[i].type.kind;
    if (!fed[i] && !input_has_default(graph_inputs[i].name) && kind != ir::TypeInfo::Kind::kOptional)
      return invalid_argument("input '", graph_inputs[i].name, "' is missing");
  }
  ONYX_ASSIGN_OR_RETURN(std::vector<Value> all, plan_->run(std::move(inputs), nullptr));
  if (output_names.empty()) return all;
  std::vector<Value> selected;
  for (const auto& name : output_names) {
    size_t i = 0;
    while (i < outputs().size() && outputs()[i].name != name) ++i;
    if (i == outputs().size()) return not_found("the model has no output named '", name, "'");
    selected.push_back(all[i]);
  }
  return selected;
}

}  // namespace onyx
