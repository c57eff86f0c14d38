#include "providers/cuda/cuda_provider.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "providers/cuda/cuda_arena.h"
#include "providers/cuda/cuda_libraries.h"

namespace onyx {

Status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return Status::Ok();
  return runtime_error("CUDA error in ", what, ": ", cudaGetErrorName(e), " (", cudaGetErrorString(e), ")");
}

Status cublas_status(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return Status::Ok();
  return runtime_error("cuBLAS error in ", what, ": ", cublasGetStatusName(s), " (", cublasGetStatusString(s), ")");
}

#ifdef ONYX_WITH_CUDNN
Status cudnn_status(cudnnStatus_t s, const char* what) {
  if (s == CUDNN_STATUS_SUCCESS) return Status::Ok();
  return runtime_error("cuDNN error in ", what, ": ", cudnnGetErrorString(s));
}

Result<cudnnContext*> CudaProvider::cudnn() const {
  if (cudnn_) return cudnn_;
  ONYX_RETURN_IF_ERROR(cuda_libraries::load_cudnn());
  ONYX_RETURN_IF_ERROR(activate());
  cudnnHandle_t h = nullptr;
  ONYX_CUDNN_RETURN_IF_ERROR(cudnnCreate(&h));
  if (Status s = cudnn_status(cudnnSetStream(h, stream_), "cudnnSetStream"); !s.ok()) {
    cudnnDestroy(h);
    return s;
  }
  cudnn_ = h;
  return h;
}
#endif

namespace {

Result<int64_t> parse_count(const std::string& key, const std::string& value) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0 || v < 0)
    return invalid_argument("CUDA provider option ", key, "='", value, "' is not a non-negative integer");
  return int64_t(v);
}

Status cuda_usable_here() {
  std::string why;
  if (CudaProvider::device_count(&why) == 0) return runtime_error("no CUDA device is usable here: ", why);
  return Status::Ok();
}

const ProviderRegistrar kCudaRegistrar("CUDA", "CUDAExecutionProvider", CudaProvider::create, cuda_usable_here);

}  // namespace

int CudaProvider::device_count(std::string* why_none) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    cudaGetLastError();
    if (why_none) {
      *why_none = std::string(cudaGetErrorString(e)) + " (" + cudaGetErrorName(e) + ")";
      if (e == cudaErrorInsufficientDriver)
        *why_none += ": no NVIDIA driver is loaded, or it is older than this CUDA " +
                     std::to_string(CUDART_VERSION / 1000) + " runtime";
    }
    return 0;
  }
  if (n == 0 && why_none) *why_none = "the CUDA runtime reports no devices";
  return n;
}

namespace {

// ONNX Runtime's CUDA provider options that onyx accepts without acting on them: tuning knobs
// of ORT's own kernels and allocator (onyx chooses its cuDNN algorithms by heuristics, copies
// on its own stream in order with its kernels, keeps float32 in float32, ...). The session
// names the ones given in a warning. Anything else is refused by name.
bool ort_option_not_acted_on(const std::string& key) {
  static const char* const kNames[] = {
      "arena_extend_strategy", "cudnn_conv_algo_search", "do_copy_in_default_stream", "cudnn_conv_use_max_workspace",
      "cudnn_conv1d_pad_to_nc1d", "enable_skip_layer_norm_strict_mode", "prefer_nhwc", "use_ep_level_unified_stream",
      "use_tf32", "fuse_conv_bias", "sdpa_kernel", "tunable_op_enable", "tunable_op_tuning_enable",
      "tunable_op_max_tuning_duration_ms", "gpu_external_alloc", "gpu_external_free", "gpu_external_empty_cache",
      "has_user_compute_stream", "user_compute_stream", "default_memory_arena_cfg"};
  for (const char* n : kNames)
    if (key == n) return true;
  return false;
}

}  // namespace

Result<std::shared_ptr<ExecutionProvider>> CudaProvider::create(const ProviderOptions& options) {
  int device_id = 0;
  size_t mem_limit = 0;
  bool cuda_graph = false;
  std::vector<std::string> not_acted_on;
  for (const auto& [key, value] : options) {
    if (key == "device_id") {
      ONYX_ASSIGN_OR_RETURN(int64_t v, parse_count(key, value));
      device_id = int(std::min<int64_t>(v, 1 << 20));
    } else if (key == "gpu_mem_limit") {
      ONYX_ASSIGN_OR_RETURN(int64_t v, parse_count(key, value));
      mem_limit = size_t(v);
    } else if (key == "enable_cuda_graph") {
      // ONNX Runtime's Python passes True as "True"
      const bool on = value == "1" || value == "true" || value == "True";
      if (!on && value != "0" && value != "false" && value != "False")
        return invalid_argument("CUDA provider option enable_cuda_graph='", value, "' is not 0 or 1 (or true/false)");
      cuda_graph = on;
    } else if (ort_option_not_acted_on(key)) {
      not_acted_on.push_back(key + "=" + value);
    } else {
      return invalid_argument("unknown CUDA provider option '", key,
                              "' (onyx acts on device_id, gpu_mem_limit and enable_cuda_graph, and accepts "
                              "ONNX Runtime's other CUDA options without acting on them)");
    }
  }
  std::string why;
  const int count = device_count(&why);
  if (count == 0)
    return runtime_error("the CUDA provider was asked for, but no CUDA device is usable here: ", why);
  if (device_id >= count)
    return invalid_argument("CUDA device_id ", device_id, " does not exist: this machine has ", count, " device",
                            count == 1 ? "" : "s");
  std::shared_ptr<CudaProvider> p(new CudaProvider());
  ONYX_RETURN_IF_ERROR(p->init(device_id, mem_limit));
  p->capture_runs_ = cuda_graph;
  p->not_acted_on_ = std::move(not_acted_on);
  return std::shared_ptr<ExecutionProvider>(std::move(p));
}

Status CudaProvider::init(int device_id, size_t mem_limit) {
  device_id_ = device_id;
  ONYX_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_id));
  cudaDeviceProp prop{};
  ONYX_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop, device_id));
  description_ = "CUDA device " + std::to_string(device_id) + ": " + prop.name + ", compute " +
                 std::to_string(prop.major) + "." + std::to_string(prop.minor) + ", " +
                 std::to_string(prop.totalGlobalMem >> 20) + " MiB";
  ONYX_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  ONYX_RETURN_IF_ERROR(cuda_libraries::load_cublas());
  ONYX_CUBLAS_RETURN_IF_ERROR(cublasCreate(&cublas_));
  ONYX_CUBLAS_RETURN_IF_ERROR(cublasSetStream(cublas_, stream_));
  ONYX_CUBLAS_RETURN_IF_ERROR(cublasLtCreate(&cublas_lt_));
  ONYX_CUDA_RETURN_IF_ERROR(cudaMalloc(&workspace_, kWorkspaceBytes));
  // cuBLAS then allocates nothing of its own as it runs, which a recorded run needs; its
  // calls and cuBLASLt's share the workspace in stream order, under lock_blas().
  ONYX_CUBLAS_RETURN_IF_ERROR(cublasSetWorkspace(cublas_, workspace_, kWorkspaceBytes));
  for (int i = 0; i < 2; ++i) {
    ONYX_CUDA_RETURN_IF_ERROR(cudaHostAlloc(&staging_[i], kStagingBytes, cudaHostAllocDefault));
    ONYX_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&staged_[i], cudaEventDisableTiming));
  }
  ONYX_CUDA_RETURN_IF_ERROR(cudaHostAlloc(reinterpret_cast<void**>(&host_error_flag_), sizeof(int), cudaHostAllocMapped));
  *host_error_flag_ = 0;
  ONYX_CUDA_RETURN_IF_ERROR(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_error_flag_), host_error_flag_, 0));
  arena_ = std::make_unique<CudaArena>(device_id, stream_, mem_limit);
  return Status::Ok();
}

CudaProvider::~CudaProvider() {
  cudaSetDevice(device_id_);
  if (stream_) cudaStreamSynchronize(stream_);
  arena_.reset();
  for (int i = 0; i < 2; ++i) {
    if (staged_[i]) cudaEventDestroy(staged_[i]);
    if (staging_[i]) cudaFreeHost(staging_[i]);
  }
  if (workspace_) cudaFree(workspace_);
  if (host_error_flag_) cudaFreeHost(host_error_flag_);
#ifdef ONYX_WITH_CUDNN
  if (cudnn_) cudnnDestroy(cudnn_);
#endif
  if (cublas_lt_) cublasLtDestroy(cublas_lt_);
  if (cublas_) cublasDestroy(cublas_);
  if (stream_) cudaStreamDestroy(stream_);
}

Allocator* CudaProvider::allocator() { return arena_.get(); }

Status CudaProvider::activate() const { return cuda_status(cudaSetDevice(device_id_), "cudaSetDevice"); }

Status CudaProvider::synchronize() const {
  ONYX_RETURN_IF_ERROR(activate());
  ONYX_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
  return take_device_error();
}

Status CudaProvider::shrink_memory() {
  ONYX_RETURN_IF_ERROR(activate());
  ONYX_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));  // the cached blocks' last readers are done
  arena_->trim();
  return Status::Ok();
}

int CudaProvider::register_error_site(const std::string& what) const {
  std::lock_guard<std::mutex> lock(sites_mu_);
  error_sites_.push_back(what);
  return int(error_sites_.size());
}

Status CudaProvider::take_device_error() const {
  const int site = host_error_flag_ ? __atomic_exchange_n(host_error_flag_, 0, __ATOMIC_SEQ_CST) : 0;
  if (site == 0) return Status::Ok();
  std::lock_guard<std::mutex> lock(sites_mu_);
  if (site < 0 || size_t(site) > error_sites_.size())
    return error(StatusCode::kInternal, "a CUDA kernel reported unknown check ", site);
  return invalid_argument(error_sites_[size_t(site - 1)], " (checked on ", device().to_string(),
                          "; the output was filled with zeros there)");
}

Status CudaProvider::synchronize_default_stream() const {
  ONYX_RETURN_IF_ERROR(activate());
  // The legacy default stream, not the whole device: a whole-device wait would break a run
  // another thread is recording on a stream of its own.
  return cuda_status(cudaStreamSynchronize(cudaStreamLegacy), "cudaStreamSynchronize (the default stream)");
}

Status CudaProvider::synchronize_foreign_stream(uintptr_t stream) const {
  ONYX_RETURN_IF_ERROR(activate());
  // DLPack's numbering: 1 the legacy default stream, 2 the per-thread default stream
  const cudaStream_t s = stream == 1 ? cudaStreamLegacy : stream == 2 ? cudaStreamPerThread
                                                                      : reinterpret_cast<cudaStream_t>(stream);
  return cuda_status(cudaStreamSynchronize(s), "cudaStreamSynchronize (a consumer's stream)");
}

Status CudaProvider::copy_through_staging(const void* src, void* dst, size_t bytes, bool to_device) const {
  std::lock_guard<std::mutex> lock(staging_mu_);
  const char* from = static_cast<const char*>(src);
  char* to = static_cast<char*>(dst);
  if (to_device) {
    // host -> pinned (this thread) while the previous chunk goes pinned -> device (the DMA engine)
    for (size_t done = 0, k = 0; done < bytes; done += kStagingBytes, k ^= 1) {
      const size_t n = std::min(kStagingBytes, bytes - done);
      ONYX_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(staged_[k]));  // buffer k is free again
      std::memcpy(staging_[k], from + done, n);
      ONYX_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(to + done, staging_[k], n, cudaMemcpyHostToDevice, stream_));
      ONYX_CUDA_RETURN_IF_ERROR(cudaEventRecord(staged_[k], stream_));
    }
    return Status::Ok();  // later work on the stream sees the data; the caller's bytes are free now
  }
  // device -> pinned for chunk i+1 is queued before chunk i is copied out on the host
  const size_t chunks = (bytes + kStagingBytes - 1) / kStagingBytes;
  auto queue = [&](size_t c) -> Status {
    const size_t off = c * kStagingBytes, n = std::min(kStagingBytes, bytes - off);
    ONYX_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(staging_[c & 1], from + off, n, cudaMemcpyDeviceToHost, stream_));
    return cuda_status(cudaEventRecord(staged_[c & 1], stream_), "cudaEventRecord");
  };
  ONYX_RETURN_IF_ERROR(queue(0));
  for (size_t c = 0; c < chunks; ++c) {
    ONYX_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(staged_[c & 1]));
    if (c + 1 < chunks) ONYX_RETURN_IF_ERROR(queue(c + 1));
    const size_t off = c * kStagingBytes, n = std::min(kStagingBytes, bytes - off);
    std::memcpy(to + off, staging_[c & 1], n);
  }
  return take_device_error();  // the stream's work before the copy is done
}

Status CudaProvider::copy(const Tensor& src, Tensor& dst) const {
  ONYX_RETURN_IF_ERROR(check_copy_pair(src, dst));
  const Device from = src.device(), to = dst.device();
  for (const Device& d : {from, to})
    if (!d.is_cpu() && d != device())
      return error(StatusCode::kInternal, "the CUDA provider of device ", device_id_, " cannot reach ", d.to_string());
  const size_t bytes = src.nbytes();
  if (bytes == 0) return Status::Ok();
  ONYX_RETURN_IF_ERROR(activate());
  if (from.is_cpu() && to.is_cpu()) {
    std::memmove(dst.raw_data(), src.raw_data(), bytes);
    return Status::Ok();
  }
  if (!from.is_cpu() && !to.is_cpu())
    return cuda_status(cudaMemcpyAsync(dst.raw_data(), src.raw_data(), bytes, cudaMemcpyDeviceToDevice, stream_),
                       "cudaMemcpyAsync (device to device)");
  if (recording_) {
    if (to.is_cpu())
      return invalid_argument("a copy from ", from.to_string(), " to the host cannot be part of a CUDA graph: the "
                                 "host would need the device's results while the run is only being recorded");
    return copy_while_recording(src.raw_data(), dst.raw_data(), bytes);
  }
  return copy_through_staging(src.raw_data(), dst.raw_data(), bytes, /*to_device=*/to.is_cpu() ? false : true);
}

namespace {

// A CUDA graph made from one recorded run, with the memory it reads and writes.
class CudaCapturedRun final : public CapturedRun {
 public:
  CudaCapturedRun(int device_id, cudaStream_t stream, cudaGraph_t graph, cudaGraphExec_t exec,
                  std::vector<std::shared_ptr<void>> device_blocks, std::vector<std::shared_ptr<void>> pinned_blocks)
      : device_id_(device_id), stream_(stream), graph_(graph), exec_(exec),
        device_blocks_(std::move(device_blocks)), pinned_blocks_(std::move(pinned_blocks)) {}
  ~CudaCapturedRun() override {
    cudaSetDevice(device_id_);
    cudaStreamSynchronize(stream_);  // no replay in flight reads the blocks freed below
    cudaGraphExecDestroy(exec_);
    cudaGraphDestroy(graph_);
  }
  Status replay() override {
    ONYX_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_id_));
    return cuda_status(cudaGraphLaunch(exec_, stream_), "cudaGraphLaunch");
  }

 private:
  int device_id_;
  cudaStream_t stream_;
  cudaGraph_t graph_;
  cudaGraphExec_t exec_;
  std::vector<std::shared_ptr<void>> device_blocks_, pinned_blocks_;
};

}  // namespace

Status CudaProvider::copy_while_recording(const void* src, void* dst, size_t bytes) const {
  void* pinned = nullptr;
  ONYX_CUDA_RETURN_IF_ERROR(cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault));
  recording_pinned_.emplace_back(pinned, [](void* q) { cudaFreeHost(q); });
  std::memcpy(pinned, src, bytes);
  return cuda_status(cudaMemcpyAsync(dst, pinned, bytes, cudaMemcpyHostToDevice, stream_),
                     "cudaMemcpyAsync (host to device, recorded)");
}

Status CudaProvider::begin_capture() {
  if (!capture_runs_) return invalid_argument("the CUDA provider was made without enable_cuda_graph=1");
  if (recording_) return error(StatusCode::kInternal, "the CUDA provider is recording already");
  // the stream's earlier work done; a failed check it reported stays for synchronize() to return
  ONYX_RETURN_IF_ERROR(activate());
  ONYX_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
  arena_->begin_hold();
  if (Status s = cuda_status(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed), "cudaStreamBeginCapture");
      !s.ok()) {
    arena_->end_hold();
    return s;
  }
  recording_ = true;
  return Status::Ok();
}

Result<std::unique_ptr<CapturedRun>> CudaProvider::end_capture(bool keep) {
  if (!recording_) return error(StatusCode::kInternal, "the CUDA provider is not recording");
  ONYX_RETURN_IF_ERROR(activate());
  cudaGraph_t graph = nullptr;
  const cudaError_t ended = cudaStreamEndCapture(stream_, &graph);
  recording_ = false;
  std::vector<std::shared_ptr<void>> device_blocks = arena_->end_hold();
  std::vector<std::shared_ptr<void>> pinned_blocks;
  pinned_blocks.swap(recording_pinned_);
  if (ended != cudaSuccess || !keep) {
    cudaGetLastError();
    if (graph) cudaGraphDestroy(graph);
    if (!keep) return std::unique_ptr<CapturedRun>();
    return cuda_status(ended, "cudaStreamEndCapture (a call the run made cannot be part of a CUDA graph)");
  }
  cudaGraphExec_t exec = nullptr;
  if (Status s = cuda_status(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate"); !s.ok()) {
    cudaGraphDestroy(graph);
    return s;
  }
  return std::unique_ptr<CapturedRun>(new CudaCapturedRun(device_id_, stream_, graph, exec, std::move(device_blocks),
                                                          std::move(pinned_blocks)));
}

}  // namespace onyx
