/* The checking helpers of the C tests of onyx's C API (c_api_test.c, c_api_values_test.c,
 * custom_ops_test.c ...): a failure counter, CHECK, and three ways to take an OrtStatus. Each test
 * sets `api` from OrtGetApiBase() before calling them. */
#ifndef ONYX_TESTS_CAPI_CHECK_H
#define ONYX_TESTS_CAPI_CHECK_H
#include <stdio.h>
#include <string.h>

#include "onnxruntime_c_api.h"

static int failures = 0;
#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                                \
    }                                                                            \
  } while (0)

static const OrtApi* api;

/* OK, or prints the status and counts a failure. */
static int ok(OrtStatus* status, const char* what) {
  if (!status) return 1;
  fprintf(stderr, "%s failed: %s\n", what, api->GetErrorMessage(status));
  api->ReleaseStatus(status);
  ++failures;
  return 0;
}

/* The code of a failing call (ORT_OK when it succeeded), releasing its status. */
static inline OrtErrorCode code_of(OrtStatus* status) {
  OrtErrorCode code = status ? api->GetErrorCode(status) : ORT_OK;
  if (status) api->ReleaseStatus(status);
  return code;
}

/* The call failed with `code` and a message containing `text` (NULL: any); releases its
 * status. A call that succeeded instead is reported. */
static inline int failed_with(OrtStatus* status, OrtErrorCode code, const char* text) {
  if (!status) {
    fprintf(stderr, "expected a failure, the call succeeded\n");
    return 0;
  }
  int match = api->GetErrorCode(status) == code && (!text || strstr(api->GetErrorMessage(status), text));
  if (!match) fprintf(stderr, "unexpected status %d: %s\n", (int)api->GetErrorCode(status), api->GetErrorMessage(status));
  api->ReleaseStatus(status);
  return match;
}

#endif
