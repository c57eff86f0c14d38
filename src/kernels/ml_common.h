// Shared pieces of the ai.onnx.ml kernels: the score post-transforms, reading a feature
// input as rows of doubles, and class labels (int64 or string).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/kernel.h"

namespace onyx::ml {

enum class PostTransform { kNone, kSoftmax, kLogistic, kSoftmaxZero, kProbit };

// "NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO" or "PROBIT"; anything else is INVALID_MODEL.
Result<PostTransform> parse_post_transform(const std::string& text, const char* op);

double logistic(double v);
// sqrt(2) * erfinv(2v - 1), erfinv by Winitzki's approximation (a = 0.147), as ONNX-ML's
// PROBIT specifies; v outside (0, 1) gives NaN or infinity.
double probit(double v);
// Softmax of n values in place.
void softmax(double* v, int64_t n);
// As softmax, except that values within 1e-7 of zero are taken as exp(-inf): they stay 0
// (scaled by exp(-max)); all-zero rows become 0.5 each.
void softmax_zero(double* v, int64_t n);
// Applies `t` to one row of n scores in place (LOGISTIC and PROBIT per element).
void post_transform_row(PostTransform t, double* v, int64_t n);

// Checks that input `input` is a feature input X: float, double, int64 or int32, [C] (one row)
// or [N, C]; INVALID_ARGUMENT / NOT_IMPLEMENTED naming `op` otherwise.
Status check_feature_input(const KernelContext& ctx, int input, const char* op);

// A feature input X of float, double, int64 or int32: [C] (one row) or [N, C]. `rows` and
// `cols` receive N and C; `out` (from scratch memory) the values as doubles, row-major.
// Other ranks or types are INVALID_ARGUMENT / NOT_IMPLEMENTED naming `op`.
Status read_feature_rows(KernelContext& ctx, int input, const char* op, int64_t* rows, int64_t* cols, Tensor* out);

// Class labels from classlabels_ints / classlabels_strings style attributes: exactly one of
// them non-empty (INVALID_MODEL otherwise, unless `optional`: then neither means no labels).
struct ClassLabels {
  bool strings = false;
  std::vector<int64_t> ints;
  std::vector<std::string> names;
  int64_t size() const { return strings ? int64_t(names.size()) : int64_t(ints.size()); }
  static Result<ClassLabels> parse(const KernelInfo& info, const char* ints_attr, const char* strings_attr,
                                   const char* op, bool optional = false);
  // Allocates output `i` as int64 or string [n] for the labels chosen by class index.
  Status write(KernelContext& ctx, int i, const std::vector<int64_t>& chosen) const;
};

}  // namespace onyx::ml
