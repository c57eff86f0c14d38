// cuBLAS, cuBLASLt and cuDNN are opened when the CUDA provider first needs them, not when
// the process starts: linked directly, cuBLASLt alone costs every process ~150 MB of RSS
// (its relocations and static initialisers) whether or not it ever runs on a GPU.
//
// cuda_libraries.cc defines, with hidden visibility, each cuBLAS/cuBLASLt/cuDNN function
// onyx calls; each forwards to the real one, found with dlsym in a library opened on first
// use. Code calls the libraries' functions as usual; only the link line changes (cudart
// stays linked: it is small, and kernel launches need it at static-initialisation time).
//
// Contract: a forwarded call made when its library cannot be opened returns the library's
// NOT_INITIALIZED status (or a string saying the library is missing); the provider calls
// load_cublas()/load_cudnn() first, so its own error names the library and dlerror's reason.
#pragma once
#include <string>

#include "core/status.h"

namespace onyx::cuda_libraries {

// Opens libcublas and libcublasLt (the sonames of the headers onyx was built with),
// once per process; later calls return the first call's verdict.
Status load_cublas();
// The same for libcudnn. Only in builds with cuDNN.
Status load_cudnn();
// The file names onyx opens, for messages and tests ("libcublasLt.so.13").
std::string cublas_soname();
std::string cublas_lt_soname();
std::string cudnn_soname();

}  // namespace onyx::cuda_libraries
