#include "onnx/writer.h"

#include <onnx/onnx_pb.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "onnx/tensor_proto.h"

namespace onyx::onnx_format {
namespace {

namespace fs = std::filesystem;

void type_to_proto(const ir::TypeInfo& t, onnx::TypeProto* p) {
  using K = ir::TypeInfo::Kind;
  switch (t.kind) {
    case K::kTensor: {
      auto* tt = p->mutable_tensor_type();
      if (t.elem_type != DataType::kUndefined) tt->set_elem_type(int(t.elem_type));
      if (!t.shape.has_rank) break;
      auto* shape = tt->mutable_shape();
      for (const Dim& d : t.shape.dims) {
        auto* dim = shape->add_dim();
        if (d.value) dim->set_dim_value(*d.value);
        else if (!d.symbol.empty()) dim->set_dim_param(d.symbol);
        if (!d.denotation.empty()) dim->set_denotation(d.denotation);
      }
      break;
    }
    case K::kSequence:
      if (t.inner) type_to_proto(*t.inner, p->mutable_sequence_type()->mutable_elem_type());
      else p->mutable_sequence_type();
      break;
    case K::kOptional:
      if (t.inner) type_to_proto(*t.inner, p->mutable_optional_type()->mutable_elem_type());
      else p->mutable_optional_type();
      break;
    case K::kMap: {
      auto* m = p->mutable_map_type();
      m->set_key_type(int(t.elem_type));
      if (t.inner) type_to_proto(*t.inner, m->mutable_value_type());
      break;
    }
    case K::kUnknown: break;
  }
}

void value_info_to_proto(const ir::ValueInfo& vi, onnx::ValueInfoProto* p) {
  p->set_name(vi.name);
  if (!vi.doc.empty()) p->set_doc_string(vi.doc);
  if (vi.type.kind != ir::TypeInfo::Kind::kUnknown) type_to_proto(vi.type, p->mutable_type());
}

// Appends large initializers to the external-data file; null when everything is embedded.
class ExternalWriter {
 public:
  ExternalWriter(std::ofstream& out, std::string location, size_t min_bytes)
      : out_(out), location_(std::move(location)), min_bytes_(min_bytes) {}

  bool takes(const Tensor& t) const { return t.dtype() != DataType::kString && t.nbytes() >= min_bytes_; }

  Status write(const Tensor& t, const std::string& name, onnx::TensorProto* p) {
    static const char kZeros[64] = {};
    const size_t pad = (64 - offset_ % 64) % 64;
    out_.write(kZeros, std::streamsize(pad));
    offset_ += pad;
    out_.write(static_cast<const char*>(t.raw_data()), std::streamsize(t.nbytes()));
    if (!out_) return runtime_error("cannot write initializer '", name, "' to external data file '", location_, "'");
    p->set_name(name);
    p->set_data_type(int(t.dtype()));
    for (int64_t d : t.shape()) p->add_dims(d);
    p->set_data_location(onnx::TensorProto::EXTERNAL);
    auto add = [&](const char* key, const std::string& value) {
      auto* e = p->add_external_data();
      e->set_key(key);
      e->set_value(value);
    };
    add("location", location_);
    add("offset", std::to_string(offset_));
    add("length", std::to_string(t.nbytes()));
    offset_ += t.nbytes();
    return Status::Ok();
  }

 private:
  std::ofstream& out_;
  std::string location_;
  size_t min_bytes_;
  size_t offset_ = 0;
};

Status tensor_out(const Tensor& t, const std::string& name, onnx::TensorProto* p, ExternalWriter* external) {
  if (t.nbytes() > 0 && !t.raw_data())
    return invalid_argument("initializer '", name, "' has no data (a kernel packed it): it cannot be saved");
  if (external && external->takes(t)) return external->write(t, name, p);
  tensor_to_proto(t, name, p);
  return Status::Ok();
}

Status graph_to_proto(const ir::Graph& g, onnx::GraphProto* p, ExternalWriter* external);

Status attribute_to_proto(const ir::Attribute& a, onnx::AttributeProto* p, ExternalWriter* external) {
  using T = ir::Attribute::Type;
  p->set_name(a.name);
  if (!a.ref_attr_name.empty()) {
    p->set_ref_attr_name(a.ref_attr_name);
    return Status::Ok();
  }
  switch (a.type) {
    case T::kFloat: p->set_type(onnx::AttributeProto::FLOAT); p->set_f(a.f); break;
    case T::kInt: p->set_type(onnx::AttributeProto::INT); p->set_i(a.i); break;
    case T::kString: p->set_type(onnx::AttributeProto::STRING); p->set_s(a.s); break;
    case T::kTensor:
      p->set_type(onnx::AttributeProto::TENSOR);
      return tensor_out(a.t, "", p->mutable_t(), nullptr);
    case T::kGraph:
      p->set_type(onnx::AttributeProto::GRAPH);
      if (!a.g) return invalid_argument("graph attribute '", a.name, "' is empty");
      return graph_to_proto(*a.g, p->mutable_g(), external);
    case T::kFloats:
      p->set_type(onnx::AttributeProto::FLOATS);
      for (float f : a.floats) p->add_floats(f);
      break;
    case T::kInts:
      p->set_type(onnx::AttributeProto::INTS);
      for (int64_t i : a.ints) p->add_ints(i);
      break;
    case T::kStrings:
      p->set_type(onnx::AttributeProto::STRINGS);
      for (const auto& s : a.strings) p->add_strings(s);
      break;
    case T::kTensors:
      p->set_type(onnx::AttributeProto::TENSORS);
      for (const Tensor& t : a.tensors) ONYX_RETURN_IF_ERROR(tensor_out(t, "", p->add_tensors(), nullptr));
      break;
    case T::kGraphs:
      p->set_type(onnx::AttributeProto::GRAPHS);
      for (const auto& g : a.graphs) {
        if (!g) return invalid_argument("graphs attribute '", a.name, "' holds an empty graph");
        ONYX_RETURN_IF_ERROR(graph_to_proto(*g, p->add_graphs(), external));
      }
      break;
    case T::kTypeProto:
      p->set_type(onnx::AttributeProto::TYPE_PROTO);
      type_to_proto(a.type_proto, p->mutable_tp());
      break;
    case T::kUndefined: return invalid_argument("attribute '", a.name, "' has no type");
  }
  return Status::Ok();
}

Status graph_to_proto(const ir::Graph& g, onnx::GraphProto* p, ExternalWriter* external) {
  p->set_name(g.name);
  if (!g.doc.empty()) p->set_doc_string(g.doc);
  for (const auto& vi : g.inputs) value_info_to_proto(vi, p->add_input());
  for (const auto& vi : g.outputs) value_info_to_proto(vi, p->add_output());
  for (const auto& vi : g.value_infos) value_info_to_proto(vi, p->add_value_info());
  for (const auto& [name, t] : g.initializers) {
    Status st = tensor_out(t, name, p->add_initializer(), external);
    if (!st.ok()) return std::move(st).with_context("while saving graph '" + g.name + "'");
  }
  for (const auto& n : g.nodes) {
    auto* np = p->add_node();
    np->set_name(n.name);
    np->set_op_type(n.op_type);
    if (!n.domain.empty()) np->set_domain(n.domain);
    for (const auto& i : n.inputs) np->add_input(i);
    for (const auto& o : n.outputs) np->add_output(o);
    for (const auto& [name, a] : n.attributes) {
      Status st = attribute_to_proto(a, np->add_attribute(), external);
      if (!st.ok()) return std::move(st).with_context("while saving node " + n.label());
    }
  }
  return Status::Ok();
}

Status model_to_proto(const ir::Model& m, onnx::ModelProto* p, ExternalWriter* external) {
  p->set_ir_version(m.ir_version);
  for (const auto& [domain, version] : m.opsets) {
    auto* op = p->add_opset_import();
    op->set_domain(domain);
    op->set_version(version);
  }
  p->set_producer_name(m.producer_name);
  p->set_producer_version(m.producer_version);
  p->set_domain(m.domain);
  p->set_doc_string(m.doc);
  p->set_model_version(m.model_version);
  for (const auto& [key, value] : m.metadata) {
    auto* kv = p->add_metadata_props();
    kv->set_key(key);
    kv->set_value(value);
  }
  return graph_to_proto(m.graph, p->mutable_graph(), external);
}

// A location the loader will accept: relative, no "..", not empty.
Status check_location(const std::string& location) {
  const fs::path path(location);
  if (location.empty() || path.is_absolute())
    return invalid_argument("external data file '", location, "' must be a path relative to the model's folder");
  for (const auto& part : path)
    if (part == "..") return invalid_argument("external data file '", location, "' must stay inside the model's folder");
  return Status::Ok();
}

}  // namespace

Result<std::string> serialize_model(const ir::Model& model) {
  onnx::ModelProto proto;
  ONYX_RETURN_IF_ERROR(model_to_proto(model, &proto, nullptr));
  if (proto.ByteSizeLong() > size_t(INT_MAX))
    return invalid_argument("the model is ", proto.ByteSizeLong(), " bytes, over protobuf's 2 GB limit: save it with external data");
  return proto.SerializeAsString();
}

Status save_model(const ir::Model& model, const std::string& path, const SaveOptions& options) {
  onnx::ModelProto proto;
  std::ofstream data_out;
  std::unique_ptr<ExternalWriter> external;
  if (!options.external_data_file.empty()) {
    ONYX_RETURN_IF_ERROR(check_location(options.external_data_file));
    const fs::path data_path = fs::path(path).parent_path() / options.external_data_file;
    if (fs::absolute(data_path) == fs::absolute(fs::path(path)))
      return invalid_argument("the external data file and the model are the same file '", path, "'");
    data_out.open(data_path, std::ios::binary | std::ios::trunc);
    if (!data_out) return runtime_error("cannot write '", data_path.string(), "': ", std::strerror(errno));
    external = std::make_unique<ExternalWriter>(data_out, options.external_data_file, options.external_min_bytes);
  }
  Status st = model_to_proto(model, &proto, external.get());
  if (!st.ok()) return std::move(st).with_context("while saving model '" + path + "'");
  if (data_out.is_open()) {
    data_out.close();
    if (!data_out) return runtime_error("cannot finish writing external data file '", options.external_data_file, "'");
  }
  if (proto.ByteSizeLong() > size_t(INT_MAX))
    return invalid_argument("the model is ", proto.ByteSizeLong(),
                            " bytes, over protobuf's 2 GB limit: save it with an external data file");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return runtime_error("cannot write '", path, "': ", std::strerror(errno));
  if (!proto.SerializeToOstream(&out)) return runtime_error("cannot write '", path, "'");
  out.close();
  if (!out) return runtime_error("cannot finish writing '", path, "'");
  return Status::Ok();
}

}  // namespace onyx::onnx_format
