/* Helpers the two files of c_api_extras_test share (c_api_extras_test.c, c_api_extras_more.c);
 * each file has its own `api` and failure count (capi_check.h). */
#ifndef ONYX_TESTS_CAPI_EXTRAS_H
#define ONYX_TESTS_CAPI_EXTRAS_H
#include <string.h>

#include "capi_check.h"

static inline OrtMemoryInfo* make_cpu_info(void) {
  OrtMemoryInfo* info = NULL;
  ok(api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &info), "CreateCpuMemoryInfo");
  return info;
}

/* c_api_extras_more.c: values, env options, the GPU, the CUDA options' pointers and the custom
 * op; returns its failure count. */
int extras_more(const OrtApi* the_api, OrtEnv* env, const char* stripes_model, const char* custom_op_model);

#endif
