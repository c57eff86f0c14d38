#include "providers/external_data_loader.h"

namespace onyx {

ExternalDataLoaderRegistry& ExternalDataLoaderRegistry::global() {
  static ExternalDataLoaderRegistry* registry = [] {
    auto* r = new ExternalDataLoaderRegistry();
    r->set(Device::Type::kCpu, std::make_shared<CpuExternalDataLoader>());
    return r;
  }();
  return *registry;
}

void ExternalDataLoaderRegistry::set(Device::Type device, std::shared_ptr<const ExternalDataLoader> loader) {
  std::lock_guard<std::mutex> lock(mu_);
  (device == Device::Type::kCpu ? cpu_ : cuda_) = std::move(loader);
}

std::shared_ptr<const ExternalDataLoader> ExternalDataLoaderRegistry::get(Device::Type device) const {
  std::lock_guard<std::mutex> lock(mu_);
  return device == Device::Type::kCpu ? cpu_ : cuda_;
}

}  // namespace onyx
