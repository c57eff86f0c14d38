// cuBLAS, cuBLASLt and cuDNN are opened on first use (providers/cuda/cuda_libraries.h):
// loading reports the library by name, and calls made through onyx's forwarding
// definitions reach the real libraries. None of this needs a GPU: the functions tried
// here answer without a device. (That a process which never asks for CUDA does not map
// cuBLASLt is checked from Python, in a fresh process: tests/python/test_cuda_libraries.py.)
#include <gtest/gtest.h>

#ifdef ONYX_WITH_CUDA
#include <cublas_v2.h>
#ifdef ONYX_WITH_CUDNN
#include <cudnn.h>
#endif

#include <fstream>
#include <sstream>
#include <string>

#include "providers/cuda/cuda_libraries.h"

namespace onyx {
namespace {

std::string process_maps() {
  std::ifstream in("/proc/self/maps");
  std::stringstream all;
  all << in.rdbuf();
  return all.str();
}

TEST(CudaLibraries, CublasOpensOnRequestAndCallsReachIt) {
  const Status loaded = cuda_libraries::load_cublas();
  ASSERT_TRUE(loaded.ok()) << loaded.to_string();
  EXPECT_TRUE(cuda_libraries::load_cublas().ok());  // once per process, same verdict
  const std::string maps = process_maps();
  EXPECT_NE(maps.find(cuda_libraries::cublas_soname()), std::string::npos);
  EXPECT_NE(maps.find(cuda_libraries::cublas_lt_soname()), std::string::npos);
  EXPECT_STREQ(cublasGetStatusName(CUBLAS_STATUS_SUCCESS), "CUBLAS_STATUS_SUCCESS");
  EXPECT_STREQ(cublasGetStatusName(CUBLAS_STATUS_NOT_INITIALIZED), "CUBLAS_STATUS_NOT_INITIALIZED");
}

TEST(CudaLibraries, CreatingAHandleWithoutADeviceIsAStatusNotACrash) {
  ASSERT_TRUE(cuda_libraries::load_cublas().ok());
  cublasHandle_t handle = nullptr;
  const cublasStatus_t s = cublasCreate(&handle);
  if (s == CUBLAS_STATUS_SUCCESS) {  // a machine with a GPU
    EXPECT_NE(handle, nullptr);
    EXPECT_EQ(cublasDestroy(handle), CUBLAS_STATUS_SUCCESS);
  } else {
    EXPECT_STRNE(cublasGetStatusName(s), "");
  }
}

TEST(CudaLibraries, SonamesFollowTheHeadersOnyxWasBuiltWith) {
  EXPECT_EQ(cuda_libraries::cublas_soname(), "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR));
  EXPECT_EQ(cuda_libraries::cublas_lt_soname(), "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR));
}

#ifdef ONYX_WITH_CUDNN
TEST(CudaLibraries, CudnnOpensOnRequestAndCallsReachIt) {
  const Status loaded = cuda_libraries::load_cudnn();
  ASSERT_TRUE(loaded.ok()) << loaded.to_string();
  EXPECT_EQ(cuda_libraries::cudnn_soname(), "libcudnn.so." + std::to_string(CUDNN_MAJOR));
  EXPECT_NE(process_maps().find(cuda_libraries::cudnn_soname()), std::string::npos);
  EXPECT_STREQ(cudnnGetErrorString(CUDNN_STATUS_SUCCESS), "CUDNN_STATUS_SUCCESS");
  cudnnTensorDescriptor_t desc = nullptr;  // descriptors need no device
  ASSERT_EQ(cudnnCreateTensorDescriptor(&desc), CUDNN_STATUS_SUCCESS);
  const int dims[4] = {1, 2, 3, 4}, strides[4] = {24, 12, 4, 1};
  EXPECT_EQ(cudnnSetTensorNdDescriptor(desc, CUDNN_DATA_FLOAT, 4, dims, strides), CUDNN_STATUS_SUCCESS);
  EXPECT_EQ(cudnnDestroyTensorDescriptor(desc), CUDNN_STATUS_SUCCESS);
}
#endif

}  // namespace
}  // namespace onyx
#endif  // ONYX_WITH_CUDA
