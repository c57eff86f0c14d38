#include "providers/execution_provider.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace onyx {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

const ProviderRegistrar kCpuRegistrar("CPU", "CPUExecutionProvider",
                                      [](const ProviderOptions& options) -> Result<std::shared_ptr<ExecutionProvider>> {
                                        // ONNX Runtime's CPU options are accepted; onyx's arena is
                                        // set by SessionOptions (enable_cpu_mem_arena) instead.
                                        for (const auto& kv : options)
                                          if (kv.first != "arena_extend_strategy" && kv.first != "use_arena")
                                            return invalid_argument("unknown CPU provider option '", kv.first,
                                                                    "' (it takes arena_extend_strategy and use_arena)");
                                        return CpuProvider::shared();
                                      });

}  // namespace

std::shared_ptr<ExecutionProvider> CpuProvider::shared() {
  static const std::shared_ptr<ExecutionProvider> cpu = std::make_shared<CpuProvider>();
  return cpu;
}

Result<Tensor> ExecutionProvider::copy_to_own_memory(const Tensor& src) {
  ONYX_ASSIGN_OR_RETURN(Tensor dst, Tensor::create(src.dtype(), src.shape(), allocator(), false));
  ONYX_RETURN_IF_ERROR(copy(src, dst));
  return dst;
}

Status check_copy_pair(const Tensor& src, const Tensor& dst) {
  if (!src.defined() || !dst.defined()) return error(StatusCode::kInternal, "copy between undefined tensors");
  if (src.dtype() != dst.dtype() || src.numel() != dst.numel())
    return error(StatusCode::kInternal, "copy from ", src.describe(), " to ", dst.describe(),
                 ": the types or element counts differ");
  if (src.dtype() == DataType::kString && (!src.device().is_cpu() || !dst.device().is_cpu()))
    return not_implemented("string tensors stay on the host: cannot copy ", src.describe(), " from ",
                           src.device().to_string(), " to ", dst.device().to_string());
  return Status::Ok();
}

Status CpuProvider::copy(const Tensor& src, Tensor& dst) const {
  ONYX_RETURN_IF_ERROR(check_copy_pair(src, dst));
  if (!src.device().is_cpu() || !dst.device().is_cpu())
    return error(StatusCode::kInternal, "the CPU provider cannot copy from ", src.device().to_string(), " to ",
                 dst.device().to_string());
  if (src.dtype() == DataType::kString) {
    const std::string* from = src.data<std::string>();
    std::string* to = dst.data<std::string>();
    std::copy(from, from + src.numel(), to);
  } else if (src.nbytes()) {
    std::memmove(dst.raw_data(), src.raw_data(), src.nbytes());
  }
  return Status::Ok();
}

ProviderRegistry& ProviderRegistry::global() {
  static ProviderRegistry registry;
  return registry;
}

void ProviderRegistry::add(const std::string& name, const std::string& ort_name, Factory factory, Probe probe) {
  entries_.push_back(Entry{name, ort_name, std::move(factory), std::move(probe)});
}

Status ProviderRegistry::available(const std::string& name) const {
  const std::string canon = canonical(name);
  for (const Entry& e : entries_)
    if (e.name == canon) return e.probe ? e.probe() : Status::Ok();
  return not_implemented("execution provider '", name, "' is not part of this build of onyx");
}

std::vector<std::string> ProviderRegistry::available_ort_names() const {
  std::vector<std::string> out;
  for (const Entry& e : entries_)
    if (e.name != "CPU" && available(e.name).ok()) out.push_back(e.ort_name);
  out.push_back("CPUExecutionProvider");
  return out;
}

std::string ProviderRegistry::canonical(const std::string& name) const {
  const std::string key = lower(name);
  for (const Entry& e : entries_)
    if (lower(e.name) == key || lower(e.ort_name) == key) return e.name;
  return {};
}

Result<std::shared_ptr<ExecutionProvider>> ProviderRegistry::create(const std::string& name,
                                                                    const ProviderOptions& options) const {
  const std::string canon = canonical(name);
  for (const Entry& e : entries_) {
    if (e.name != canon) continue;
    Result<std::shared_ptr<ExecutionProvider>> made = e.factory(options);
    if (!made.ok()) return std::move(made.take_status()).with_context("while creating the " + e.name + " provider");
    return made;
  }
  std::string have;
  for (const std::string& n : names()) have += (have.empty() ? "" : ", ") + n;
  const std::string hint = lower(name).rfind("cuda", 0) == 0
                               ? " (onyx was built without CUDA: configure with -DONYX_CUDA=ON where the CUDA toolkit is)"
                               : "";
  return not_implemented("execution provider '", name, "' is not part of this build of onyx", hint,
                         "; it has: ", have);
}

std::vector<std::string> ProviderRegistry::names() const {
  std::vector<std::string> out;
  for (const Entry& e : entries_)
    if (e.name != "CPU") out.push_back(e.name);
  out.push_back("CPU");
  return out;
}

std::string ProviderRegistry::ort_name(const std::string& name) const {
  const std::string canon = canonical(name);
  for (const Entry& e : entries_)
    if (e.name == canon) return e.ort_name;
  return name;
}

std::vector<std::string> ProviderRegistry::ort_names() const {
  std::vector<std::string> out;
  for (const Entry& e : entries_)
    if (e.name != "CPU") out.push_back(e.ort_name);
  out.push_back("CPUExecutionProvider");
  return out;
}

}  // namespace onyx
