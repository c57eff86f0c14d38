#include "feeds.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <filesystem>
#include <fstream>
#include <random>

#include "kernels/convert.h"
#include "kernels/element_copy.h"
#include "npy.h"
#include "onnx/loader.h"

namespace onyx::cli {
namespace fs = std::filesystem;
namespace {

// True when `name` can be used as a file name in a folder as it is.
bool plain_file_name(const std::string& name) {
  if (name.empty() || name == "." || name == "..") return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

// A random value for `vi`; `chosen` (when not null) says which sizes its non-fixed dims got.
Result<Value> random_input(const ir::ValueInfo& vi, const FeedArgs& args, const IntRange* range, std::mt19937& rng,
                           RandomShape* chosen) {
  if (vi.type.kind != ir::TypeInfo::Kind::kTensor)
    return not_implemented("--random-inputs cannot make a value for non-tensor input '", vi.name, "'");
  Shape shape;
  std::string sizes = vi.type.shape.has_rank ? "" : "unknown rank: a scalar";
  bool defaulted = false;
  for (size_t i = 0; i < vi.type.shape.dims.size(); ++i) {
    const Dim& d = vi.type.shape.dims[i];
    int64_t size = 1;
    if (d.value) {
      size = *d.value;
    } else if (auto it = args.random_dims.find(d.symbol); !d.symbol.empty() && it != args.random_dims.end()) {
      size = it->second;
    } else if (i == 0 && args.random_batch > 0) {
      size = args.random_batch;
    } else if (i == 1 && args.random_seq > 0) {
      size = args.random_seq;
    } else {
      defaulted = true;
    }
    shape.push_back(size);
    if (d.value) continue;
    if (!sizes.empty()) sizes.append(", ");
    if (d.symbol.empty()) sizes.append("dim ").append(std::to_string(i));
    else sizes.append(d.symbol);
    sizes.append("=").append(std::to_string(size));
  }
  if (chosen && !sizes.empty()) {
    std::string made = std::string(data_type_name(vi.type.elem_type)).append("[");
    for (size_t i = 0; i < shape.size(); ++i) made.append(i ? "," : "").append(std::to_string(shape[i]));
    *chosen = RandomShape{vi.name, made.append("]"), sizes, defaulted};
  }
  ONYX_ASSIGN_OR_RETURN(Tensor t, Tensor::create(vi.type.elem_type, shape));
  std::uniform_real_distribution<float> uni(0.f, 1.f);
  const int64_t low = range ? range->low : 0;
  const int64_t high = range ? std::max(range->high, low + 1) : std::max<int64_t>(1, args.random_int_high);
  std::uniform_int_distribution<int64_t> integer(low, high - 1);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const float v = uni(rng);
    switch (t.dtype()) {
      case DataType::kFloat: t.data<float>()[i] = v; break;
      case DataType::kDouble: t.data<double>()[i] = v; break;
      case DataType::kFloat16: t.data<Float16>()[i] = Float16(v); break;
      case DataType::kInt64: t.data<int64_t>()[i] = integer(rng); break;
      case DataType::kInt32: t.data<int32_t>()[i] = int32_t(std::clamp<int64_t>(integer(rng), INT32_MIN, INT32_MAX)); break;
      case DataType::kUInt8: t.data<uint8_t>()[i] = uint8_t(v * 255); break;
      case DataType::kInt8: t.data<int8_t>()[i] = int8_t(v * 255 - 128); break;
      case DataType::kBool: t.data<bool>()[i] = v > 0.5f; break;
      default: return not_implemented("--random-inputs does not fill ", data_type_name(t.dtype()), " inputs");
    }
  }
  return Value(std::move(t));
}

Result<Value> read_input(const std::string& path, const ir::TypeInfo& type) {
  if (fs::path(path).extension() == ".npy") {
    ONYX_ASSIGN_OR_RETURN(Tensor t, read_npy(path));
    return raw_bits_as_declared(Value(std::move(t)), type);
  }
  ONYX_ASSIGN_OR_RETURN(Value v, onnx_format::load_value_file(path, type));
  return raw_bits_as_declared(std::move(v), type);
}

}  // namespace

std::map<std::string, IntRange> random_int_ranges(const Session& session) {
  std::map<std::string, IntRange> ranges;
  const ir::Graph& graph = session.model().graph;
  for (const auto& vi : session.inputs()) {
    if (vi.type.elem_type != DataType::kInt64 && vi.type.elem_type != DataType::kInt32) continue;
    std::string lower = vi.name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (lower.find("mask") != std::string::npos) ranges[vi.name] = IntRange{1, 2};
  }
  for (const auto& node : graph.nodes) {
    if (node.op_type != "Gather" || !node.domain.empty() || node.inputs.size() < 2) continue;
    int64_t axis = 0;
    if (auto a = node.attributes.find("axis"); a != node.attributes.end()) axis = a->second.i;
    if (axis != 0) continue;
    auto table = graph.initializers.find(node.inputs[0]);
    if (table == graph.initializers.end() || table->second.rank() < 1 || table->second.dim(0) < 1) continue;
    const std::string& indices = node.inputs[1];
    bool is_input = false;
    for (const auto& vi : session.inputs()) is_input = is_input || vi.name == indices;
    if (!is_input) continue;
    const int64_t size = table->second.dim(0);
    auto it = ranges.find(indices);
    if (it == ranges.end()) ranges[indices] = IntRange{0, size};
    else it->second.high = std::min(it->second.high, size);
  }
  return ranges;
}

Result<std::vector<std::pair<std::string, Value>>> gather_feeds(const Session& session, const FeedArgs& args,
                                                                std::vector<RandomShape>* random_shapes) {
  std::vector<std::pair<std::string, Value>> feeds;
  std::vector<const ir::ValueInfo*> feedable;
  for (const auto& vi : session.inputs())
    if (!session.input_has_default(vi.name)) feedable.push_back(&vi);
  auto given = [&](const std::string& name) {
    for (const auto& f : feeds)
      if (f.first == name) return true;
    return false;
  };
  for (const auto& [name, path] : args.inputs) {
    const ir::ValueInfo* info = nullptr;
    for (const auto* vi : feedable)
      if (vi->name == name) info = vi;
    if (!info) return not_found("the model has no input named '", name, "'");
    ONYX_ASSIGN_OR_RETURN(Value v, read_input(path, info->type));
    feeds.emplace_back(name, std::move(v));
  }
  if (!args.inputs_dir.empty()) {
    if (!fs::is_directory(args.inputs_dir)) return not_found("no folder '", args.inputs_dir, "'");
    for (size_t k = 0; k < feedable.size(); ++k) {
      const ir::ValueInfo& vi = *feedable[k];
      if (given(vi.name)) continue;
      const fs::path npy = fs::path(args.inputs_dir) / (vi.name + ".npy");
      const fs::path pb = fs::path(args.inputs_dir) / ("input_" + std::to_string(k) + ".pb");
      if (plain_file_name(vi.name) && fs::exists(npy)) {
        ONYX_ASSIGN_OR_RETURN(Value v, read_input(npy.string(), vi.type));
        feeds.emplace_back(vi.name, std::move(v));
      } else if (fs::exists(pb)) {
        ONYX_ASSIGN_OR_RETURN(Value v, read_input(pb.string(), vi.type));
        feeds.emplace_back(vi.name, std::move(v));
      }
    }
  }
  if (args.random_inputs) {
    std::mt19937 rng(args.seed);
    const std::map<std::string, IntRange> ranges =
        args.int_ranges_from_graph ? random_int_ranges(session) : std::map<std::string, IntRange>{};
    for (const auto* vi : feedable) {
      if (given(vi->name)) continue;
      auto range = ranges.find(vi->name);
      RandomShape chosen;
      ONYX_ASSIGN_OR_RETURN(Value v, random_input(*vi, args, range == ranges.end() ? nullptr : &range->second, rng,
                                                  random_shapes ? &chosen : nullptr));
      feeds.emplace_back(vi->name, std::move(v));
      if (random_shapes && !chosen.input.empty()) random_shapes->push_back(std::move(chosen));
    }
  }
  return feeds;
}

void print_random_shapes(const std::vector<RandomShape>& shapes, const std::string& how, std::FILE* out) {
  bool defaulted = false;
  for (const RandomShape& s : shapes) {
    std::fprintf(out, "random input '%s': %s (%s)\n", s.input.c_str(), s.shape.c_str(), s.sizes.c_str());
    defaulted = defaulted || s.defaulted;
  }
  if (defaulted) std::fprintf(out, "random inputs: a symbolic dim not given is 1; choose with %s\n", how.c_str());
}

Status write_outputs(const Session& session, const std::vector<Value>& outputs, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return invalid_argument("cannot create '", dir, "': ", ec.message());
  for (size_t k = 0; k < outputs.size(); ++k) {
    const std::string& name = session.outputs()[k].name;
    const std::string base = (fs::path(dir) / ("output_" + std::to_string(k))).string();
    ONYX_ASSIGN_OR_RETURN(std::string bytes, onnx_format::serialize_value(outputs[k], name,
                                                                                session.outputs()[k].type));
    std::ofstream(base + ".pb", std::ios::binary) << bytes;
    if (!outputs[k].is_tensor() || outputs[k].tensor().dtype() == DataType::kString) continue;
    Tensor t = outputs[k].tensor();
    if (t.dtype() == DataType::kBFloat16) {  // numpy has no bfloat16: its bits, as ONNX's test data keeps them
      t = Tensor(DataType::kUInt16, t.shape(), t.buffer(), t.offset());
      std::fprintf(stderr, "note: output '%s' is bfloat16; output_%zu.npy holds its bits as uint16 (output_%zu.pb keeps the type)\n",
                   name.c_str(), k, k);
    }
    if (is_narrow_type(t.dtype()))
      std::fprintf(stderr, "note: output '%s' is %s; output_%zu.npy holds one code a byte as raw V1 (ml_dtypes' layout: "
                   "np.load(...).view(ml_dtypes.<type>))\n", name.c_str(), data_type_name(t.dtype()), k);
    Status npy = write_npy(t, base + ".npy");
    if (npy.code() == StatusCode::kNotImplemented) {
      std::fprintf(stderr, "note: output '%s' is %s, which .npy cannot hold: only output_%zu.pb is written\n", name.c_str(),
                   data_type_name(t.dtype()), k);
      continue;
    }
    ONYX_RETURN_IF_ERROR(npy);
    const bool like_numbered = name.rfind("output_", 0) == 0;  // would collide with output_K.npy
    if (plain_file_name(name) && !like_numbered)
      ONYX_RETURN_IF_ERROR(write_npy(t, (fs::path(dir) / (name + ".npy")).string()));
  }
  return Status::Ok();
}

Value raw_bits_as_declared(Value v, const ir::TypeInfo& declared) {
  if (!v.is_tensor() || declared.kind != ir::TypeInfo::Kind::kTensor) return v;
  const Tensor& t = v.tensor();
  const DataType want = declared.elem_type;
  if (t.dtype() == DataType::kUInt16 && want == DataType::kBFloat16)
    return Value(Tensor(DataType::kBFloat16, t.shape(), t.buffer(), t.offset()));
  if (t.dtype() == DataType::kUInt8 && is_narrow_type(want)) {  // one code a byte (ml_dtypes' layout)
    if (!is_packed_type(want)) return Value(Tensor(want, t.shape(), t.buffer(), t.offset()));
    Tensor packed(want, t.shape());
    pack_codes(t, packed);
    return Value(std::move(packed));
  }
  return v;
}

Result<std::vector<std::pair<std::string, Value>>> feeds_as_declared(
    const Session& session, const std::vector<std::pair<std::string, Value>>& feeds) {
  std::vector<std::pair<std::string, Value>> out = feeds;
  for (auto& [name, value] : out) {
    if (!value.is_tensor()) continue;
    for (const auto& vi : session.inputs()) {
      const DataType want = vi.type.elem_type;
      const Tensor& t = value.tensor();
      if (vi.name != name || want == t.dtype() || !is_float_type(want) || !is_float_type(t.dtype())) continue;
      Tensor converted(want, t.shape());
      ONYX_RETURN_IF_ERROR(convert_elements(t, converted));
      value = Value(std::move(converted));
      break;
    }
  }
  return out;
}

}  // namespace onyx::cli
