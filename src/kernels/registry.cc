#include "kernels/kernel.h"

namespace onyx {

KernelRegistry& KernelRegistry::global() {
  static KernelRegistry* registry = new KernelRegistry();
  return *registry;
}

void KernelRegistry::add(KernelDef def) { defs_.push_back(std::move(def)); }

const KernelDef* KernelRegistry::find(const std::string& provider, const std::string& domain,
                                      const std::string& op, int64_t opset) const {
  const std::string d = domain == "ai.onnx" ? "" : domain;
  for (const KernelDef& def : defs_) {
    if (def.provider == provider && def.domain == d && def.op == op && opset >= def.since_opset &&
        opset <= def.until_opset)
      return &def;
  }
  if (provider == "CPU") return nullptr;
  for (const KernelDef& def : defs_) {
    if (def.any_device && def.provider == "CPU" && def.domain == d && def.op == op && opset >= def.since_opset &&
        opset <= def.until_opset)
      return &def;
  }
  return nullptr;
}

const KernelDef* find_kernel(const KernelRegistry* session_kernels, const std::string& provider,
                             const std::string& domain, const std::string& op, int64_t opset) {
  if (session_kernels)
    if (const KernelDef* def = session_kernels->find(provider, domain, op, opset)) return def;
  return KernelRegistry::global().find(provider, domain, op, opset);
}

int64_t KernelInfo::attr_int(const std::string& name, int64_t fallback) const {
  const ir::Attribute* a = attr(name);
  return a ? a->i : fallback;
}

float KernelInfo::attr_float(const std::string& name, float fallback) const {
  const ir::Attribute* a = attr(name);
  return a ? a->f : fallback;
}

std::string KernelInfo::attr_string(const std::string& name, const std::string& fallback) const {
  const ir::Attribute* a = attr(name);
  return a ? a->s : fallback;
}

std::vector<int64_t> KernelInfo::attr_ints(const std::string& name, std::vector<int64_t> fallback) const {
  const ir::Attribute* a = attr(name);
  return a ? a->ints : fallback;
}

std::vector<float> KernelInfo::attr_floats(const std::string& name, std::vector<float> fallback) const {
  const ir::Attribute* a = attr(name);
  return a ? a->floats : fallback;
}

std::vector<std::string> KernelInfo::attr_strings(const std::string& name) const {
  const ir::Attribute* a = attr(name);
  return a ? a->strings : std::vector<std::string>{};
}

const Tensor* KernelInfo::attr_tensor(const std::string& name) const {
  const ir::Attribute* a = attr(name);
  return a && a->t.defined() ? &a->t : nullptr;
}

Result<std::shared_ptr<const SubgraphPlan>> KernelInfo::subgraph(const std::string& name) const {
  const ir::Attribute* a = attr(name);
  if (!a || !a->g) return invalid_model("node ", node_.label(), " has no graph attribute '", name, "'");
  return plan_subgraph_(*a->g);
}

}  // namespace onyx
