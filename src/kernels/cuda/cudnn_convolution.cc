#include "kernels/cuda/cudnn_convolution.h"

#include <cudnn.h>

#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "kernels/conv_common.h"
#include "kernels/cuda/cudnn_conv_plan.h"

namespace onyx {

// cuDNN sees at least two spatial dims: a 1-D convolution is run as (N, C, 1, W).
struct CudnnConvolution::Plan {
  WindowGeometry geometry;
  bool pad_first = false;           // X is copied into a zero-padded tensor of `padded_x` first
  cuda_conv::PadGeometry padding;
  Shape padded_x;
  cudnnTensorDescriptor_t x_desc = nullptr, y_desc = nullptr;
  cudnnFilterDescriptor_t w_desc = nullptr;
  cudnnConvolutionDescriptor_t conv_desc = nullptr;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t workspace_bytes = 0;
  // The same convolution as graph-API plans (cudnn_conv_plan.h), for Y = conv and for
  // Y += conv; null where cuDNN offers no qualifying engine (the legacy call then runs).
  std::unique_ptr<CudnnConvPlan> graph[2];

  ~Plan() {
    if (x_desc) cudnnDestroyTensorDescriptor(x_desc);
    if (y_desc) cudnnDestroyTensorDescriptor(y_desc);
    if (w_desc) cudnnDestroyFilterDescriptor(w_desc);
    if (conv_desc) cudnnDestroyConvolutionDescriptor(conv_desc);
  }
};

namespace {

// ONYX_CUDNN_LEGACY=1 runs every convolution through the legacy cudnnConvolutionForward
// (for measuring the graph-API plans against it).
bool legacy_only() {
  static const bool legacy = [] {
    const char* v = std::getenv("ONYX_CUDNN_LEGACY");
    return v && *v && std::string(v) != "0";
  }();
  return legacy;
}

Result<std::vector<int>> to_ints(const std::vector<int64_t>& v, const char* what) {
  std::vector<int> out;
  for (int64_t d : v) {
    if (d < 0 || d > std::numeric_limits<int>::max()) return not_implemented("CUDA convolution with ", what, " ", d);
    out.push_back(int(d));
  }
  return out;
}

Status set_tensor(cudnnTensorDescriptor_t desc, cudnnDataType_t type, const std::vector<int>& dims) {
  std::vector<int> strides(dims.size(), 1);
  for (size_t d = dims.size() - 1; d-- > 0;) strides[d] = strides[d + 1] * dims[d + 1];
  return cudnn_status(cudnnSetTensorNdDescriptor(desc, type, int(dims.size()), dims.data(), strides.data()),
                      "cudnnSetTensorNdDescriptor");
}

// (N, C, spatial...) with a leading spatial 1 for 1-D.
std::vector<int64_t> lifted(int64_t n, int64_t c, const std::vector<int64_t>& spatial) {
  std::vector<int64_t> d = {n, c};
  if (spatial.size() == 1) d.push_back(1);
  d.insert(d.end(), spatial.begin(), spatial.end());
  return d;
}

}  // namespace

CudnnConvolution::~CudnnConvolution() = default;

Result<std::shared_ptr<const CudnnConvolution::Plan>> CudnnConvolution::plan_for(const CudaProvider& provider,
                                                                                 const Shape& x, const Shape& w,
                                                                                 DataType type) const {
  const Key key{x, w, type};
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = plans_.find(key); it != plans_.end()) return it->second;
  }
  auto plan = std::make_shared<Plan>();
  ONYX_ASSIGN_OR_RETURN(plan->geometry, resolve_conv(attrs_, group_, x, w));
  const WindowGeometry& g = plan->geometry;
  const size_t r = g.rank();
  if (r < 1 || r > 3) return not_implemented("CUDA convolution over ", r, " spatial dims (it takes 1 to 3)");
  std::vector<int64_t> in = g.in, pads = g.pad_begin;
  for (size_t d = 0; d < r; ++d) plan->pad_first = plan->pad_first || g.pad_begin[d] != g.pad_end[d];
  if (plan->pad_first) {
    plan->padding.rank = int(r);
    for (size_t d = 0; d < r; ++d) {
      plan->padding.in[d] = g.in[d];
      plan->padding.pad_begin[d] = g.pad_begin[d];
      plan->padding.out[d] = in[d] = g.in[d] + g.pad_begin[d] + g.pad_end[d];
      pads[d] = 0;
    }
    plan->padded_x = {x[0], x[1]};
    plan->padded_x.insert(plan->padded_x.end(), in.begin(), in.end());
  }

  std::vector<int64_t> kernel = g.kernel, strides = g.strides, dilations = g.dilations;
  if (r == 1) {
    kernel.insert(kernel.begin(), 1);
    strides.insert(strides.begin(), 1);
    dilations.insert(dilations.begin(), 1);
    pads.insert(pads.begin(), 0);
  }
  const bool half = type == DataType::kFloat16;
  // The graph plans' description (int64) and the legacy descriptors' (int) of the same dims.
  CudnnConvPlan::Shape graph_shape;
  graph_shape.x = lifted(x[0], x[1], in);
  graph_shape.w = lifted(w[0], w[1], g.kernel);
  graph_shape.y = lifted(x[0], w[0], g.out);
  graph_shape.pads = pads;
  graph_shape.strides = strides;
  graph_shape.dilations = dilations;
  graph_shape.half = half;
  ONYX_ASSIGN_OR_RETURN(std::vector<int> x_dims, to_ints(graph_shape.x, "dim"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int> w_dims, to_ints(graph_shape.w, "weight dim"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int> y_dims, to_ints(graph_shape.y, "output dim"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int> pad_i, to_ints(pads, "padding"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int> stride_i, to_ints(strides, "stride"));
  ONYX_ASSIGN_OR_RETURN(std::vector<int> dilation_i, to_ints(dilations, "dilation"));
  if (group_ > std::numeric_limits<int>::max()) return not_implemented("CUDA convolution with group ", group_);

  const cudnnDataType_t data = half ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
  ONYX_CUDNN_RETURN_IF_ERROR(cudnnCreateTensorDescriptor(&plan->x_desc));
  ONYX_CUDNN_RETURN_IF_ERROR(cudnnCreateTensorDescriptor(&plan->y_desc));
  ONYX_CUDNN_RETURN_IF_ERROR(cudnnCreateFilterDescriptor(&plan->w_desc));
  ONYX_CUDNN_RETURN_IF_ERROR(cudnnCreateConvolutionDescriptor(&plan->conv_desc));
  ONYX_RETURN_IF_ERROR(set_tensor(plan->x_desc, data, x_dims));
  ONYX_RETURN_IF_ERROR(set_tensor(plan->y_desc, data, y_dims));
  ONYX_CUDNN_RETURN_IF_ERROR(
      cudnnSetFilterNdDescriptor(plan->w_desc, data, CUDNN_TENSOR_NCHW, int(w_dims.size()), w_dims.data()));
  ONYX_CUDNN_RETURN_IF_ERROR(cudnnSetConvolutionNdDescriptor(plan->conv_desc, int(pad_i.size()), pad_i.data(),
                                                             stride_i.data(), dilation_i.data(),
                                                             CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  ONYX_CUDNN_RETURN_IF_ERROR(cudnnSetConvolutionGroupCount(plan->conv_desc, int(group_)));
  ONYX_CUDNN_RETURN_IF_ERROR(
      cudnnSetConvolutionMathType(plan->conv_desc, half ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH));

  // cuDNN's own idea of Y's dims must be ours.
  std::vector<int> cudnn_y(y_dims.size());
  ONYX_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionNdForwardOutputDim(plan->conv_desc, plan->x_desc, plan->w_desc,
                                                                   int(cudnn_y.size()), cudnn_y.data()));
  if (cudnn_y != y_dims)
    return error(StatusCode::kInternal, "cuDNN's convolution output dims differ from onyx's for X ",
                 shape_to_string(x), " and W ", shape_to_string(w));

  {
    auto lock = provider.lock_blas();
    ONYX_ASSIGN_OR_RETURN(cudnnHandle_t handle, provider.cudnn());
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int returned = 0;
    ONYX_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionForwardAlgorithm_v7(handle, plan->x_desc, plan->w_desc,
                                                                      plan->conv_desc, plan->y_desc,
                                                                      CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf));
    bool found = false;
    for (int i = 0; i < returned && !found; ++i) {
      if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
      size_t bytes = 0;
      if (cudnnGetConvolutionForwardWorkspaceSize(handle, plan->x_desc, plan->w_desc, plan->conv_desc, plan->y_desc,
                                                  perf[i].algo, &bytes) != CUDNN_STATUS_SUCCESS ||
          bytes > kMaxWorkspaceBytes)
        continue;
      plan->algo = perf[i].algo;
      plan->workspace_bytes = bytes;
      found = true;
    }
    if (!found)
      return not_implemented("cuDNN has no forward algorithm for the convolution of X ", shape_to_string(x), " by W ",
                             shape_to_string(w), " within ", kMaxWorkspaceBytes >> 20, " MiB of workspace");
    if (!legacy_only()) {
      for (int accumulate = 0; accumulate < (half ? 2 : 1); ++accumulate) {
        graph_shape.accumulate = accumulate != 0;
        auto made = CudnnConvPlan::make(handle, graph_shape, kMaxWorkspaceBytes);
        if (made.ok()) plan->graph[accumulate] = std::move(*made);  // else the legacy call serves this shape
      }
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (plans_.size() >= kMaxPlans) plans_.clear();  // shapes that keep changing: start over
  return plans_.emplace(key, std::move(plan)).first->second;
}

Status CudnnConvolution::run(KernelContext& ctx, const CudaProvider& provider, const Tensor& x, const Tensor& w,
                             const Tensor* bias, const Tensor* residual, const cuda_conv::Epilogue& activation,
                             const char* op) const {
  if (x.dtype() != DataType::kFloat && x.dtype() != DataType::kFloat16)
    return not_implemented("CUDA ", op, " takes float32 or float16, not ", data_type_name(x.dtype()));
  if (w.dtype() != x.dtype() || (bias && bias->dtype() != x.dtype()) || (residual && residual->dtype() != x.dtype()))
    return invalid_argument(op, ": X, W, B and Z must share one type, got X ", x.describe(), " and W ", w.describe());
  ONYX_ASSIGN_OR_RETURN(WindowGeometry g, resolve_conv(attrs_, group_, x.shape(), w.shape()));
  const int64_t maps = w.dim(0);
  Shape y_shape = {x.dim(0), maps};
  y_shape.insert(y_shape.end(), g.out.begin(), g.out.end());
  if (bias && (bias->rank() != 1 || bias->dim(0) != maps))
    return invalid_argument(op, ": bias ", bias->describe(), " must have shape [", maps, "]");
  if (residual && residual->shape() != y_shape)
    return invalid_argument(op, ": Z ", residual->describe(), " must have Y's shape ", shape_to_string(y_shape));
  ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output_uninitialized(0, x.dtype(), y_shape));
  if (y->numel() == 0) return Status::Ok();
  ONYX_RETURN_IF_ERROR(provider.activate());
  cudaStream_t stream = provider.stream();
  const bool half = x.dtype() == DataType::kFloat16;
  const int64_t plane = y->numel() / (y->dim(0) * maps);
  cuda_conv::Epilogue e = activation;
  e.bias = bias ? bias->raw_data() : nullptr;
  e.residual = residual ? residual->raw_data() : nullptr;
  if (x.numel() == 0) {  // no input channels: Y is the epilogue of zeros
    ONYX_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(y->raw_data(), 0, y->nbytes(), stream));
  } else {
    ONYX_ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan, plan_for(provider, x.shape(), w.shape(), x.dtype()));
    const void* x_data = x.raw_data();
    Tensor padded;
    if (plan->pad_first) {
      ONYX_ASSIGN_OR_RETURN(padded, ctx.allocate_scratch(x.dtype(), plan->padded_x));
      ONYX_RETURN_IF_ERROR(cuda_conv::launch_zero_pad(x.raw_data(), padded.raw_data(), x.dim(0) * x.dim(1),
                                                      plan->padding, x.itemsize(), stream));
      ONYX_RETURN_IF_ERROR(CudaKernel::check_launch("convolution padding"));
      x_data = padded.raw_data();
    }
    // float16: rounding the sum to float16 before the bias and residual are added would round
    // twice, which under cancellation costs many units in the last place of Y. So Y starts as
    // bias + residual and cuDNN adds the sum to it (beta = 1) in float32, rounding once.
    float beta = 0.f;
    if (half && (e.bias || e.residual)) {
      ONYX_RETURN_IF_ERROR(
          cuda_conv::launch_prefill(y->raw_data(), y->numel(), maps, plane, half, e.bias, e.residual, stream));
      e.bias = e.residual = nullptr;
      beta = 1.f;
    }
    const CudnnConvPlan* graph = plan->graph[beta != 0.f ? 1 : 0].get();
    if (graph && !CudnnConvPlan::aligned(x_data, w.raw_data(), y->raw_data())) graph = nullptr;
    const size_t workspace_bytes = graph ? graph->workspace_bytes() : plan->workspace_bytes;
    Tensor workspace;
    if (workspace_bytes > 0) {
      ONYX_ASSIGN_OR_RETURN(workspace, ctx.allocate_scratch(DataType::kUInt8, {int64_t(workspace_bytes)}));
    }
    const float one = 1.f;
    auto lock = provider.lock_blas();
    ONYX_ASSIGN_OR_RETURN(cudnnHandle_t handle, provider.cudnn());
    if (graph) {
      ONYX_RETURN_IF_ERROR(graph->run(handle, x_data, w.raw_data(), y->raw_data(),
                                      workspace_bytes ? workspace.raw_data() : nullptr));
    } else {
      ONYX_CUDNN_RETURN_IF_ERROR(cudnnConvolutionForward(
          handle, &one, plan->x_desc, x_data, plan->w_desc, w.raw_data(), plan->conv_desc, plan->algo,
          plan->workspace_bytes ? workspace.raw_data() : nullptr, plan->workspace_bytes, &beta, plan->y_desc,
          y->raw_data()));
    }
  }
  ONYX_RETURN_IF_ERROR(cuda_conv::launch_epilogue(y->raw_data(), y->numel(), maps, plane, half, e, stream));
  return CudaKernel::check_launch(op);
}

std::string refuse_for_cudnn_convolution(const KernelQuery& q) {
  if (const ir::Attribute* k = q.node.attribute("kernel_shape"); k && (k->ints.empty() || k->ints.size() > 3))
    return "convolves 1 to 3 spatial dims, not " + std::to_string(k->ints.size());
  return refuse_unless(q, {DataType::kFloat, DataType::kFloat16}, {0, 1, 2, 3});
}

}  // namespace onyx
