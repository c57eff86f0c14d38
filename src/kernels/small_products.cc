#include "kernels/small_products.h"

#include <algorithm>
#include <vector>

#include "core/parallel.h"
#include "kernels/small_matmul.h"
#include "kernels/vector_math.h"

namespace onyx {
namespace {

constexpr int64_t kMaxRows = 4;
constexpr int64_t kMaxProductsPerItem = int64_t(1) << 14;

// c[r * ldc + j] = scale * dot(a row r, b row j) over `inner`: b stored [cols, inner] (op(b) = b^T).
void rows_times_rows(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t rows,
                     int64_t cols, int64_t inner, float scale) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j) c[r * ldc + j] = scale * vec::dot(a + r * lda, b + j * ldb, inner);
}

}  // namespace

bool small_batched_matmul(const onednn::MatMulShape& shape, float alpha, const float* a, const float* b, float* y) {
  const size_t rank = shape.a.size();
  if (shape.trans_a || rank < 2 || shape.b.size() != rank) return false;
  const int64_t m = shape.a[rank - 2], k = shape.a[rank - 1];
  const int64_t n = shape.trans_b ? shape.b[rank - 2] : shape.b[rank - 1];
  if ((shape.trans_b ? shape.b[rank - 1] : shape.b[rank - 2]) != k) return false;
  if (m > kMaxRows && m * n * k > kMaxProductsPerItem) return false;
  if (m * n * k > 4 * kMaxProductsPerItem) return false;
  // Batch items: a's and b's index into their own (broadcast) batch for every output item.
  std::vector<int64_t> out_batch;
  int64_t items = 1;
  for (size_t i = 0; i + 2 < rank; ++i) {
    if (shape.a[i] != shape.b[i] && shape.a[i] != 1 && shape.b[i] != 1) return false;
    out_batch.push_back(std::max(shape.a[i], shape.b[i]));
    items *= out_batch.back();
  }
  if (items == 0 || m == 0 || n == 0) return true;  // nothing to write
  const int64_t a_item = m * k, b_item = k * n, y_item = m * n;
  const int64_t grain = std::max<int64_t>(1, kMaxProductsPerItem / std::max<int64_t>(1, m * n * k));
  parallel_for(items, grain, [&](int64_t i0, int64_t i1) {
    for (int64_t item = i0; item < i1; ++item) {
      int64_t rest = item, a_index = 0, b_index = 0, a_stride = 1, b_stride = 1;
      for (size_t d = out_batch.size(); d-- > 0;) {
        const int64_t at = rest % out_batch[d];
        rest /= out_batch[d];
        a_index += (shape.a[d] == 1 ? 0 : at) * a_stride;
        b_index += (shape.b[d] == 1 ? 0 : at) * b_stride;
        a_stride *= shape.a[d];
        b_stride *= shape.b[d];
      }
      const float* ai = a + a_index * a_item;
      const float* bi = b + b_index * b_item;
      float* yi = y + item * y_item;
      if (k == 0) {
        std::fill(yi, yi + y_item, 0.f);
      } else if (shape.trans_b) {
        rows_times_rows(ai, k, bi, k, yi, n, m, n, k, alpha);
      } else {
        small_matmul(ai, k, bi, n, yi, n, m, n, k, alpha);
      }
    }
  });
  return true;
}

}  // namespace onyx
