// Lazily opened cuBLAS, cuBLASLt and cuDNN: see cuda_libraries.h for the contract.
//
// Every declaration from the libraries' headers made in this file is hidden, so the
// forwarding definitions below bind onyx's own calls at link time and never interpose on
// another copy of the libraries loaded into the same process (PyTorch's, say).
#pragma GCC visibility push(hidden)
#include <cublasLt.h>
#include <cublas_v2.h>
#ifdef ONYX_WITH_CUDNN
#include <cudnn.h>
#endif
#pragma GCC visibility pop

#include <dlfcn.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "providers/cuda/cuda_libraries.h"

#define ONYX_STRINGIFY_(x) #x
#define ONYX_STRINGIFY(x) ONYX_STRINGIFY_(x)

namespace onyx::cuda_libraries {
namespace {

// One shared library, opened at most once; the directory it was found in at build time
// is the fallback when the loader's search path lacks it.
class LazyLibrary {
 public:
  LazyLibrary(std::string soname, std::string what) : soname_(std::move(soname)), what_(std::move(what)) {}

  Status load() {
    std::call_once(once_, [this] { open(); });
    if (handle_ == nullptr) return runtime_error(error_);
    return Status::Ok();
  }

  // The library's function `name`, or null when the library or the function is missing.
  void* symbol(const char* name) {
    if (!load().ok()) return nullptr;
    return dlsym(handle_, name);
  }

  const std::string& soname() const { return soname_; }

 private:
  void open() {
    std::vector<std::string> candidates{soname_};
#ifdef ONYX_CUDA_LIBRARY_DIR
    candidates.push_back(std::string(ONYX_CUDA_LIBRARY_DIR) + "/" + soname_);
#endif
#ifdef ONYX_CUDNN_LIBRARY_DIR
    candidates.push_back(std::string(ONYX_CUDNN_LIBRARY_DIR) + "/" + soname_);
#endif
    std::string reasons;
    for (const std::string& path : candidates) {
      dlerror();
      if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
        handle_ = h;  // kept open for the life of the process
        return;
      }
      const char* why = dlerror();
      reasons += (reasons.empty() ? "" : "; ") + std::string(why ? why : path + ": not found");
    }
    error_ = "the CUDA provider needs " + what_ + " (" + soname_ + "), which could not be opened: " + reasons;
  }

  std::string soname_;
  std::string what_;
  std::once_flag once_;
  void* handle_ = nullptr;
  std::string error_;
};

LazyLibrary& cublas_library() {
  static LazyLibrary lib("libcublas.so." ONYX_STRINGIFY(CUBLAS_VER_MAJOR), "cuBLAS");
  return lib;
}
LazyLibrary& cublas_lt_library() {
  static LazyLibrary lib("libcublasLt.so." ONYX_STRINGIFY(CUBLAS_VER_MAJOR), "cuBLASLt");
  return lib;
}
#ifdef ONYX_WITH_CUDNN
LazyLibrary& cudnn_library() {
  static LazyLibrary lib("libcudnn.so." ONYX_STRINGIFY(CUDNN_MAJOR), "cuDNN");
  return lib;
}
#endif

// The real function `name` from `library`, looked up once it is found.
template <typename Fn>
Fn resolve(std::atomic<Fn>& cache, LazyLibrary& library, const char* name) {
  Fn fn = cache.load(std::memory_order_acquire);
  if (fn == nullptr) {
    fn = reinterpret_cast<Fn>(library.symbol(name));
    if (fn != nullptr) cache.store(fn, std::memory_order_release);
  }
  return fn;
}

}  // namespace

Status load_cublas() {
  ONYX_RETURN_IF_ERROR(cublas_library().load());
  return cublas_lt_library().load();
}

std::string cublas_soname() { return cublas_library().soname(); }
std::string cublas_lt_soname() { return cublas_lt_library().soname(); }

#ifdef ONYX_WITH_CUDNN
Status load_cudnn() { return cudnn_library().load(); }
std::string cudnn_soname() { return cudnn_library().soname(); }
#else
Status load_cudnn() { return runtime_error("this onyx was built without cuDNN"); }
std::string cudnn_soname() { return ""; }
#endif

}  // namespace onyx::cuda_libraries

// One forwarding definition: the real function's return type, name, parameters and the
// arguments passed on, and what to return when the library is missing.
#define ONYX_FORWARD(library, Ret, name, params, args, missing)                           \
  extern "C" Ret name params {                                                           \
    using Real = Ret(*) params; /* exactly this overload (cublasGemmEx has a C++ one) */ \
    static std::atomic<Real> real{nullptr};                                              \
    auto fn = ::onyx::cuda_libraries::resolve(real, ::onyx::cuda_libraries::library(), #name); \
    if (fn == nullptr) return missing;                                                    \
    return fn args;                                                                       \
  }

#define ONYX_CUBLAS(name, params, args) \
  ONYX_FORWARD(cublas_library, cublasStatus_t, name, params, args, CUBLAS_STATUS_NOT_INITIALIZED)

ONYX_CUBLAS(cublasCreate_v2, (cublasHandle_t* handle), (handle))
ONYX_CUBLAS(cublasDestroy_v2, (cublasHandle_t handle), (handle))
ONYX_CUBLAS(cublasSetStream_v2, (cublasHandle_t handle, cudaStream_t stream), (handle, stream))
ONYX_CUBLAS(cublasSetWorkspace_v2, (cublasHandle_t handle, void* workspace, size_t bytes), (handle, workspace, bytes))
ONYX_CUBLAS(cublasGemmEx,
            (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
             const void* alpha, const void* A, cudaDataType Atype, int lda, const void* B, cudaDataType Btype,
             int ldb, const void* beta, void* C, cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
             cublasGemmAlgo_t algo),
            (handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc, computeType,
             algo))
ONYX_CUBLAS(cublasGemmStridedBatchedEx,
            (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
             const void* alpha, const void* A, cudaDataType Atype, int lda, long long int strideA, const void* B,
             cudaDataType Btype, int ldb, long long int strideB, const void* beta, void* C, cudaDataType Ctype,
             int ldc, long long int strideC, int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo),
            (handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb, strideB, beta, C, Ctype,
             ldc, strideC, batchCount, computeType, algo))
ONYX_FORWARD(cublas_library, const char*, cublasGetStatusName, (cublasStatus_t status), (status),
             "(cuBLAS could not be opened)")
ONYX_FORWARD(cublas_library, const char*, cublasGetStatusString, (cublasStatus_t status), (status),
             "cuBLAS could not be opened")

ONYX_FORWARD(cublas_lt_library, cublasStatus_t, cublasLtCreate, (cublasLtHandle_t* handle), (handle),
             CUBLAS_STATUS_NOT_INITIALIZED)
ONYX_FORWARD(cublas_lt_library, cublasStatus_t, cublasLtDestroy, (cublasLtHandle_t handle), (handle),
             CUBLAS_STATUS_NOT_INITIALIZED)

#ifdef ONYX_WITH_CUDNN
#define ONYX_CUDNN(name, params, args) \
  ONYX_FORWARD(cudnn_library, cudnnStatus_t, name, params, args, CUDNN_STATUS_NOT_INITIALIZED)

ONYX_CUDNN(cudnnCreate, (cudnnHandle_t* handle), (handle))
ONYX_CUDNN(cudnnDestroy, (cudnnHandle_t handle), (handle))
ONYX_CUDNN(cudnnSetStream, (cudnnHandle_t handle, cudaStream_t stream), (handle, stream))
ONYX_CUDNN(cudnnCreateTensorDescriptor, (cudnnTensorDescriptor_t* desc), (desc))
ONYX_CUDNN(cudnnDestroyTensorDescriptor, (cudnnTensorDescriptor_t desc), (desc))
ONYX_CUDNN(cudnnSetTensorNdDescriptor,
           (cudnnTensorDescriptor_t desc, cudnnDataType_t type, int nbDims, const int dimA[], const int strideA[]),
           (desc, type, nbDims, dimA, strideA))
ONYX_CUDNN(cudnnCreateFilterDescriptor, (cudnnFilterDescriptor_t* desc), (desc))
ONYX_CUDNN(cudnnDestroyFilterDescriptor, (cudnnFilterDescriptor_t desc), (desc))
ONYX_CUDNN(cudnnSetFilterNdDescriptor,
           (cudnnFilterDescriptor_t desc, cudnnDataType_t type, cudnnTensorFormat_t format, int nbDims,
            const int filterDimA[]),
           (desc, type, format, nbDims, filterDimA))
ONYX_CUDNN(cudnnCreateConvolutionDescriptor, (cudnnConvolutionDescriptor_t* desc), (desc))
ONYX_CUDNN(cudnnDestroyConvolutionDescriptor, (cudnnConvolutionDescriptor_t desc), (desc))
ONYX_CUDNN(cudnnSetConvolutionNdDescriptor,
           (cudnnConvolutionDescriptor_t desc, int arrayLength, const int padA[], const int filterStrideA[],
            const int dilationA[], cudnnConvolutionMode_t mode, cudnnDataType_t computeType),
           (desc, arrayLength, padA, filterStrideA, dilationA, mode, computeType))
ONYX_CUDNN(cudnnSetConvolutionGroupCount, (cudnnConvolutionDescriptor_t desc, int groups), (desc, groups))
ONYX_CUDNN(cudnnSetConvolutionMathType, (cudnnConvolutionDescriptor_t desc, cudnnMathType_t math), (desc, math))
ONYX_CUDNN(cudnnGetConvolutionNdForwardOutputDim,
           (const cudnnConvolutionDescriptor_t conv, const cudnnTensorDescriptor_t x,
            const cudnnFilterDescriptor_t w, int nbDims, int outputDims[]),
           (conv, x, w, nbDims, outputDims))
ONYX_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7,
           (cudnnHandle_t handle, const cudnnTensorDescriptor_t x, const cudnnFilterDescriptor_t w,
            const cudnnConvolutionDescriptor_t conv, const cudnnTensorDescriptor_t y, const int requested,
            int* returned, cudnnConvolutionFwdAlgoPerf_t* results),
           (handle, x, w, conv, y, requested, returned, results))
ONYX_CUDNN(cudnnGetConvolutionForwardWorkspaceSize,
           (cudnnHandle_t handle, const cudnnTensorDescriptor_t x, const cudnnFilterDescriptor_t w,
            const cudnnConvolutionDescriptor_t conv, const cudnnTensorDescriptor_t y, cudnnConvolutionFwdAlgo_t algo,
            size_t* bytes),
           (handle, x, w, conv, y, algo, bytes))
ONYX_CUDNN(cudnnConvolutionForward,
           (cudnnHandle_t handle, const void* alpha, const cudnnTensorDescriptor_t xDesc, const void* x,
            const cudnnFilterDescriptor_t wDesc, const void* w, const cudnnConvolutionDescriptor_t convDesc,
            cudnnConvolutionFwdAlgo_t algo, void* workSpace, size_t workSpaceBytes, const void* beta,
            const cudnnTensorDescriptor_t yDesc, void* y),
           (handle, alpha, xDesc, x, wDesc, w, convDesc, algo, workSpace, workSpaceBytes, beta, yDesc, y))
ONYX_FORWARD(cudnn_library, const char*, cudnnGetErrorString, (cudnnStatus_t status), (status),
             "cuDNN could not be opened")
// The graph (backend) API, for convolutions planned once per shape (kernels/cuda/cudnn_conv_plan.h).
ONYX_CUDNN(cudnnBackendCreateDescriptor, (cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t* desc),
           (type, desc))
ONYX_CUDNN(cudnnBackendDestroyDescriptor, (cudnnBackendDescriptor_t desc), (desc))
ONYX_CUDNN(cudnnBackendFinalize, (cudnnBackendDescriptor_t desc), (desc))
ONYX_CUDNN(cudnnBackendSetAttribute,
           (cudnnBackendDescriptor_t desc, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
            int64_t count, const void* values),
           (desc, name, type, count, values))
ONYX_CUDNN(cudnnBackendGetAttribute,
           (cudnnBackendDescriptor_t const desc, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
            int64_t requested, int64_t* count, void* values),
           (desc, name, type, requested, count, values))
ONYX_CUDNN(cudnnBackendExecute, (cudnnHandle_t handle, cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t pack),
           (handle, plan, pack))
#endif
