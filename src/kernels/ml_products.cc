#include "kernels/ml_products.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "core/parallel.h"
#include "kernels/ml_common.h"
#include "kernels/onednn_matmul.h"
#include "kernels/vector_math.h"

namespace onyx::ml {
namespace {

// y[r][e] = x[r] . w[e] (+ bias[e]) for n rows, one dot product at a time.
void dot_products(const float* x, int64_t n, const float* w, int64_t rows, int64_t features, const float* bias,
                  float* y) {
  for (int64_t r = 0; r < n; ++r) {
    const float* a = x + r * features;
    for (int64_t e = 0; e < rows; ++e) {
      const float* b = w + e * features;
      float s = 0.0f;
#pragma omp simd reduction(+ : s)
      for (int64_t k = 0; k < features; ++k) s += a[k] * b[k];
      y[r * rows + e] = s + (bias ? bias[e] : 0.0f);
    }
  }
}

}  // namespace

Result<FloatRows> read_float_rows(KernelContext& ctx, int input, const char* op) {
  ONYX_RETURN_IF_ERROR(check_feature_input(ctx, input, op));
  const Tensor& x = ctx.input(input);
  const DataType t = x.dtype();
  FloatRows rows;
  rows.rows = x.rank() == 1 ? 1 : x.dim(0);
  rows.cols = x.rank() == 1 ? x.dim(0) : x.dim(1);
  if (t == DataType::kFloat) {
    rows.data = x.data<float>();
    return rows;
  }
  ONYX_ASSIGN_OR_RETURN(rows.scratch, ctx.allocate_scratch(DataType::kFloat, {x.numel()}));
  float* d = rows.scratch.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) d[i] = float(x.get_double(i));
  rows.data = d;
  return rows;
}

RowProducts::RowProducts() = default;
RowProducts::~RowProducts() = default;
RowProducts::RowProducts(RowProducts&&) noexcept = default;
RowProducts& RowProducts::operator=(RowProducts&&) noexcept = default;

Status RowProducts::init(std::vector<float> w, int64_t rows, int64_t features, std::vector<float> bias) {
  if (rows <= 0 || features <= 0 || int64_t(w.size()) != rows * features)
    return invalid_model("a matrix of ", w.size(), " values is not ", rows, " x ", features);
  if (bias.size() == 1 && rows > 1) bias.assign(size_t(rows), bias[0]);
  if (!bias.empty() && int64_t(bias.size()) != rows)
    return invalid_model(bias.size(), " biases for ", rows, " rows of coefficients");
  w_ = std::move(w);
  bias_ = std::move(bias);
  rows_ = rows;
  features_ = features;
  matmul_ = std::make_unique<onednn::MatMul>(onednn::MatMulEpilogue{.bias = !bias_.empty()});
  return Status::Ok();
}

Status RowProducts::run(const float* x, int64_t n, float* y) const {
  if (n == 0) return Status::Ok();
  // A few rows, or one or two columns of y (a regression's target, a binary classifier's
  // score): dot products, which cost less than oneDNN's call there (measured with
  // bench/ml_compare.py: 4 columns already run faster through oneDNN).
  if (n * rows_ * features_ <= 16384 || rows_ <= 2) {
    parallel_for(n, std::max<int64_t>(1, 65536 / (rows_ * features_)), [&](int64_t begin, int64_t end) {
      dot_products(x + begin * features_, end - begin, w_.data(), rows_, features_,
                   bias_.empty() ? nullptr : bias_.data(), y + begin * rows_);
    });
    return Status::Ok();
  }
  // A narrow product (few outputs a row) gains nothing from oneDNN's own threads (measured:
  // 10,000 x 32 by 32 x 4 took longer on 2 threads than on 1): one block of rows per thread
  // instead, each a single-threaded product (oneDNN runs serially inside a parallel region).
  const int threads = intra_op_threads();
  const int64_t block = threads > 1 && rows_ <= 64 && n >= 1024 ? (n + threads - 1) / threads : n;
  Status failed = Status::Ok();
  std::mutex failed_mu;
  parallel_for((n + block - 1) / block, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t r0 = b * block, rows = std::min(block, n - r0);
      const onednn::MatMulShape shape{{rows, features_}, {rows_, features_}, false, /*trans_b=*/true};
      Status s = matmul_->run(shape, x + r0 * features_, w_.data(), bias_.empty() ? nullptr : bias_.data(), y + r0 * rows_);
      if (!s.ok()) {  // the blocks fail alike (one shape); any one says why
        std::lock_guard<std::mutex> lock(failed_mu);
        failed = std::move(s);
      }
    }
  });
  return failed;
}

Status SvmKernelMatrix::init(const SvmKernel& kernel, std::vector<float> vectors, int64_t count, int64_t features) {
  kernel_ = kernel;
  ONYX_RETURN_IF_ERROR(products_.init(std::move(vectors), count, features));  // checks the dims
  if (kernel.type == SvmKernel::Type::kRbf) {
    const std::vector<float>& v = products_.weights();
    vector_norms_.resize(size_t(count));
    for (int64_t j = 0; j < count; ++j) {
      double s = 0;
      for (int64_t k = 0; k < features; ++k) s += double(v[size_t(j * features + k)]) * v[size_t(j * features + k)];
      vector_norms_[size_t(j)] = float(s);
    }
  }
  return Status::Ok();
}

Status SvmKernelMatrix::run(const float* x, int64_t n, float* y) const {
  ONYX_RETURN_IF_ERROR(products_.run(x, n, y));
  const int64_t count = products_.rows(), features = products_.features();
  const float gamma = float(kernel_.gamma), coef0 = float(kernel_.coef0);
  parallel_for(n, 16, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      float* row = y + r * count;
      switch (kernel_.type) {
        case SvmKernel::Type::kLinear: break;
        case SvmKernel::Type::kRbf: {
          double xx = 0;
          for (int64_t k = 0; k < features; ++k) xx += double(x[r * features + k]) * x[r * features + k];
          const float norm = float(xx);
          for (int64_t j = 0; j < count; ++j)
            row[j] = -gamma * std::max(0.0f, norm + vector_norms_[size_t(j)] - 2.0f * row[j]);
          vec::exp(row, row, count);
          break;
        }
        case SvmKernel::Type::kPoly:
          for (int64_t j = 0; j < count; ++j) {
            const float base = gamma * row[j] + coef0;
            float p = 1.0f;
            if (kernel_.degree < 0 || kernel_.degree > 16) {
              p = std::pow(base, float(kernel_.degree));
            } else {
              for (int64_t d = 0; d < kernel_.degree; ++d) p *= base;
            }
            row[j] = p;
          }
          break;
        case SvmKernel::Type::kSigmoid:
          for (int64_t j = 0; j < count; ++j) row[j] = std::tanh(gamma * row[j] + coef0);
          break;
      }
    }
  });
  return Status::Ok();
}

int64_t rows_per_block(int64_t width) { return std::max<int64_t>(16, (int64_t(1) << 20) / std::max<int64_t>(width, 1)); }

}  // namespace onyx::ml
