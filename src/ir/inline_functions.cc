#include "ir/inline_functions.h"

#include <map>
#include <string>

namespace onyx::ir {
namespace {

constexpr int kMaxInlineDepth = 32;

class Inliner {
 public:
  explicit Inliner(const std::vector<Function>& functions) : functions_(functions) {}

  Status run(Graph& graph, int depth) {
    if (depth > kMaxInlineDepth) return invalid_model("functions nested deeper than ", kMaxInlineDepth, " levels (recursion?)");
    std::vector<Node> out;
    out.reserve(graph.nodes.size());
    for (Node& node : graph.nodes) {
      for (auto& kv : node.attributes) {
        if (kv.second.g) ONYX_RETURN_IF_ERROR(run(*kv.second.g, depth));
        for (auto& g : kv.second.graphs) ONYX_RETURN_IF_ERROR(run(*g, depth));
      }
      const Function* fn = find(node.domain, node.op_type);
      if (!fn) {
        out.push_back(std::move(node));
        continue;
      }
      Graph body;
      ONYX_RETURN_IF_ERROR(expand(*fn, node, body.nodes));
      ONYX_RETURN_IF_ERROR(run(body, depth + 1));
      for (Node& n : body.nodes) out.push_back(std::move(n));
    }
    graph.nodes = std::move(out);
    return Status::Ok();
  }

 private:
  const Function* find(const std::string& domain, const std::string& name) const {
    for (const Function& f : functions_)
      if (f.name == name && f.domain == domain) return &f;
    return nullptr;
  }

  // Writes the body of `fn` called by `call` into `out`.
  Status expand(const Function& fn, const Node& call, std::vector<Node>& out) {
    if (call.inputs.size() > fn.inputs.size() || call.outputs.size() > fn.outputs.size())
      return invalid_model("node ", call.label(), " passes more inputs or outputs than function '", fn.name, "' declares");
    const std::string prefix = "__" + fn.name + "_" + std::to_string(counter_++) + "__";
    std::map<std::string, std::string> rename;
    for (size_t i = 0; i < fn.inputs.size(); ++i) rename[fn.inputs[i]] = i < call.inputs.size() ? call.inputs[i] : "";
    for (size_t i = 0; i < fn.outputs.size(); ++i) rename[fn.outputs[i]] = i < call.outputs.size() ? call.outputs[i] : prefix + fn.outputs[i];
    auto map_name = [&](const std::string& name) -> std::string {
      if (name.empty()) return name;
      auto it = rename.find(name);
      if (it != rename.end()) return it->second;
      return rename[name] = prefix + name;
    };
    for (const Node& body_node : fn.nodes) {
      Node n = body_node;
      n.name = prefix + body_node.name;
      for (auto& i : n.inputs) i = map_name(i);
      for (auto& o : n.outputs) o = map_name(o);
      std::map<std::string, Attribute> attrs;
      for (auto& [name, attr] : n.attributes) {
        if (attr.ref_attr_name.empty()) {
          if (attr.g) rename_free_names(*attr.g, rename);
          for (auto& g : attr.graphs) rename_free_names(*g, rename);
          attrs[name] = attr;
          continue;
        }
        const Attribute* bound = call.attribute(attr.ref_attr_name);
        if (!bound) {
          auto d = fn.attribute_defaults.find(attr.ref_attr_name);
          if (d == fn.attribute_defaults.end()) continue;  // unbound optional attribute: omitted
          bound = &d->second;
        }
        Attribute a = *bound;
        a.name = name;
        a.ref_attr_name.clear();
        attrs[name] = std::move(a);
      }
      n.attributes = std::move(attrs);
      out.push_back(std::move(n));
    }
    return Status::Ok();
  }

  // Renames the outer-scope names a subgraph of a function body reads.
  static void rename_free_names(Graph& g, const std::map<std::string, std::string>& rename) {
    for (Node& n : g.nodes) {
      for (auto& i : n.inputs) {
        auto it = rename.find(i);
        if (it != rename.end()) i = it->second;
      }
      for (auto& kv : n.attributes) {
        if (kv.second.g) rename_free_names(*kv.second.g, rename);
        for (auto& sg : kv.second.graphs) rename_free_names(*sg, rename);
      }
    }
    for (auto& o : g.outputs) {
      auto it = rename.find(o.name);
      if (it != rename.end()) o.name = it->second;
    }
  }

  const std::vector<Function>& functions_;
  int counter_ = 0;
};

}  // namespace

Status inline_functions(Graph& graph, const std::vector<Function>& functions) {
  if (functions.empty()) return Status::Ok();
  return Inliner(functions).run(graph, 0);
}

}  // namespace onyx::ir
