#include "onnx/loader.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream.h>
#include <onnx/onnx_pb.h>  // defines ONNX_API, needed before onnx-data.pb.h
#include <onnx/onnx-data.pb.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "ir/inline_functions.h"
#include "onnx/mapped_file.h"
#include "onnx/raw_data_lift.h"
#include "onnx/tensor_proto.h"

namespace onyx::onnx_format {
namespace {

constexpr int kMaxGraphDepth = 64;
// raw_data of at least this many bytes is read from the mapped model file, not parsed.
constexpr size_t kMinLiftedBytes = 1024;

// Feeds a memory-mapped file to protobuf in chunks and hands the pages it has consumed back to
// the kernel (MADV_DONTNEED: clean, read-only file pages, read again from the file if ever
// touched), so that parsing holds the model's bytes once (in the parsed message), not twice.
class PageReleasingInput final : public google::protobuf::io::ZeroCopyInputStream {
 public:
  PageReleasingInput(const char* data, size_t size) : data_(data), size_(size) {}
  bool Next(const void** data, int* size) override {
    if (pos_ >= size_) return false;
    // Keep the last chunk handed out (BackUp may return into it); drop whole pages before it.
    release_before(pos_ >= kChunk ? pos_ - kChunk : 0);
    const size_t n = std::min(kChunk, size_ - pos_);
    *data = data_ + pos_;
    *size = int(n);
    pos_ += n;
    return true;
  }
  void BackUp(int count) override { pos_ -= size_t(count); }
  bool Skip(int count) override {
    if (size_t(count) > size_ - pos_) {
      pos_ = size_;
      return false;
    }
    pos_ += size_t(count);
    return true;
  }
  int64_t ByteCount() const override { return int64_t(pos_); }

 private:
  static constexpr size_t kChunk = size_t(8) << 20;
  void release_before(size_t end) {
    const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
    const uintptr_t from = (uintptr_t(data_) + released_ + page - 1) / page * page;
    const uintptr_t to = (uintptr_t(data_) + end) / page * page;
    if (to > from) madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
    if (end > released_) released_ = end;
  }
  const char* data_;
  size_t size_;
  size_t pos_ = 0;
  size_t released_ = 0;
};

Status parse_message(const void* data, size_t size, google::protobuf::MessageLite* msg, const char* what) {
  if (size == 0) return invalid_model("empty ", what, ": 0 bytes");
  if (size > size_t(INT_MAX)) return invalid_model(what, " of ", size, " bytes exceeds protobuf's 2 GB limit; use external data");
  google::protobuf::io::CodedInputStream stream(static_cast<const uint8_t*>(data), int(size));
  stream.SetTotalBytesLimit(INT_MAX);
  if (!msg->ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage())
    return invalid_model("cannot parse ", what, " (", size, " bytes): not a valid protobuf, or truncated");
  return Status::Ok();
}

ir::TypeInfo type_from_proto(const onnx::TypeProto& tp, int depth = 0) {
  ir::TypeInfo t;
  if (depth > kMaxGraphDepth) return t;
  if (tp.has_tensor_type()) {
    t.kind = ir::TypeInfo::Kind::kTensor;
    const auto& tt = tp.tensor_type();
    t.elem_type = is_valid_data_type(tt.elem_type()) ? DataType(tt.elem_type()) : DataType::kUndefined;
    if (tt.has_shape()) {
      t.shape.has_rank = true;
      for (const auto& d : tt.shape().dim()) {
        Dim dim;
        if (d.has_dim_value()) dim.value = d.dim_value();
        else if (d.has_dim_param()) dim.symbol = d.dim_param();
        dim.denotation = d.denotation();
        t.shape.dims.push_back(dim);
      }
    }
  } else if (tp.has_sequence_type()) {
    t.kind = ir::TypeInfo::Kind::kSequence;
    t.inner = std::make_shared<ir::TypeInfo>(type_from_proto(tp.sequence_type().elem_type(), depth + 1));
  } else if (tp.has_optional_type()) {
    t.kind = ir::TypeInfo::Kind::kOptional;
    t.inner = std::make_shared<ir::TypeInfo>(type_from_proto(tp.optional_type().elem_type(), depth + 1));
  } else if (tp.has_map_type()) {
    t.kind = ir::TypeInfo::Kind::kMap;
    const int key = tp.map_type().key_type();
    t.elem_type = is_valid_data_type(key) ? DataType(key) : DataType::kUndefined;
    t.inner = std::make_shared<ir::TypeInfo>(type_from_proto(tp.map_type().value_type(), depth + 1));
  } else if (tp.has_sparse_tensor_type()) {
    t.kind = ir::TypeInfo::Kind::kTensor;
    t.elem_type = is_valid_data_type(tp.sparse_tensor_type().elem_type()) ? DataType(tp.sparse_tensor_type().elem_type())
                                                                          : DataType::kUndefined;
  }
  return t;
}

ir::ValueInfo value_info_from_proto(const onnx::ValueInfoProto& vp) {
  return ir::ValueInfo{vp.name(), type_from_proto(vp.type()), vp.doc_string()};
}

// The raw_data of the main graph's initializers that load_model_file lifted out of the model
// file before parsing (raw_data_lift.h).
struct LiftedInitializers {
  std::shared_ptr<MappedFile> file;
  std::string location;  // the model file's name
  std::vector<LiftedRawData> spans;
};

class GraphConverter {
 public:
  GraphConverter(ExternalDataResolver* external, const std::set<std::string>* supplied)
      : external_(external), supplied_(supplied) {}

  // `lifted`: only for the main graph, whose skeleton the loader parsed.
  Result<std::shared_ptr<ir::Graph>> convert(onnx::GraphProto& gp, int depth, const LiftedInitializers* lifted = nullptr) {
    if (depth > kMaxGraphDepth) return invalid_model("subgraphs nested deeper than ", kMaxGraphDepth, " levels");
    auto g = std::make_shared<ir::Graph>();
    g->name = gp.name();
    g->doc = gp.doc_string();
    size_t next_lifted = 0;
    for (int i = 0; i < gp.initializer_size(); ++i) {
      onnx::TensorProto& tp = *gp.mutable_initializer(i);
      const std::string name = tp.name();
      if (name.empty()) return invalid_model("graph '", gp.name(), "' has an initializer without a name");
      ir::ExternalDataRef ref;
      LiftedBytes bytes;
      const bool is_lifted = lifted && next_lifted < lifted->spans.size() && lifted->spans[next_lifted].initializer_index == i;
      if (is_lifted) {
        const LiftedRawData& span = lifted->spans[next_lifted++];
        bytes = LiftedBytes{lifted->file->data() + span.offset, span.size, lifted->file, lifted->location, span.offset};
      }
      const bool supplied = depth == 0 && supplied_ && supplied_->count(name) &&
                            tp.data_location() == onnx::TensorProto::EXTERNAL;
      auto t = supplied ? tensor_placeholder_from_proto(tp)
                        : tensor_from_proto(tp, external_, &ref, is_lifted ? &bytes : nullptr);
      if (!t.ok()) return t.take_status().with_context("while loading initializer '" + name + "'");
      if (!g->initializers.emplace(name, std::move(t).value()).second)
        return invalid_model("graph '", gp.name(), "' defines initializer '", name, "' twice");
      if (!ref.location.empty()) g->external_data[name] = ref;
    }
    for (auto& sp : *gp.mutable_sparse_initializer()) {
      const std::string name = sp.values().name();
      auto t = tensor_from_sparse_proto(sp, external_);
      if (!t.ok()) return t.take_status().with_context("while loading sparse initializer '" + name + "'");
      if (!g->initializers.emplace(name, std::move(t).value()).second)
        return invalid_model("graph '", gp.name(), "' defines initializer '", name, "' twice");
    }
    for (const auto& vi : gp.input()) g->inputs.push_back(value_info_from_proto(vi));
    for (const auto& vi : gp.output()) g->outputs.push_back(value_info_from_proto(vi));
    for (const auto& vi : gp.value_info()) g->value_infos.push_back(value_info_from_proto(vi));
    ONYX_RETURN_IF_ERROR(convert_nodes(*gp.mutable_node(), depth, g->nodes));
    return g;
  }

  Result<ir::Function> convert_function(onnx::FunctionProto& fp) {
    ir::Function f;
    f.name = fp.name();
    f.domain = fp.domain() == "ai.onnx" ? "" : fp.domain();
    f.inputs.assign(fp.input().begin(), fp.input().end());
    f.outputs.assign(fp.output().begin(), fp.output().end());
    f.attribute_names.assign(fp.attribute().begin(), fp.attribute().end());
    // Attribute defaults (FunctionProto.attribute_proto, ONNX 1.13+) are not in Debian's
    // onnx_proto 1.12; unbound attributes are omitted, as for a default-less attribute.
    in_function_ = true;
    Status st = convert_nodes(*fp.mutable_node(), 0, f.nodes);
    in_function_ = false;
    if (!st.ok()) return std::move(st).with_context("while loading function '" + f.name + "'");
    return f;
  }

 private:
  Status convert_nodes(google::protobuf::RepeatedPtrField<onnx::NodeProto>& protos, int depth, std::vector<ir::Node>& out) {
    out.reserve(size_t(protos.size()));
    for (auto& np : protos) {
      ir::Node node;
      node.name = np.name();
      node.op_type = np.op_type();
      node.domain = np.domain() == "ai.onnx" ? "" : np.domain();
      node.inputs.assign(np.input().begin(), np.input().end());
      node.outputs.assign(np.output().begin(), np.output().end());
      if (node.op_type.empty()) return invalid_model("a node without op_type (named '", node.name, "')");
      for (auto& ap : *np.mutable_attribute()) {
        auto a = convert_attribute(ap, depth);
        if (!a.ok()) return a.take_status().with_context("while loading node " + node.label());
        node.attributes[ap.name()] = std::move(a).value();
      }
      out.push_back(std::move(node));
    }
    return Status::Ok();
  }

  Result<ir::Attribute> convert_attribute(onnx::AttributeProto& ap, int depth) {
    using T = ir::Attribute::Type;
    ir::Attribute a;
    a.name = ap.name();
    if (!ap.ref_attr_name().empty()) {
      if (!in_function_)
        return invalid_model("attribute '", ap.name(), "' refers to '", ap.ref_attr_name(), "' outside a function");
      a.ref_attr_name = ap.ref_attr_name();
      return a;
    }
    switch (ap.type()) {
      case onnx::AttributeProto::FLOAT: a.type = T::kFloat; a.f = ap.f(); break;
      case onnx::AttributeProto::INT: a.type = T::kInt; a.i = ap.i(); break;
      case onnx::AttributeProto::STRING: a.type = T::kString; a.s = ap.s(); break;
      case onnx::AttributeProto::TENSOR: {
        a.type = T::kTensor;
        ONYX_ASSIGN_OR_RETURN(a.t, tensor_from_proto(*ap.mutable_t(), external_));
        break;
      }
      case onnx::AttributeProto::SPARSE_TENSOR: {
        a.type = T::kTensor;
        ONYX_ASSIGN_OR_RETURN(a.t, tensor_from_sparse_proto(*ap.mutable_sparse_tensor(), external_));
        break;
      }
      case onnx::AttributeProto::GRAPH: {
        a.type = T::kGraph;
        ONYX_ASSIGN_OR_RETURN(a.g, convert(*ap.mutable_g(), depth + 1));
        break;
      }
      case onnx::AttributeProto::FLOATS: a.type = T::kFloats; a.floats.assign(ap.floats().begin(), ap.floats().end()); break;
      case onnx::AttributeProto::INTS: a.type = T::kInts; a.ints.assign(ap.ints().begin(), ap.ints().end()); break;
      case onnx::AttributeProto::STRINGS: a.type = T::kStrings; a.strings.assign(ap.strings().begin(), ap.strings().end()); break;
      case onnx::AttributeProto::TENSORS:
        a.type = T::kTensors;
        for (auto& tp : *ap.mutable_tensors()) {
          ONYX_ASSIGN_OR_RETURN(Tensor t, tensor_from_proto(tp, external_));
          a.tensors.push_back(std::move(t));
        }
        break;
      case onnx::AttributeProto::GRAPHS:
        a.type = T::kGraphs;
        for (auto& gp : *ap.mutable_graphs()) {
          ONYX_ASSIGN_OR_RETURN(auto g, convert(gp, depth + 1));
          a.graphs.push_back(std::move(g));
        }
        break;
      case onnx::AttributeProto::TYPE_PROTO: a.type = T::kTypeProto; a.type_proto = type_from_proto(ap.tp()); break;
      default:
        // Old files (IR < 3) may leave `type` unset; infer it from the field that is set.
        if (ap.has_f()) { a.type = T::kFloat; a.f = ap.f(); }
        else if (ap.has_i()) { a.type = T::kInt; a.i = ap.i(); }
        else if (ap.has_s()) { a.type = T::kString; a.s = ap.s(); }
        else if (ap.ints_size()) { a.type = T::kInts; a.ints.assign(ap.ints().begin(), ap.ints().end()); }
        else if (ap.floats_size()) { a.type = T::kFloats; a.floats.assign(ap.floats().begin(), ap.floats().end()); }
        else if (ap.strings_size()) { a.type = T::kStrings; a.strings.assign(ap.strings().begin(), ap.strings().end()); }
        else return invalid_model("attribute '", ap.name(), "' has unknown type ", int(ap.type()));
    }
    return a;
  }

  ExternalDataResolver* external_;
  const std::set<std::string>* supplied_;
  bool in_function_ = false;
};

constexpr int64_t kMaxIrVersion = 13;

Result<ir::Model> convert_model(onnx::ModelProto& mp, const std::string& base_dir, const LoadOptions& options,
                                const LiftedInitializers* lifted = nullptr) {
  ir::Model m;
  m.ir_version = mp.ir_version();
  // IR 11 to 13 (ONNX 1.18 and later) add element types and fields; onyx refuses what it
  // lacks of those by name where a model uses them, so such models load like IR 10 ones.
  if (m.ir_version < 1 || m.ir_version > kMaxIrVersion)
    return invalid_model("unsupported IR version ", m.ir_version, " (onyx reads IR 1 to ", kMaxIrVersion, ")");
  for (const auto& op : mp.opset_import()) {
    const std::string d = op.domain() == "ai.onnx" ? "" : op.domain();
    if (op.version() < 1) return invalid_model("opset import for domain '", d, "' has version ", op.version());
    m.opsets[d] = op.version();
  }
  if (mp.opset_import_size() == 0) m.opsets[""] = 1;  // IR 1-2 files predate opset_import
  m.producer_name = mp.producer_name();
  m.producer_version = mp.producer_version();
  m.domain = mp.domain();
  m.doc = mp.doc_string();
  m.model_version = mp.model_version();
  for (const auto& kv : mp.metadata_props()) m.metadata[kv.key()] = kv.value();
  if (!mp.has_graph()) return invalid_model("the model has no graph");
  ExternalDataResolver external(base_dir, options.files_in_memory);
  GraphConverter converter(&external, &options.supplied_initializers);
  ONYX_ASSIGN_OR_RETURN(auto graph, converter.convert(*mp.mutable_graph(), 0, lifted));
  m.graph = std::move(*graph);
  std::vector<ir::Function> functions;
  for (auto& fp : *mp.mutable_functions()) {
    ONYX_ASSIGN_OR_RETURN(ir::Function f, converter.convert_function(fp));
    functions.push_back(std::move(f));
  }
  ONYX_RETURN_IF_ERROR(ir::inline_functions(m.graph, functions));
  return m;
}

}  // namespace

Result<ir::Model> load_model_bytes(const void* data, size_t size, const std::string& base_dir,
                                   const LoadOptions& options) {
  onnx::ModelProto mp;
  ONYX_RETURN_IF_ERROR(parse_message(data, size, &mp, "model"));
  return convert_model(mp, base_dir, options);
}

Result<ir::Model> load_model_file(const std::string& path, const LoadOptions& options) {
  auto file = MappedFile::open(path);
  if (!file.ok()) return file.take_status().with_context("while loading model '" + path + "'");
  const std::string dir = std::filesystem::path(path).parent_path().string();
  auto model = [&]() -> Result<ir::Model> {
    const size_t size = (*file)->size();
    if (size == 0) return invalid_model("empty model: 0 bytes");
    if (size > size_t(INT_MAX)) return invalid_model("model of ", size, " bytes exceeds protobuf's 2 GB limit; use external data");
    onnx::ModelProto mp;
    // Large initializers: parse a skeleton without their bytes, which are then read in place.
    // A skeleton that does not parse falls through to the whole file, for protobuf's error.
    if (auto skeleton = lift_raw_data((*file)->data(), size, kMinLiftedBytes)) {
      if (parse_message(skeleton->bytes.data(), skeleton->bytes.size(), &mp, "model").ok()) {
        skeleton->bytes = std::string();
        LiftedInitializers lifted{*file, std::filesystem::path(path).filename().string(), std::move(skeleton->lifted)};
        return convert_model(mp, dir.empty() ? "." : dir, options, &lifted);
      }
      mp.Clear();
    }
    PageReleasingInput input((*file)->data(), size);
    google::protobuf::io::CodedInputStream stream(&input);
    stream.SetTotalBytesLimit(INT_MAX);
    if (!mp.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage())
      return invalid_model("cannot parse model (", size, " bytes): not a valid protobuf, or truncated");
    return convert_model(mp, dir.empty() ? "." : dir, options);
  }();
  if (!model.ok()) return model.take_status().with_context("while loading model '" + path + "'");
  return model;
}

namespace {

Result<Value> value_from_sequence(onnx::SequenceProto& sp) {
  if (sp.elem_type() != onnx::SequenceProto::TENSOR && sp.elem_type() != onnx::SequenceProto::UNDEFINED)
    return not_implemented("sequences of non-tensors are not supported");
  std::vector<Tensor> items;
  DataType elem = DataType::kUndefined;
  for (auto& tp : *sp.mutable_tensor_values()) {
    ONYX_ASSIGN_OR_RETURN(Tensor t, tensor_from_proto(tp, nullptr));
    elem = t.dtype();
    items.push_back(std::move(t));
  }
  return Value::sequence(std::move(items), elem);
}

// A MapProto as a map Value: int64 or string keys; its values a sequence of scalar (or
// one-element) tensors of one element type, as many as the keys.
Result<Value> value_from_map(onnx::MapProto& mp, DataType declared_value_type) {
  const int64_t n = mp.key_type() == onnx::TensorProto::STRING ? mp.string_keys_size() : mp.keys_size();
  Tensor keys;
  if (mp.key_type() == onnx::TensorProto::STRING) {
    ONYX_ASSIGN_OR_RETURN(keys, Tensor::create(DataType::kString, {n}));
    for (int64_t i = 0; i < n; ++i) keys.data<std::string>()[i] = mp.string_keys(int(i));
  } else if (mp.key_type() == onnx::TensorProto::INT64) {
    ONYX_ASSIGN_OR_RETURN(keys, Tensor::create(DataType::kInt64, {n}));
    for (int64_t i = 0; i < n; ++i) keys.data<int64_t>()[i] = mp.keys(int(i));
  } else {
    return not_implemented("maps with key type ", mp.key_type(), " (only int64 and string keys are read)");
  }
  auto& vs = *mp.mutable_values();
  if (vs.elem_type() != onnx::SequenceProto::TENSOR && vs.elem_type() != onnx::SequenceProto::UNDEFINED)
    return not_implemented("maps whose values are not tensors");
  if (vs.tensor_values_size() != n)
    return invalid_argument("a map with ", n, " keys has ", vs.tensor_values_size(), " values");
  std::vector<Tensor> items;
  DataType value_type = DataType::kUndefined;
  for (auto& tp : *vs.mutable_tensor_values()) {
    ONYX_ASSIGN_OR_RETURN(Tensor t, tensor_from_proto(tp, nullptr));
    if (t.numel() != 1) return invalid_argument("a map value must be one element, got ", t.describe());
    if (value_type != DataType::kUndefined && t.dtype() != value_type)
      return invalid_argument("a map's values differ in type: ", data_type_name(value_type), " and ", t.describe());
    value_type = t.dtype();
    items.push_back(std::move(t));
  }
  if (value_type == DataType::kUndefined)  // an empty map: its declared value type
    value_type = declared_value_type == DataType::kUndefined ? DataType::kFloat : declared_value_type;
  ONYX_ASSIGN_OR_RETURN(Tensor values, Tensor::create(value_type, {n}));
  for (int64_t i = 0; i < n; ++i) {
    const Tensor& t = items[size_t(i)];
    if (value_type == DataType::kString) values.data<std::string>()[i] = t.data<std::string>()[0];
    else std::memcpy(static_cast<char*>(values.raw_data()) + size_t(i) * t.itemsize(), t.raw_data(), t.itemsize());
  }
  return Value::map(std::move(keys), std::move(values));
}

void map_to_proto(const Value& map, const std::string& name, onnx::MapProto* mp) {
  mp->set_name(name);
  const Tensor& keys = map.map_keys();
  const Tensor& values = map.map_values();
  mp->set_key_type(int(keys.dtype()));
  auto* vs = mp->mutable_values();
  vs->set_elem_type(onnx::SequenceProto::TENSOR);
  for (int64_t i = 0; i < keys.numel(); ++i) {
    if (keys.dtype() == DataType::kString) mp->add_string_keys(keys.data<std::string>()[i]);
    else mp->add_keys(keys.get_int64(i));
    Tensor one(values.dtype(), {});
    if (values.dtype() == DataType::kString) one.data<std::string>()[0] = values.data<std::string>()[i];
    else std::memcpy(one.raw_data(), static_cast<const char*>(values.raw_data()) + size_t(i) * values.itemsize(), values.itemsize());
    tensor_to_proto(one, "", vs->add_tensor_values());
  }
}

}  // namespace

Result<Value> load_value_bytes(const void* data, size_t size, const ir::TypeInfo& expected, const std::string& what) {
  using K = ir::TypeInfo::Kind;
  if (expected.kind == K::kMap) {
    onnx::MapProto mp;
    ONYX_RETURN_IF_ERROR(parse_message(data, size, &mp, "MapProto"));
    return value_from_map(mp, expected.inner ? expected.inner->elem_type : DataType::kUndefined);
  }
  if (expected.kind == K::kSequence && expected.inner && expected.inner->kind == K::kMap) {
    onnx::SequenceProto sp;
    ONYX_RETURN_IF_ERROR(parse_message(data, size, &sp, "SequenceProto"));
    if (sp.elem_type() != onnx::SequenceProto::MAP && sp.elem_type() != onnx::SequenceProto::UNDEFINED)
      return invalid_argument("'", what, "' holds a sequence of ", sp.elem_type(), "-kind items where maps were declared");
    std::vector<Value> maps;
    for (auto& mp : *sp.mutable_map_values()) {
      ONYX_ASSIGN_OR_RETURN(Value m, value_from_map(mp, expected.inner->inner ? expected.inner->inner->elem_type
                                                                             : DataType::kUndefined));
      maps.push_back(std::move(m));
    }
    const DataType key = maps.empty() ? expected.inner->elem_type : maps[0].map_keys().dtype();
    const DataType value = maps.empty() ? (expected.inner->inner ? expected.inner->inner->elem_type : DataType::kUndefined)
                                        : maps[0].map_values().dtype();
    return Value::map_sequence(std::move(maps), key, value);
  }
  if (expected.kind == K::kSequence) {
    onnx::SequenceProto sp;
    ONYX_RETURN_IF_ERROR(parse_message(data, size, &sp, "SequenceProto"));
    auto v = value_from_sequence(sp);
    if (v.ok() && v->sequence_elem_type() == DataType::kUndefined && expected.inner)
      return Value::sequence({}, expected.inner->elem_type);
    return v;
  }
  if (expected.kind == K::kOptional) {
    onnx::OptionalProto op;
    ONYX_RETURN_IF_ERROR(parse_message(data, size, &op, "OptionalProto"));
    if (op.has_tensor_value()) {
      ONYX_ASSIGN_OR_RETURN(Tensor t, tensor_from_proto(*op.mutable_tensor_value(), nullptr));
      return Value(std::move(t));
    }
    if (op.has_sequence_value()) return value_from_sequence(*op.mutable_sequence_value());
    return Value();
  }
  onnx::TensorProto tp;
  if (size == 0) {  // an empty message is a valid TensorProto with no data
    return invalid_model("empty tensor file '", what, "'");
  }
  ONYX_RETURN_IF_ERROR(parse_message(data, size, &tp, "TensorProto"));
  ONYX_ASSIGN_OR_RETURN(Tensor t, tensor_from_proto(tp, nullptr));
  return Value(std::move(t));
}

Result<Value> load_value_file(const std::string& path, const ir::TypeInfo& expected) {
  ONYX_ASSIGN_OR_RETURN(auto file, MappedFile::open(path));
  return load_value_bytes(file->data(), file->size(), expected, path);
}

Result<std::string> serialize_value(const Value& value, const std::string& name, const ir::TypeInfo& declared) {
  if (declared.kind != ir::TypeInfo::Kind::kOptional) return serialize_value(value, name);
  // An optional: an OptionalProto holding the tensor or sequence (or nothing, for none).
  onnx::OptionalProto op;
  op.set_name(name);
  if (value.is_tensor()) {
    op.set_elem_type(onnx::OptionalProto::TENSOR);
    tensor_to_proto(value.tensor(), "", op.mutable_tensor_value());
  } else if (value.is_sequence()) {
    op.set_elem_type(onnx::OptionalProto::SEQUENCE);
    onnx::SequenceProto* sp = op.mutable_sequence_value();
    sp->set_elem_type(onnx::SequenceProto::TENSOR);
    for (const Tensor& t : value.sequence_items()) tensor_to_proto(t, "", sp->add_tensor_values());
  } else if (declared.inner) {
    op.set_elem_type(declared.inner->kind == ir::TypeInfo::Kind::kSequence ? onnx::OptionalProto::SEQUENCE
                                                                          : onnx::OptionalProto::TENSOR);
  }
  std::string out;
  op.SerializeToString(&out);
  return out;
}

Result<std::string> serialize_value(const Value& value, const std::string& name) {
  std::string out;
  if (value.is_tensor()) {
    onnx::TensorProto tp;
    tensor_to_proto(value.tensor(), name, &tp);
    tp.SerializeToString(&out);
  } else if (value.is_sequence()) {
    onnx::SequenceProto sp;
    sp.set_name(name);
    sp.set_elem_type(onnx::SequenceProto::TENSOR);
    for (const Tensor& t : value.sequence_items()) tensor_to_proto(t, "", sp.add_tensor_values());
    sp.SerializeToString(&out);
  } else if (value.is_map()) {
    onnx::MapProto mp;
    map_to_proto(value, name, &mp);
    mp.SerializeToString(&out);
  } else if (value.is_map_sequence()) {
    onnx::SequenceProto sp;
    sp.set_name(name);
    sp.set_elem_type(onnx::SequenceProto::MAP);
    for (const Value& m : value.map_sequence_items()) map_to_proto(m, "", sp.add_map_values());
    sp.SerializeToString(&out);
  } else {
    onnx::OptionalProto op;
    op.set_name(name);
    op.SerializeToString(&out);
  }
  return out;
}

}  // namespace onyx::onnx_format
