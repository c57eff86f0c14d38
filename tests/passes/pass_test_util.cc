#include "pass_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "onnx/loader.h"
#include "session/graph_plan.h"

namespace onyx::testing {

PassModel::PassModel(int64_t opset) {
  model.set_ir_version(8);
  auto* op = model.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  graph = model.mutable_graph();
  graph->set_name("pass_test");
}

PassModel& PassModel::import(const std::string& domain, int64_t version) {
  auto* op = model.add_opset_import();
  op->set_domain(domain);
  op->set_version(version);
  return *this;
}

static void set_type(onnx::ValueInfoProto* vi, const std::string& name, int elem, const std::vector<int64_t>& dims,
                     bool with_shape) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  if (!with_shape) return;
  auto* shape = tt->mutable_shape();
  for (int64_t d : dims) {
    auto* dim = shape->add_dim();
    if (d >= 0) dim->set_dim_value(d);
    else dim->set_dim_param("N");
  }
}

PassModel& PassModel::input(const std::string& name, std::vector<int64_t> dims, int elem) {
  set_type(graph->add_input(), name, elem, dims, true);
  return *this;
}

PassModel& PassModel::output(const std::string& name, int elem, std::vector<int64_t> dims, bool with_shape) {
  set_type(graph->add_output(), name, elem, dims, with_shape);
  return *this;
}

onnx::NodeProto* PassModel::node(const std::string& op, std::vector<std::string> ins, std::vector<std::string> outs,
                                 const std::string& domain) {
  auto* n = graph->add_node();
  n->set_op_type(op);
  n->set_domain(domain);
  n->set_name(op + "_" + std::to_string(graph->node_size()));
  for (auto& i : ins) n->add_input(i);
  for (auto& o : outs) n->add_output(o);
  return n;
}

PassModel& PassModel::init(const std::string& name, std::vector<int64_t> dims, std::vector<float> values) {
  auto* t = graph->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  for (float v : values) t->add_float_data(v);
  return *this;
}

PassModel& PassModel::init_i64(const std::string& name, std::vector<int64_t> dims, std::vector<int64_t> values) {
  auto* t = graph->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t v : values) t->add_int64_data(v);
  return *this;
}

PassModel& PassModel::init_random(const std::string& name, std::vector<int64_t> dims, float scale, float offset) {
  std::mt19937 gen(uint32_t(std::hash<std::string>{}(name)));
  std::normal_distribution<float> dist(0.f, 1.f);
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = offset + scale * dist(gen);
  return init(name, dims, v);
}

std::string PassModel::scalar(const std::string& name, float value) {
  init(name, {}, {value});
  return name;
}

void attr_int(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void attr_float(onnx::NodeProto* n, const std::string& name, float v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

void attr_ints(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void attr_tensor(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> dims, std::vector<float> v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  for (float x : v) t->add_float_data(x);
}

ir::Model load(const PassModel& m) {
  const std::string bytes = m.bytes();
  auto model = onnx_format::load_model_bytes(bytes.data(), bytes.size(), "");
  EXPECT_TRUE(model.ok()) << model.status().to_string();
  return model.ok() ? std::move(model).value() : ir::Model{};
}

Result<optimizer::OptimizeReport> apply_passes(ir::Model& model, const std::vector<std::string>& names) {
  std::vector<std::shared_ptr<const optimizer::Pass>> passes;
  for (const auto& name : names) {
    std::shared_ptr<const optimizer::Pass> found;
    for (const auto& def : optimizer::PassRegistry::global().all())
      if (def.pass->name() == name) found = def.pass;
    if (!found) return not_found("no pass named '", name, "'");
    passes.push_back(found);
  }
  optimizer::PassManager manager({{optimizer::Phase::kSimplify, passes}});
  ops::GraphTypes types = ops::infer_graph_types(model.graph, model.opsets);
  return manager.run(model, types);
}

Result<optimizer::OptimizeReport> apply_level(ir::Model& model, int level, int log_level) {
  ops::GraphTypes types = ops::infer_graph_types(model.graph, model.opsets);
  return optimizer::PassManager::for_level(level).run(model, types, log_level);
}

std::map<std::string, int> histogram(const ir::Graph& graph) {
  std::map<std::string, int> h;
  for (const auto& n : graph.nodes) ++h[(n.domain.empty() ? "" : n.domain + ":") + n.op_type];
  return h;
}

std::vector<Value> random_inputs(const ir::Model& model, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> real(-3.0, 3.0);
  std::vector<Value> feeds;
  for (const auto& vi : model.graph.inputs) {
    if (model.graph.initializers.count(vi.name)) {
      feeds.emplace_back();
      continue;
    }
    Shape shape;
    for (const Dim& d : vi.type.shape.dims) shape.push_back(d.value ? *d.value : 2);
    Tensor t(vi.type.elem_type, shape);
    for (int64_t i = 0; i < t.numel(); ++i) {
      switch (t.dtype()) {
        case DataType::kFloat: t.data<float>()[i] = float(real(gen)); break;
        case DataType::kDouble: t.data<double>()[i] = real(gen); break;
        case DataType::kFloat16: t.data<Float16>()[i] = Float16(float(real(gen))); break;
        case DataType::kInt64: t.data<int64_t>()[i] = int64_t(gen() % 4); break;
        case DataType::kInt32: t.data<int32_t>()[i] = int32_t(gen() % 4); break;
        case DataType::kBool: t.data<bool>()[i] = (i % 2) == 0; break;
        default: ADD_FAILURE() << "random_inputs: no generator for " << data_type_name(t.dtype());
      }
    }
    feeds.emplace_back(std::move(t));
  }
  return feeds;
}

Result<std::vector<Value>> run_model(const ir::Model& model, const std::vector<Value>& inputs) {
  ONYX_ASSIGN_OR_RETURN(auto plan, GraphPlan::build(model.graph, model.opsets, nullptr));
  return plan->run(inputs, nullptr);
}

void expect_same_outputs(const std::vector<Value>& expected, const std::vector<Value>& actual, double rtol,
                         double atol) {
  ASSERT_EQ(expected.size(), actual.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    ASSERT_TRUE(expected[k].is_tensor() && actual[k].is_tensor()) << "output " << k;
    const Tensor& e = expected[k].tensor();
    const Tensor& a = actual[k].tensor();
    ASSERT_EQ(e.dtype(), a.dtype()) << "output " << k;
    ASSERT_EQ(e.shape(), a.shape()) << "output " << k;
    int bad = 0;
    for (int64_t i = 0; i < e.numel() && bad < 5; ++i) {
      const double x = e.get_double(i), y = a.get_double(i);
      const bool ok = is_float_type(e.dtype()) ? (std::isnan(x) ? std::isnan(y) : std::abs(x - y) <= atol + rtol * std::abs(x))
                                               : x == y;
      if (!ok) {
        ++bad;
        ADD_FAILURE() << "output " << k << " element " << i << ": expected " << x << ", got " << y;
      }
    }
  }
}

ir::Model check_rewrite(const PassModel& m, const std::vector<std::string>& passes, const std::map<std::string, int>& want,
                        double rtol, double atol, int level) {
  ir::Model before = load(m);
  ir::Model after = load(m);
  auto report = passes.empty() ? apply_level(after, level) : apply_passes(after, passes);
  EXPECT_TRUE(report.ok()) << report.status().to_string();
  if (report.ok()) {
    EXPECT_EQ(report->skipped, "");
  }
  std::map<std::string, int> got = histogram(after.graph);
  EXPECT_EQ(got, want);
  const std::vector<Value> feeds = random_inputs(before);
  auto expected = run_model(before, feeds);
  auto actual = run_model(after, feeds);
  EXPECT_TRUE(expected.ok()) << expected.status().to_string();
  EXPECT_TRUE(actual.ok()) << actual.status().to_string();
  if (expected.ok() && actual.ok()) expect_same_outputs(*expected, *actual, rtol, atol);
  return after;
}

}  // namespace onyx::testing
