// ExternalDataLoader: how a provider places initializers whose bytes live in an external
// file (or a caller's in-memory file) into the memory its kernels read.
//
// The loader receives each such initializer as a view of the mapped file: nothing of it has
// been read yet, so a device loader can upload it in bounded chunks and never hold a second
// full host copy. The CPU's loader is the mapping itself: it returns the view unchanged, and
// pages are read from disk only when a kernel first touches them.
//
// Large raw_data initializers of a model file that the loader reads in place (aligned for
// their type; onnx/raw_data_lift.h) come here too, as external data whose location is the
// model file itself.
//
// Loaders are registered per device (ExternalDataLoaderRegistry); a session uses the loader of
// the device that runs its kernels, or SessionOptions::external_data_loader when given.
#pragma once
#include <memory>
#include <mutex>
#include <string>

#include "core/allocator.h"
#include "core/tensor.h"
#include "ir/graph.h"

namespace onyx {

class ExternalDataLoader {
 public:
  virtual ~ExternalDataLoader() = default;
  // For messages: "cpu-mmap", "cuda-chunked-upload", ...
  virtual std::string name() const = 0;
  // Returns initializer `name` where the provider's kernels will read it: same dtype and
  // shape as `mapped`, whose bytes are `ref` of the model's external data. Called once per
  // external initializer of the main graph, at session creation, before optimisation.
  virtual Result<Tensor> load(const std::string& name, const Tensor& mapped, const ir::ExternalDataRef& ref) const = 0;
};

// The CPU's loader: the mapped view is what CPU kernels read (no copy, nothing read now).
class CpuExternalDataLoader final : public ExternalDataLoader {
 public:
  std::string name() const override { return "cpu-mmap"; }
  Result<Tensor> load(const std::string&, const Tensor& mapped, const ir::ExternalDataRef&) const override {
    return mapped;
  }
};

class ExternalDataLoaderRegistry {
 public:
  // The process-wide registry, with the CPU loader registered.
  static ExternalDataLoaderRegistry& global();
  // Registers (or replaces) the loader of a device type.
  void set(Device::Type device, std::shared_ptr<const ExternalDataLoader> loader);
  // The loader of a device type; null when none is registered.
  std::shared_ptr<const ExternalDataLoader> get(Device::Type device) const;

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const ExternalDataLoader> cpu_, cuda_;
};

}  // namespace onyx
