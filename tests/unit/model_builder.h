// Test helper: builds small ONNX models with the protobuf classes (tests only; the runtime
// sees protobuf only in src/onnx).
#pragma once
#include <onnx/onnx_pb.h>

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace onyx::testing {

struct ModelBuilder {
  onnx::ModelProto model;
  onnx::GraphProto* graph;

  explicit ModelBuilder(int64_t opset = 17, int64_t ir_version = 8) {
    model.set_ir_version(ir_version);
    auto* op = model.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    graph = model.mutable_graph();
    graph->set_name("test");
  }

  static void set_type(onnx::ValueInfoProto* vi, const std::string& name, int elem, std::vector<int64_t> dims) {
    vi->set_name(name);
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (int64_t d : dims) {
      auto* dim = shape->add_dim();
      if (d >= 0) dim->set_dim_value(d);
      else dim->set_dim_param("N");
    }
  }
  ModelBuilder& input(const std::string& name, std::vector<int64_t> dims, int elem = onnx::TensorProto::FLOAT) {
    set_type(graph->add_input(), name, elem, dims);
    return *this;
  }
  ModelBuilder& output(const std::string& name, std::vector<int64_t> dims, int elem = onnx::TensorProto::FLOAT) {
    set_type(graph->add_output(), name, elem, dims);
    return *this;
  }
  onnx::NodeProto* node(const std::string& op, std::vector<std::string> ins, std::vector<std::string> outs,
                        const std::string& name = "") {
    auto* n = graph->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto& i : ins) n->add_input(i);
    for (auto& o : outs) n->add_output(o);
    return n;
  }
  onnx::TensorProto* initializer(const std::string& name, std::vector<int64_t> dims, std::vector<float> values) {
    auto* t = graph->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    for (float v : values) t->add_float_data(v);
    return t;
  }
  // A float initializer whose data lies in an external file: `length` bytes at `offset` of
  // `location` (written as given, so tests can also pass bad values).
  onnx::TensorProto* external_initializer(const std::string& name, std::vector<int64_t> dims,
                                          const std::string& location, int64_t offset, int64_t length) {
    auto* t = graph->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [key, value] : {std::pair<const char*, std::string>{"location", location},
                                     {"offset", std::to_string(offset)},
                                     {"length", std::to_string(length)}}) {
      auto* e = t->add_external_data();
      e->set_key(key);
      e->set_value(value);
    }
    return t;
  }
  // The body graph of `loop` (attribute "body") with Loop's interface for one float [1]
  // carried value: inputs i (int64), c_in (bool), v_in; outputs c_out, v_out. The caller adds
  // the nodes that compute the outputs.
  static onnx::GraphProto* loop_body(onnx::NodeProto* loop) {
    auto* attr = loop->add_attribute();
    attr->set_name("body");
    attr->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* body = attr->mutable_g();
    body->set_name("body");
    set_type(body->add_input(), "i", onnx::TensorProto::INT64, {});
    set_type(body->add_input(), "c_in", onnx::TensorProto::BOOL, {});
    set_type(body->add_input(), "v_in", onnx::TensorProto::FLOAT, {1});
    set_type(body->add_output(), "c_out", onnx::TensorProto::BOOL, {});
    set_type(body->add_output(), "v_out", onnx::TensorProto::FLOAT, {1});
    return body;
  }

  std::string bytes() const { return model.SerializeAsString(); }
};

}  // namespace onyx::testing
