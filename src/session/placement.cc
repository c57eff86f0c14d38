#include "session/placement.h"

namespace onyx {
namespace {

DataType type_of(const PlacementOptions& options, const std::string& name) {
  if (!options.types || name.empty()) return DataType::kUndefined;
  auto it = options.types->find(name);
  if (it == options.types->end() || it->second.kind != ir::TypeInfo::Kind::kTensor) return DataType::kUndefined;
  return it->second.elem_type;
}

bool has_subgraphs(const ir::Node& node) {
  for (const auto& kv : node.attributes)
    if (kv.second.g || !kv.second.graphs.empty()) return true;
  return false;
}

std::string op_name(const ir::Node& node) {
  return node.domain.empty() ? node.op_type : node.domain + ":" + node.op_type;
}

}  // namespace

Result<NodeChoice> choose_provider(const ir::Node& node, int64_t opset,
                                   const std::vector<std::shared_ptr<ExecutionProvider>>& providers,
                                   const PlacementOptions& options, const std::set<std::string>& captured) {
  NodeChoice choice;
  auto refuse = [&](const std::string& provider, const std::string& why) {
    choice.reason += (choice.reason.empty() ? "" : "; ") + provider + ": " + why;
  };
  std::string cpu_only;
  if (has_subgraphs(node)) cpu_only = "a node with subgraphs runs on the CPU";
  for (const auto& out : node.outputs)
    if (cpu_only.empty() && !out.empty() && captured.count(out))
      cpu_only = "its output '" + out + "' is read inside a subgraph, which runs on the CPU";

  for (size_t p = 0; p < providers.size(); ++p) {
    const std::string name = providers[p]->name();
    const KernelDef* def = find_kernel(options.session_kernels, name, node.domain, node.op_type, opset);
    if (name == "CPU") {
      if (!def)
        return not_implemented("no CPU kernel for ", op_name(node), " at opset ", opset, " (node ", node.label(), ")");
      choice.provider = p;
      break;
    }
    if (!cpu_only.empty()) {
      refuse(name, cpu_only);
      continue;
    }
    if (!def) {
      refuse(name, "no kernel for " + op_name(node) + " at opset " + std::to_string(opset));
      continue;
    }
    if (def->refuses) {
      KernelQuery query{node, opset, {}, {}};
      for (const auto& in : node.inputs) query.input_types.push_back(type_of(options, in));
      for (const auto& out : node.outputs) query.output_types.push_back(type_of(options, out));
      if (std::string why = def->refuses(query); !why.empty()) {
        refuse(name, why);
        continue;
      }
    }
    choice.provider = p;
    break;
  }
  const bool fell_back = providers[choice.provider]->name() == "CPU" && choice.provider > 0;
  if (fell_back && options.strict)
    return invalid_argument("node ", node.label(), " would fall back to the CPU, which strict placement forbids (",
                            choice.reason, ")");
  return choice;
}

Status DeviceCopyKernel::compute(KernelContext& ctx) const {
  const Value& in = ctx.input_value(0);
  if (in.is_none()) {
    ctx.set_output(0, Value());
    return Status::Ok();
  }
  if (!in.is_tensor())
    return not_implemented("only tensors move between devices; this value is ", in.describe());
  const Tensor& src = in.tensor();
  if (src.device() == target_) {
    ctx.set_output(0, in);
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(Tensor * dst, ctx.allocate_output_uninitialized(0, src.dtype(), src.shape()));
  if (dst->device() != target_)
    return error(StatusCode::kInternal, "a copy to ", target_.to_string(), " got memory on ", dst->device().to_string());
  return provider_->copy(src, *dst);
}

}  // namespace onyx
