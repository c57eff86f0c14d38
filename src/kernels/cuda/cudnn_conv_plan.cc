#include "kernels/cuda/cudnn_conv_plan.h"

#include <atomic>
#include <cstdint>
#include <utility>

#include "providers/cuda/cuda_provider.h"

// The handle attributes of the operation graph and the plan are marked deprecated in the
// cuDNN 9 headers onyx builds with; the cuDNN 9 runtimes of the device machines (9.14) still
// need them, and the newer device-property descriptor is not in every 9.x.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace onyx {
namespace {

std::atomic<int64_t> g_plans_made{0};

enum : int64_t { kX = 'x', kW = 'w', kY = 'y' };  // the tensors' unique ids

// One backend descriptor, destroyed with its owner.
class Descriptor {
 public:
  Descriptor() = default;
  ~Descriptor() {
    if (d_) cudnnBackendDestroyDescriptor(d_);
  }
  Descriptor(Descriptor&& o) noexcept : d_(std::exchange(o.d_, nullptr)) {}
  Descriptor& operator=(Descriptor&& o) noexcept {
    std::swap(d_, o.d_);
    return *this;
  }
  Status create(cudnnBackendDescriptorType_t type) {
    return cudnn_status(cudnnBackendCreateDescriptor(type, &d_), "cudnnBackendCreateDescriptor");
  }
  cudnnBackendDescriptor_t get() const { return d_; }
  cudnnBackendDescriptor_t release() { return std::exchange(d_, nullptr); }

  template <typename T>
  Status set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t count, const T* values) {
    return cudnn_status(cudnnBackendSetAttribute(d_, name, type, count, values), "cudnnBackendSetAttribute");
  }
  Status finalize() { return cudnn_status(cudnnBackendFinalize(d_), "cudnnBackendFinalize"); }

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
};

Result<Descriptor> tensor(int64_t uid, cudnnDataType_t type, const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size() - 1; d-- > 0;) strides[d] = strides[d + 1] * dims[d + 1];
  const int64_t alignment = CudnnConvPlan::kAlignment;
  Descriptor t;
  ONYX_RETURN_IF_ERROR(t.create(CUDNN_BACKEND_TENSOR_DESCRIPTOR));
  ONYX_RETURN_IF_ERROR(t.set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type));
  ONYX_RETURN_IF_ERROR(t.set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, int64_t(dims.size()), dims.data()));
  ONYX_RETURN_IF_ERROR(t.set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, int64_t(strides.size()), strides.data()));
  ONYX_RETURN_IF_ERROR(t.set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid));
  ONYX_RETURN_IF_ERROR(t.set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &alignment));
  ONYX_RETURN_IF_ERROR(t.finalize());
  return t;
}

Result<Descriptor> convolution(const CudnnConvPlan::Shape& s) {
  const int64_t dims = int64_t(s.pads.size());
  const cudnnDataType_t sums = CUDNN_DATA_FLOAT;
  const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  Descriptor c;
  ONYX_RETURN_IF_ERROR(c.create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR));
  ONYX_RETURN_IF_ERROR(c.set(CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &sums));
  ONYX_RETURN_IF_ERROR(c.set(CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode));
  ONYX_RETURN_IF_ERROR(c.set(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims));
  ONYX_RETURN_IF_ERROR(c.set(CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, dims, s.dilations.data()));
  ONYX_RETURN_IF_ERROR(c.set(CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, dims, s.strides.data()));
  ONYX_RETURN_IF_ERROR(c.set(CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, dims, s.pads.data()));
  ONYX_RETURN_IF_ERROR(c.set(CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, dims, s.pads.data()));
  ONYX_RETURN_IF_ERROR(c.finalize());
  return c;
}

// Whether an engine computes as the legacy path does (float32 never on tensor cores, TF32,
// nor with inputs converted down; float16 with float32 sums) and is compiled ahead: engines
// that compile at run time (NVRTC) took MobileNetV2's first run from 0.3-0.7 s to 1.3-1.9 s
// in float32 and 6-8 s in float16 on an H100, with 85-260 MB more host memory.
Result<bool> engine_qualifies(cudnnBackendDescriptor_t config, bool half) {
  Descriptor engine;
  ONYX_RETURN_IF_ERROR(engine.create(CUDNN_BACKEND_ENGINE_DESCRIPTOR));
  int64_t got = 0;
  cudnnBackendDescriptor_t engine_out = engine.get();
  ONYX_RETURN_IF_ERROR(cudnn_status(
      cudnnBackendGetAttribute(config, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &got, &engine_out),
      "cudnnBackendGetAttribute(engine)"));
  cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  int64_t count = 0;
  ONYX_RETURN_IF_ERROR(cudnn_status(cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                                                             CUDNN_TYPE_NUMERICAL_NOTE, CUDNN_NUMERICAL_NOTE_TYPE_COUNT,
                                                             &count, notes),
                                    "cudnnBackendGetAttribute(numerical notes)"));
  for (int64_t i = 0; i < count && i < CUDNN_NUMERICAL_NOTE_TYPE_COUNT; ++i) {
    if (notes[i] == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION) return false;
    if (!half && (notes[i] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE || notes[i] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS))
      return false;
  }
  cudnnBackendBehaviorNote_t behaviors[CUDNN_BEHAVIOR_NOTE_TYPE_COUNT];
  count = 0;
  ONYX_RETURN_IF_ERROR(cudnn_status(cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
                                                             CUDNN_TYPE_BEHAVIOR_NOTE, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT,
                                                             &count, behaviors),
                                    "cudnnBackendGetAttribute(behavior notes)"));
  for (int64_t i = 0; i < count && i < CUDNN_BEHAVIOR_NOTE_TYPE_COUNT; ++i)
    if (behaviors[i] == CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION) return false;
  return true;
}

}  // namespace

CudnnConvPlan::~CudnnConvPlan() {
  if (plan_) cudnnBackendDestroyDescriptor(plan_);
}

int64_t CudnnConvPlan::plans_made() { return g_plans_made.load(); }

bool CudnnConvPlan::aligned(const void* x, const void* w, const void* y) {
  const auto ok = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % uintptr_t(kAlignment) == 0; };
  return ok(x) && ok(w) && ok(y);
}

Result<std::unique_ptr<CudnnConvPlan>> CudnnConvPlan::make(cudnnHandle_t handle, const Shape& s, size_t max_workspace) {
  const cudnnDataType_t type = s.half ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
  ONYX_ASSIGN_OR_RETURN(Descriptor x, tensor(kX, type, s.x));
  ONYX_ASSIGN_OR_RETURN(Descriptor w, tensor(kW, type, s.w));
  ONYX_ASSIGN_OR_RETURN(Descriptor y, tensor(kY, type, s.y));
  ONYX_ASSIGN_OR_RETURN(Descriptor conv, convolution(s));

  Descriptor op;
  const float alpha = 1.f, beta = s.accumulate ? 1.f : 0.f;
  cudnnBackendDescriptor_t xd = x.get(), wd = w.get(), yd = y.get(), cd = conv.get();
  ONYX_RETURN_IF_ERROR(op.create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR));
  ONYX_RETURN_IF_ERROR(op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &xd));
  ONYX_RETURN_IF_ERROR(op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &wd));
  ONYX_RETURN_IF_ERROR(op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &yd));
  ONYX_RETURN_IF_ERROR(op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cd));
  ONYX_RETURN_IF_ERROR(op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha));
  ONYX_RETURN_IF_ERROR(op.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta));
  ONYX_RETURN_IF_ERROR(op.finalize());

  Descriptor graph;
  cudnnBackendDescriptor_t opd = op.get();
  ONYX_RETURN_IF_ERROR(graph.create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR));
  ONYX_RETURN_IF_ERROR(graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &opd));
  ONYX_RETURN_IF_ERROR(graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle));
  ONYX_RETURN_IF_ERROR(graph.finalize());

  Descriptor heuristics;
  cudnnBackendDescriptor_t gd = graph.get();
  const cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
  ONYX_RETURN_IF_ERROR(heuristics.create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR));
  ONYX_RETURN_IF_ERROR(heuristics.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &gd));
  ONYX_RETURN_IF_ERROR(heuristics.set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode));
  ONYX_RETURN_IF_ERROR(heuristics.finalize());
  int64_t ranked = 0;
  ONYX_RETURN_IF_ERROR(cudnn_status(cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                             CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &ranked, nullptr),
                                    "cudnnBackendGetAttribute(heuristic results)"));
  if (ranked <= 0) return not_implemented("cuDNN's heuristics rank no engine for this convolution");
  std::vector<Descriptor> configs(static_cast<size_t>(ranked));
  std::vector<cudnnBackendDescriptor_t> config_ptrs;
  for (Descriptor& c : configs) {
    ONYX_RETURN_IF_ERROR(c.create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
    config_ptrs.push_back(c.get());
  }
  ONYX_RETURN_IF_ERROR(cudnn_status(cudnnBackendGetAttribute(heuristics.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                                             CUDNN_TYPE_BACKEND_DESCRIPTOR, ranked, &ranked,
                                                             config_ptrs.data()),
                                    "cudnnBackendGetAttribute(heuristic results)"));

  for (int64_t i = 0; i < ranked && i < int64_t(config_ptrs.size()); ++i) {
    Result<bool> qualifies = engine_qualifies(config_ptrs[size_t(i)], s.half);
    if (!qualifies.ok() || !*qualifies) continue;
    Descriptor plan;
    if (!plan.create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR).ok()) continue;
    cudnnBackendDescriptor_t config = config_ptrs[size_t(i)];
    if (!plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &handle).ok() ||
        !plan.set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &config).ok() ||
        !plan.finalize().ok())
      continue;  // this engine does not support the shape after all
    int64_t workspace = 0, got = 0;
    if (cudnnBackendGetAttribute(plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &got,
                                 &workspace) != CUDNN_STATUS_SUCCESS ||
        workspace < 0 || uint64_t(workspace) > max_workspace)
      continue;
    std::unique_ptr<CudnnConvPlan> made(new CudnnConvPlan());
    made->plan_ = plan.release();
    made->workspace_bytes_ = size_t(workspace);
    g_plans_made.fetch_add(1);
    return made;
  }
  return not_implemented("no precompiled cuDNN engine keeps the legacy arithmetic within ", max_workspace >> 20,
                         " MiB of workspace for this convolution");
}

Status CudnnConvPlan::run(cudnnHandle_t handle, const void* x, const void* w, void* y, void* workspace) const {
  const int64_t uids[3] = {kX, kW, kY};
  void* pointers[3] = {const_cast<void*>(x), const_cast<void*>(w), y};
  Descriptor pack;
  ONYX_RETURN_IF_ERROR(pack.create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR));
  ONYX_RETURN_IF_ERROR(pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids));
  ONYX_RETURN_IF_ERROR(pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers));
  ONYX_RETURN_IF_ERROR(pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace));
  ONYX_RETURN_IF_ERROR(pack.finalize());
  return cudnn_status(cudnnBackendExecute(handle, plan_, pack.get()), "cudnnBackendExecute");
}

}  // namespace onyx
