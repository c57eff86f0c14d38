// Custom-op domains, custom-op libraries, and the onyx kernel that runs an OrtCustomOp
// (custom_ops.h). The OrtCustomOp fields past KernelDestroy exist only from the op version
// that added them (op->version): read them only where the version says they are there.
#include "capi/custom_ops.h"

#include <dlfcn.h>

#include <climits>
#include <cstring>

#include "capi/generated/api_declarations.h"
#include "core/logging.h"

namespace onyx::capi {
namespace {

// Op versions from which the optional OrtCustomOp members exist (ORT_API_VERSION at their
// introduction).
constexpr uint32_t kCharacteristicsSince = 8, kVariadicSince = 14, kV2Since = 16, kVersionRangeSince = 17;

const OrtApi* api() { return OrtGetApiBase()->GetApi(ORT_API_VERSION); }

// An OrtStatus from a custom op turned into an onyx Status (and released).
Status status_from(OrtStatus* st, const std::string& what) {
  if (!st) return Status::Ok();
  const std::string message = what + ": " + st->message;
  StatusCode code = StatusCode::kRuntimeError;
  switch (st->code) {
    case ORT_INVALID_ARGUMENT: code = StatusCode::kInvalidArgument; break;
    case ORT_NOT_IMPLEMENTED: code = StatusCode::kNotImplemented; break;
    case ORT_INVALID_GRAPH: code = StatusCode::kInvalidModel; break;
    case ORT_NO_SUCHFILE: code = StatusCode::kNotFound; break;
    default: break;
  }
  delete st;
  return error(code, message);
}

std::string op_label(const OrtCustomOp* op, const ir::Node& node) {
  return "custom op " + (node.domain.empty() ? "" : node.domain + ":") + node.op_type + " (node " + node.label() + ")";
}

ONNXTensorElementDataType input_type(const OrtCustomOp* op, size_t i) {
  const size_t n = op->GetInputTypeCount ? op->GetInputTypeCount(op) : 0;
  if (n == 0 || !op->GetInputType) return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  return op->GetInputType(op, std::min(i, n - 1));  // past the last: a variadic last input
}

ONNXTensorElementDataType output_type(const OrtCustomOp* op, size_t i) {
  const size_t n = op->GetOutputTypeCount ? op->GetOutputTypeCount(op) : 0;
  if (n == 0 || !op->GetOutputType) return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  return op->GetOutputType(op, std::min(i, n - 1));
}

bool last_input_variadic(const OrtCustomOp* op) {
  const size_t n = op->GetInputTypeCount ? op->GetInputTypeCount(op) : 0;
  return n > 0 && op->version >= kVariadicSince && op->GetInputCharacteristic &&
         op->GetInputCharacteristic(op, n - 1) == INPUT_OUTPUT_VARIADIC;
}

// Runs an OrtCustomOp as an onyx kernel: CreateKernel(V2) in prepare, KernelCompute(V2) in
// compute, KernelDestroy when the session's plan goes. Holds the library open meanwhile.
class CustomOpKernel final : public Kernel {
 public:
  CustomOpKernel(const OrtCustomOp* op, std::vector<std::shared_ptr<void>> libraries,
                 std::map<std::string, std::string> config, int log_level)
      : op_(op), libraries_(std::move(libraries)) {
    info_.config = std::move(config);
    info_.logger.log_level = log_level;
  }

  ~CustomOpKernel() override {
    if (kernel_ && op_->KernelDestroy) op_->KernelDestroy(kernel_);
  }

  Status prepare(const KernelInfo& info) override {
    info_.node = info.node();
    info_.opset = info.opset();
    info_.logger.node = info_.node.label();
    label_ = op_label(op_, info_.node);
    ONYX_RETURN_IF_ERROR(check_arity());
    for (int i = 0; i < info.num_inputs(); ++i) {
      const Tensor* c = info.constant_input(i);
      info_.constant_inputs.push_back(c ? std::optional<OrtValue>(OrtValue{Value(*c)}) : std::nullopt);
      OrtTypeInfo t;
      t.kind = ONNX_TYPE_TENSOR;
      t.tensor = c ? tensor_info_of(*c) : OrtTensorTypeAndShapeInfo{input_type(op_, size_t(i)), {}, {}};
      info_.input_types.push_back(std::move(t));
    }
    for (int i = 0; i < info.num_outputs(); ++i) {
      OrtTypeInfo t;
      t.kind = ONNX_TYPE_TENSOR;
      t.tensor.type = output_type(op_, size_t(i));
      info_.output_types.push_back(std::move(t));
    }
    try {
      if (op_->version >= kV2Since && op_->CreateKernelV2) {
        ONYX_RETURN_IF_ERROR(status_from(op_->CreateKernelV2(op_, api(), &info_, &kernel_), label_ + ": CreateKernelV2"));
      } else if (op_->CreateKernel) {
        kernel_ = op_->CreateKernel(op_, api(), &info_);
      }
    } catch (const std::exception& e) {
      return runtime_error(label_, ": CreateKernel threw: ", e.what());
    } catch (...) {
      return runtime_error(label_, ": CreateKernel threw");
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    OrtKernelContext c;
    c.ctx = &ctx;
    c.op = op_;
    c.info = &info_;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i)) {
        c.inputs.push_back(nullptr);
        continue;
      }
      const Value& v = ctx.input_value(i);
      const ONNXTensorElementDataType want = input_type(op_, size_t(i));
      if (want != ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED &&
          (!v.is_tensor() || ort_element_type(v.tensor().dtype()) != want))
        return invalid_argument(label_, ": input ", i, " is ", v.describe(), ", the op takes element type ",
                                data_type_name(data_type_from_ort(int(want))));
      c.inputs.push_back(std::make_unique<OrtValue>(OrtValue{v}));
    }
    c.outputs.resize(size_t(ctx.num_outputs()));
    try {
      if (op_->version >= kV2Since && op_->KernelComputeV2) {
        ONYX_RETURN_IF_ERROR(status_from(op_->KernelComputeV2(kernel_, &c), label_));
      } else if (op_->KernelCompute) {
        op_->KernelCompute(kernel_, &c);
      } else {
        return onyx::not_implemented(label_, " has no KernelCompute");
      }
    } catch (const std::exception& e) {
      return runtime_error(label_, ": ", e.what());
    } catch (...) {
      return runtime_error(label_, ": KernelCompute threw");
    }
    for (int i = 0; i < ctx.num_outputs(); ++i)
      if (ctx.output_requested(i) && !c.outputs[size_t(i)])
        return runtime_error(label_, " did not make its output ", i, " ('", info_.node.outputs[size_t(i)],
                             "'): KernelContext_GetOutput was never called for it");
    return Status::Ok();
  }

 private:
  // The node's input count against the op's: every required input there, no extra ones
  // unless the last input is variadic.
  Status check_arity() const {
    const size_t declared = op_->GetInputTypeCount ? op_->GetInputTypeCount(op_) : 0;
    const size_t given = info_.node.inputs.size();
    const bool variadic = last_input_variadic(op_);
    if (given > declared && !variadic)
      return invalid_model(label_, " has ", given, " inputs; the op takes ", declared);
    for (size_t i = 0; i < declared; ++i) {
      const bool present = i < given && !info_.node.inputs[i].empty();
      OrtCustomOpInputOutputCharacteristic kind = INPUT_OUTPUT_REQUIRED;
      if (op_->version >= kCharacteristicsSince && op_->GetInputCharacteristic) kind = op_->GetInputCharacteristic(op_, i);
      if (kind == INPUT_OUTPUT_REQUIRED && !present)
        return invalid_model(label_, " lacks its required input ", i);
      if (kind == INPUT_OUTPUT_VARIADIC && op_->GetVariadicInputMinArity) {
        const int min = op_->GetVariadicInputMinArity(op_);
        if (int64_t(given) - int64_t(i) < min)
          return invalid_model(label_, " has ", given - std::min(given, i), " variadic inputs; the op needs at least ", min);
      }
    }
    return Status::Ok();
  }

  const OrtCustomOp* op_;
  std::vector<std::shared_ptr<void>> libraries_;
  OrtKernelInfo info_;
  std::string label_;
  void* kernel_ = nullptr;
};

OrtStatus* call_registration(OrtSessionOptions* options, void* function, const std::string& what) {
  using Register = OrtStatus* (*)(OrtSessionOptions*, const OrtApiBase*);
  OrtStatus* st = reinterpret_cast<Register>(function)(options, OrtGetApiBase());
  if (!st) return nullptr;
  OrtStatus* out = make_status(ORT_FAIL, what + " failed: " + st->message);
  delete st;
  return out;
}

}  // namespace

Result<std::shared_ptr<const KernelRegistry>> custom_kernels_of(const OrtSessionOptions& options,
                                                                const std::map<std::string, std::string>& config,
                                                                int log_level) {
  if (options.custom_domains.empty()) return std::shared_ptr<const KernelRegistry>();
  auto registry = std::make_shared<KernelRegistry>();
  for (const auto& domain : options.custom_domains) {
    for (const OrtCustomOp* op : domain->ops) {
      const char* name = op->GetName ? op->GetName(op) : nullptr;
      if (!name || !*name) return invalid_argument("a custom op of domain '", domain->domain, "' gives no name");
      if (!op->KernelCompute && !(op->version >= kV2Since && op->KernelComputeV2))
        return invalid_argument("custom op ", domain->domain, ":", name, " has no KernelCompute");
      const char* ep = op->GetExecutionProviderType ? op->GetExecutionProviderType(op) : nullptr;
      if (ep && *ep && std::strcmp(ep, "CPUExecutionProvider") != 0) {
        log_message(LogLevel::kInfo, log_level,
                    std::string("custom op ") + domain->domain + ":" + name + " is for " + ep +
                        "; onyx runs custom ops on the CPU only, so it is not registered");
        continue;
      }
      int since = 1, until = kLatestOpset;
      if (op->version >= kVersionRangeSince) {
        if (op->GetStartVersion) since = op->GetStartVersion(op);
        if (op->GetEndVersion && op->GetEndVersion(op) < INT_MAX) until = op->GetEndVersion(op);
      }
      const std::vector<std::shared_ptr<void>> libraries = options.custom_libraries;
      registry->add(KernelDef{"CPU", domain->domain == "ai.onnx" ? "" : domain->domain, name, since, until,
                              [op, libraries, config, log_level]() -> std::unique_ptr<Kernel> {
                                return std::make_unique<CustomOpKernel>(op, libraries, config, log_level);
                              },
                              nullptr, {}, false, {}});
    }
  }
  return std::shared_ptr<const KernelRegistry>(std::move(registry));
}

OrtStatus* register_custom_ops_library(OrtSessionOptions* options, const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    return make_status(ORT_NO_SUCHFILE, "cannot open the custom op library " + path + ": " + (why ? why : "unknown"));
  }
  std::shared_ptr<void> library(handle, [](void* h) { dlclose(h); });
  void* function = dlsym(handle, "RegisterCustomOps");
  if (!function) return make_status(ORT_FAIL, "the custom op library " + path + " has no RegisterCustomOps function");
  options->custom_libraries.push_back(library);  // before the call: its ops' kernels keep it open
  return call_registration(options, function, "RegisterCustomOps of " + path);
}

// OrtApi members.

OrtStatus* ORT_API_CALL CreateCustomOpDomain(const char* domain, OrtCustomOpDomain** out) {
  return guarded("CreateCustomOpDomain", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(domain, "CreateCustomOpDomain");
    ONYX_CAPI_REQUIRE(out, "CreateCustomOpDomain");
    auto d = std::make_unique<OrtCustomOpDomain>();
    d->state->domain = domain;
    *out = d.release();
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL CustomOpDomain_Add(OrtCustomOpDomain* custom_op_domain, const OrtCustomOp* op) {
  return guarded("CustomOpDomain_Add", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(custom_op_domain, "CustomOpDomain_Add");
    ONYX_CAPI_REQUIRE(op, "CustomOpDomain_Add");
    custom_op_domain->state->ops.push_back(op);
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL AddCustomOpDomain(OrtSessionOptions* options, OrtCustomOpDomain* custom_op_domain) {
  return guarded("AddCustomOpDomain", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "AddCustomOpDomain");
    ONYX_CAPI_REQUIRE(custom_op_domain, "AddCustomOpDomain");
    options->custom_domains.push_back(custom_op_domain->state);
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL RegisterCustomOpsLibrary(OrtSessionOptions* options, const char* library_path,
                                                 void** library_handle) {
  return guarded("RegisterCustomOpsLibrary", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "RegisterCustomOpsLibrary");
    ONYX_CAPI_REQUIRE(library_path, "RegisterCustomOpsLibrary");
    ONYX_CAPI_REQUIRE(library_handle, "RegisterCustomOpsLibrary");
    if (OrtStatus* st = register_custom_ops_library(options, library_path)) return st;
    // The caller gets a handle of its own to dlclose once its sessions are gone; onyx keeps
    // its reference for the kernels.
    *library_handle = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
    return nullptr;
  });
}

void ORT_API_CALL ReleaseCustomOpDomain(OrtCustomOpDomain* domain) { delete domain; }

OrtStatus* ORT_API_CALL RegisterCustomOpsLibrary_V2(OrtSessionOptions* options, const ORTCHAR_T* library_name) {
  return guarded("RegisterCustomOpsLibrary_V2", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "RegisterCustomOpsLibrary_V2");
    ONYX_CAPI_REQUIRE(library_name, "RegisterCustomOpsLibrary_V2");
    return register_custom_ops_library(options, library_name);
  });
}

OrtStatus* ORT_API_CALL RegisterCustomOpsUsingFunction(OrtSessionOptions* options, const char* registration_func_name) {
  return guarded("RegisterCustomOpsUsingFunction", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(options, "RegisterCustomOpsUsingFunction");
    ONYX_CAPI_REQUIRE(registration_func_name, "RegisterCustomOpsUsingFunction");
    void* function = dlsym(RTLD_DEFAULT, registration_func_name);
    if (!function)
      return make_status(ORT_FAIL, std::string("RegisterCustomOpsUsingFunction: no function named ") +
                                       registration_func_name + " in the process");
    return call_registration(options, function, registration_func_name);
  });
}

}  // namespace onyx::capi
