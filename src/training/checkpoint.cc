#include "training/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

#include "core/json.h"
#include "ir/graph.h"
#include "onnx/loader.h"
#include "onnx/writer.h"

namespace onyx::training {
namespace {

constexpr const char* kFormat = "onyx.checkpoint.2";
constexpr const char* kParam = "param/";
constexpr const char* kExpAvg = "exp_avg/";
constexpr const char* kExpAvgSq = "exp_avg_sq/";
constexpr int64_t kMaxNominalElements = int64_t(1) << 31;
constexpr int64_t kMaxStep = int64_t(1) << 53;  // far beyond any run; keeps step + 1 exact and in range

std::string number_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

Status damaged(const std::string& what, const std::string& why) {
  return invalid_model("'", what, "' is not an onyx checkpoint or is damaged: ", why);
}

Result<DataType> dtype_named(const std::string& name) {
  for (int i = 1; i <= int(DataType::kBFloat16); ++i) {
    const auto t = DataType(i);
    if (t != DataType::kString && name == data_type_name(t)) return t;
  }
  return invalid_argument("unknown dtype '", name, "'");
}

// A JSON array of strings; nullopt-like error otherwise.
Result<std::vector<std::string>> string_list(const json::Value& v) {
  if (!v.is_array()) return invalid_argument("not a list");
  std::vector<std::string> out;
  for (const json::Value& item : v.array) {
    if (!item.is_string()) return invalid_argument("a name that is not a string");
    out.push_back(item.string);
  }
  return out;
}

Result<json::Value> metadata_json(const std::map<std::string, std::string>& meta, const std::string& key,
                                  const char* fallback) {
  auto it = meta.find(key);
  if (it == meta.end()) {
    if (!fallback) return invalid_argument("no '", key, "'");
    return json::parse(fallback);
  }
  auto parsed = json::parse(it->second);
  if (!parsed.ok()) return invalid_argument("'", key, "': ", parsed.status().message());
  return parsed;
}

Result<CheckpointProperty> property_from(const json::Value& v) {
  if (!v.is_object() || v.object.size() != 1 || !v.object[0].second.is_string())
    return invalid_argument("a property must be {\"int\"|\"float\"|\"str\": text}");
  const std::string& kind = v.object[0].first;
  const std::string& text = v.object[0].second.string;
  if (kind == "str") return CheckpointProperty(text);
  errno = 0;
  char* end = nullptr;
  if (kind == "int") {
    const long long i = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end || errno) return invalid_argument("a bad int property '", text, "'");
    return CheckpointProperty(int64_t(i));
  }
  if (kind == "float") {
    const double d = std::strtod(text.c_str(), &end);
    if (text.empty() || *end) return invalid_argument("a bad float property '", text, "'");
    return CheckpointProperty(d);
  }
  return invalid_argument("a property of unknown kind '", kind, "'");
}

Status fill_from_metadata(const ir::Model& model, CheckpointState& state, std::vector<std::string>& order,
                          json::Value& nominal_layout) {
  const auto& meta = model.metadata;
  auto format = meta.find("format");
  if (format == meta.end() || format->second != kFormat)
    return invalid_argument("format ", format == meta.end() ? std::string("missing") : "'" + format->second + "'",
                            ", expected '", kFormat, "'");
  ONYX_ASSIGN_OR_RETURN(json::Value order_json, metadata_json(meta, "order", nullptr));
  ONYX_ASSIGN_OR_RETURN(order, string_list(order_json));
  ONYX_ASSIGN_OR_RETURN(json::Value requires_grad, metadata_json(meta, "requires_grad", nullptr));
  ONYX_ASSIGN_OR_RETURN(json::Value config, metadata_json(meta, "optimizer.config", "{}"));
  ONYX_ASSIGN_OR_RETURN(json::Value properties, metadata_json(meta, "properties", "{}"));
  if (!requires_grad.is_object() || !config.is_object() || !properties.is_object())
    return invalid_argument("requires_grad, optimizer.config and properties must be objects");
  std::set<std::string> seen;
  for (const std::string& name : order) {
    if (!seen.insert(name).second) return invalid_argument("parameter '", name, "' is listed twice");
    TrainingParameter p;
    p.name = name;
    const json::Value* rg = requires_grad.find(name);
    if (rg && rg->kind != json::Value::Kind::kBool) return invalid_argument("requires_grad of '", name, "' is not a bool");
    p.requires_grad = rg && rg->boolean;
    state.parameters.push_back(std::move(p));
  }
  for (const json::Member& m : config.object) {
    if (!m.second.is_number()) return invalid_argument("optimizer.config '", m.first, "' is not a number");
    state.optimizer.config[m.first] = m.second.number;
  }
  for (const json::Member& m : properties.object) {
    ONYX_ASSIGN_OR_RETURN(state.properties[m.first], property_from(m.second));
  }
  if (auto kind = meta.find("optimizer"); kind != meta.end()) {
    if (kind->second != "" && kind->second != "AdamW" && kind->second != "SGD")
      return invalid_argument("unknown optimizer '", kind->second, "'");
    state.optimizer.kind = kind->second;
  }
  if (auto step = meta.find("optimizer.step"); step != meta.end()) {
    errno = 0;
    char* end = nullptr;
    const long long s = std::strtoll(step->second.c_str(), &end, 10);
    if (step->second.empty() || *end || errno || s < 0 || s > kMaxStep)
      return invalid_argument("optimizer.step '", step->second, "'");
    state.optimizer.step = s;
  }
  if (auto nominal = meta.find("nominal"); nominal != meta.end()) {
    ONYX_ASSIGN_OR_RETURN(nominal_layout, metadata_json(meta, "nominal", nullptr));
    if (!nominal_layout.is_object()) return invalid_argument("the nominal layout is not an object");
    state.nominal = true;
  }
  return Status::Ok();
}

// A zero tensor of the dtype and shape a nominal checkpoint records for `name`.
Result<Tensor> nominal_tensor(const json::Value& layout, const std::string& name) {
  const json::Value* entry = layout.find(name);
  if (!entry || !entry->is_array() || entry->array.size() != 2 || !entry->array[0].is_string() ||
      !entry->array[1].is_array())
    return invalid_argument("no [dtype, shape] for '", name, "' in the nominal layout");
  ONYX_ASSIGN_OR_RETURN(DataType dtype, dtype_named(entry->array[0].string));
  Shape shape;
  int64_t numel = 1;
  for (const json::Value& d : entry->array[1].array) {
    if (!d.is_number() || d.number < 0 || d.number != std::floor(d.number) || d.number > double(kMaxNominalElements))
      return invalid_argument("a bad dim in the nominal shape of '", name, "'");
    shape.push_back(int64_t(d.number));
    numel *= std::max<int64_t>(1, shape.back());
    if (numel > kMaxNominalElements) return invalid_argument("the nominal shape of '", name, "' is too large");
  }
  // Not zero-filled: a nominal state's values are never read before copy_buffer_to_parameters
  // writes them all (Module refuses to run, views and saves refuse or skip them), so a
  // hostile layout reserves address space without touching memory.
  return Tensor::create(dtype, shape, nullptr, /*zero_fill=*/false);
}

}  // namespace

TrainingParameter* CheckpointState::find(const std::string& name) {
  for (TrainingParameter& p : parameters)
    if (p.name == name) return &p;
  return nullptr;
}

const TrainingParameter* CheckpointState::find(const std::string& name) const {
  return const_cast<CheckpointState*>(this)->find(name);
}

namespace {

// The state a loaded checkpoint model holds; `own_file` is the checkpoint file's name when it
// was loaded from a file (its large tensors then view that file, and nothing else may).
Result<CheckpointState> state_from_model(const ir::Model& model, const std::string& what, const std::string& own_file) {
  CheckpointState state;
  std::vector<std::string> order;
  json::Value nominal_layout;
  if (Status st = fill_from_metadata(model, state, order, nominal_layout); !st.ok()) return damaged(what, st.message());
  for (const auto& [name, ref] : model.graph.external_data)
    if (ref.location != own_file) return damaged(what, "tensor '" + name + "' refers to external data");
  const auto& inits = model.graph.initializers;
  for (TrainingParameter& p : state.parameters) {
    if (state.nominal) {
      auto zeros = nominal_tensor(nominal_layout, p.name);
      if (!zeros.ok()) return damaged(what, zeros.status().message());
      p.data = std::move(*zeros);
    } else {
      auto it = inits.find(kParam + p.name);
      if (it == inits.end()) return damaged(what, "parameter '" + p.name + "' is listed but not stored");
      if (it->second.dtype() == DataType::kString) return damaged(what, "parameter '" + p.name + "' holds strings");
      p.data = it->second.clone();  // owned, never a view of the file: steps write into it
    }
    for (auto [prefix, into] : {std::pair{kExpAvg, &state.optimizer.exp_avg}, std::pair{kExpAvgSq, &state.optimizer.exp_avg_sq}}) {
      auto m = inits.find(prefix + p.name);
      if (m == inits.end()) continue;
      if (m->second.shape() != p.data.shape() || m->second.dtype() != p.data.dtype())
        return damaged(what, std::string(prefix) + p.name + " does not have its parameter's dtype and shape");
      (*into)[p.name] = m->second.clone();
    }
  }
  for (const auto& [name, tensor] : inits) {
    const bool known = (name.rfind(kParam, 0) == 0 && state.find(name.substr(6))) ||
                       (name.rfind(kExpAvg, 0) == 0 && state.find(name.substr(8))) ||
                       (name.rfind(kExpAvgSq, 0) == 0 && state.find(name.substr(11)));
    if (!known) return damaged(what, "it stores '" + name + "', which no listed parameter owns");
  }
  return state;
}

}  // namespace

Result<CheckpointState> parse_checkpoint(const void* data, size_t size, const std::string& what) {
  auto model = onnx_format::load_model_bytes(data, size, "");
  if (!model.ok()) {
    Status st = model.take_status();
    return std::move(st).with_context("while reading checkpoint '" + what + "'");
  }
  return state_from_model(*model, what, "");
}

Result<CheckpointState> load_checkpoint(const std::string& path) {
  // Mapped, not read: the loader views the large tensors in the file, so loading holds the
  // values once (the state's own copies) plus the file's pages while they are copied.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return not_found("checkpoint '", path, "': no such file");
  auto model = onnx_format::load_model_file(path);
  if (!model.ok()) {
    Status st = model.take_status();
    return std::move(st).with_context("while reading checkpoint '" + path + "'");
  }
  return state_from_model(*model, path, std::filesystem::path(path).filename().string());
}

Result<std::string> serialize_checkpoint(const CheckpointState& state, bool include_optimizer_state) {
  ir::Model model;
  model.ir_version = 8;
  model.opsets[""] = 17;
  model.producer_name = "onyx.training";
  model.graph.name = "onyx_checkpoint";
  std::string order = "[", requires_grad = "{", nominal = "{";
  for (const TrainingParameter& p : state.parameters) {
    if (!p.data.defined() || p.data.dtype() == DataType::kString)
      return invalid_argument("checkpoint parameter '", p.name, "' has no numeric value");
    const bool first = order.size() == 1;
    order += (first ? "" : ",") + json::quote(p.name);
    requires_grad += (first ? "" : ",") + json::quote(p.name) + ":" + (p.requires_grad ? "true" : "false");
    std::string dims;
    for (int64_t d : p.data.shape()) dims += (dims.empty() ? "" : ",") + std::to_string(d);
    nominal += (first ? "" : ",") + json::quote(p.name) + ":[" + json::quote(data_type_name(p.data.dtype())) + ",[" + dims + "]]";
    if (!state.nominal) model.graph.initializers[kParam + p.name] = p.data;
    if (include_optimizer_state) {
      if (auto m = state.optimizer.exp_avg.find(p.name); m != state.optimizer.exp_avg.end())
        model.graph.initializers[kExpAvg + p.name] = m->second;
      if (auto m = state.optimizer.exp_avg_sq.find(p.name); m != state.optimizer.exp_avg_sq.end())
        model.graph.initializers[kExpAvgSq + p.name] = m->second;
    }
  }
  std::string config = "{", properties = "{";
  for (const auto& [key, value] : state.optimizer.config) {
    if (!std::isfinite(value)) return invalid_argument("optimizer setting '", key, "' is not finite");
    config += (config.size() > 1 ? "," : "") + json::quote(key) + ":" + number_text(value);
  }
  for (const auto& [key, value] : state.properties) {
    std::string entry;
    if (auto* i = std::get_if<int64_t>(&value)) entry = "{\"int\":" + json::quote(std::to_string(*i)) + "}";
    if (auto* d = std::get_if<double>(&value)) entry = "{\"float\":" + json::quote(number_text(*d)) + "}";
    if (auto* s = std::get_if<std::string>(&value)) entry = "{\"str\":" + json::quote(*s) + "}";
    properties += (properties.size() > 1 ? "," : "") + json::quote(key) + ":" + entry;
  }
  model.metadata = {{"format", kFormat},
                    {"order", order + "]"},
                    {"requires_grad", requires_grad + "}"},
                    {"optimizer", state.optimizer.kind},
                    {"optimizer.config", config + "}"},
                    {"optimizer.step", std::to_string(include_optimizer_state ? state.optimizer.step : 0)},
                    {"properties", properties + "}"}};
  if (state.nominal) model.metadata["nominal"] = nominal + "}";
  return onnx_format::serialize_model(model);
}

Status write_file_atomically(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return runtime_error("cannot write '", tmp, "': ", std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return runtime_error("cannot write '", tmp, "': ", std::strerror(err));
    }
    done += size_t(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return runtime_error("cannot finish writing '", tmp, "': ", std::strerror(err));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return runtime_error("cannot replace '", path, "': ", std::strerror(err));
  }
  return Status::Ok();
}

Status save_checkpoint(const CheckpointState& state, const std::string& path, bool include_optimizer_state) {
  ONYX_ASSIGN_OR_RETURN(std::string bytes, serialize_checkpoint(state, include_optimizer_state));
  return write_file_atomically(path, bytes);
}

}  // namespace onyx::training
