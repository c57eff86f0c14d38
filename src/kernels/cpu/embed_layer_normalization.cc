// com.microsoft EmbedLayerNormalization (contrib op, since 1): BERT's embedding block. For
// each token (b, s):
//   e = word_embedding[input_ids[b, s]] + position_embedding[p] (+ segment_embedding[segment_ids[b, s]])
//   output[b, s] = (e - mean(e)) / sqrt(var(e) + epsilon) * gamma + beta
// with p = position_ids[b, s] (row 0 of a (1, S) position_ids for every b) or s when absent.
//   inputs:  0 input_ids int32 (B, S); 1 segment_ids int32 (B, S), optional; 2 word_embedding
//            (Vw, H); 3 position_embedding (Vp, H); 4 segment_embedding (Vs, H), optional, with
//            segment_ids; 5 gamma (H); 6 beta (H), optional; 7 mask int32 (B, S), optional;
//            8 position_ids int32 (B, S) or (1, S), optional. Embeddings, gamma, beta: float32
//            or float16 (computed in float).
//   outputs: output (B, S, H); mask_index int32 (B), optional: the number of mask entries equal
//            to 1 in each row (zeros without a mask); embedding_sum (B, S, H), optional: e.
//   attribute epsilon (default 1e-12); mask_index_type only shapes the schema's inference.
// Ids outside their table are errors.
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "kernels/dispatch.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

class EmbedLayerNormalizationKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    epsilon_ = info.attr_float("epsilon", 1e-12f);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& ids = ctx.input(0);
    const Tensor* segment_ids = ctx.has_input(1) ? &ctx.input(1) : nullptr;
    const Tensor& words = ctx.input(2);
    const Tensor& positions = ctx.input(3);
    const Tensor* segments = ctx.has_input(4) ? &ctx.input(4) : nullptr;
    const Tensor& gamma = ctx.input(5);
    const Tensor* beta = ctx.has_input(6) ? &ctx.input(6) : nullptr;
    const Tensor* mask = ctx.has_input(7) ? &ctx.input(7) : nullptr;
    const Tensor* position_ids = ctx.has_input(8) ? &ctx.input(8) : nullptr;

    if (ids.rank() != 2 || ids.dtype() != DataType::kInt32)
      return invalid_argument("EmbedLayerNormalization: input_ids must be int32 (B, S), got ", ids.describe());
    const int64_t batch = ids.dim(0), seq = ids.dim(1);
    auto check_ids = [&](const Tensor* t, const char* name, bool one_row_ok) -> Status {
      if (!t) return Status::Ok();
      const bool shape_ok = t->shape() == ids.shape() || (one_row_ok && t->shape() == Shape{1, seq});
      if (t->dtype() != DataType::kInt32 || !shape_ok)
        return invalid_argument("EmbedLayerNormalization: ", name, " must be int32 ", shape_to_string(ids.shape()),
                                one_row_ok ? " or (1, S)" : "", ", got ", t->describe());
      return Status::Ok();
    };
    ONYX_RETURN_IF_ERROR(check_ids(segment_ids, "segment_ids", false));
    ONYX_RETURN_IF_ERROR(check_ids(mask, "mask", false));
    ONYX_RETURN_IF_ERROR(check_ids(position_ids, "position_ids", true));
    if ((segment_ids == nullptr) != (segments == nullptr))
      return invalid_argument("EmbedLayerNormalization: segment_ids and segment_embedding come together");
    if (words.rank() != 2) return invalid_argument("EmbedLayerNormalization: word_embedding must be 2-D, got ", words.describe());
    const int64_t hidden = words.dim(1);
    auto check_table = [&](const Tensor* t, const char* name) -> Status {
      if (t && (t->rank() != 2 || t->dim(1) != hidden || t->dtype() != words.dtype()))
        return invalid_argument("EmbedLayerNormalization: ", name, " must be (rows, ", hidden, ") of word_embedding's type, got ",
                                t->describe());
      return Status::Ok();
    };
    auto check_vector = [&](const Tensor* t, const char* name) -> Status {
      if (t && (t->rank() != 1 || t->dim(0) != hidden || t->dtype() != words.dtype()))
        return invalid_argument("EmbedLayerNormalization: ", name, " must be (", hidden, ") of word_embedding's type, got ",
                                t->describe());
      return Status::Ok();
    };
    ONYX_RETURN_IF_ERROR(check_table(&positions, "position_embedding"));
    ONYX_RETURN_IF_ERROR(check_table(segments, "segment_embedding"));
    ONYX_RETURN_IF_ERROR(check_vector(&gamma, "gamma"));
    ONYX_RETURN_IF_ERROR(check_vector(beta, "beta"));

    // Every id inside its table before anything is read.
    auto check_range = [&](const Tensor* t, int64_t rows, const char* name) -> Status {
      const int32_t* p = t->data<int32_t>();
      for (int64_t i = 0; i < t->numel(); ++i)
        if (p[i] < 0 || p[i] >= rows)
          return invalid_argument("EmbedLayerNormalization: ", name, " ", p[i], " at ", i, " is outside [0, ", rows, ")");
      return Status::Ok();
    };
    ONYX_RETURN_IF_ERROR(check_range(&ids, words.dim(0), "input_ids"));
    if (segment_ids) ONYX_RETURN_IF_ERROR(check_range(segment_ids, segments->dim(0), "segment_ids"));
    if (position_ids) ONYX_RETURN_IF_ERROR(check_range(position_ids, positions.dim(0), "position_ids"));
    if (!position_ids && seq > positions.dim(0))
      return invalid_argument("EmbedLayerNormalization: ", seq, " tokens but position_embedding has ", positions.dim(0), " rows");

    const Shape out_shape{batch, seq, hidden};
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, words.dtype(), out_shape));
    if (ctx.output_requested(1)) {
      ONYX_ASSIGN_OR_RETURN(Tensor* mask_index, ctx.allocate_output(1, DataType::kInt32, Shape{batch}));
      if (mask)
        for (int64_t b = 0; b < batch; ++b) {
          int32_t count = 0;
          for (int64_t s = 0; s < seq; ++s) count += mask->data<int32_t>()[b * seq + s] == 1 ? 1 : 0;
          mask_index->data<int32_t>()[b] = count;
        }
    }
    Tensor* sum = nullptr;
    if (ctx.output_requested(2)) {
      ONYX_ASSIGN_OR_RETURN(sum, ctx.allocate_output_uninitialized(2, words.dtype(), out_shape));
    }
    if (batch * seq == 0 || hidden == 0) return Status::Ok();
    const double eps = epsilon_;

    return dispatch<float, Float16>(words.dtype(), [&]<typename T>() -> Status {
      const size_t h = size_t(hidden);
      std::vector<float> g(h), bt(h, 0.f);
      for (size_t j = 0; j < h; ++j) {
        g[j] = float(gamma.data<T>()[j]);
        if (beta) bt[j] = float(beta->data<T>()[j]);
      }
      parallel_for(batch * seq, std::max<int64_t>(1, 8192 / hidden), [&](int64_t t0, int64_t t1) {
        std::vector<float> e(h);
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t s = t % seq;
          const int64_t p = position_ids ? position_ids->data<int32_t>()[position_ids->dim(0) == 1 ? s : t] : s;
          const T* w = words.data<T>() + int64_t(ids.data<int32_t>()[t]) * hidden;
          const T* pe = positions.data<T>() + p * hidden;
          const T* se = segments ? segments->data<T>() + int64_t(segment_ids->data<int32_t>()[t]) * hidden : nullptr;
          double total = 0;
          for (size_t j = 0; j < h; ++j) {
            e[j] = float(w[j]) + float(pe[j]) + (se ? float(se[j]) : 0.f);
            total += e[j];
          }
          if (sum)
            for (size_t j = 0; j < h; ++j) sum->data<T>()[size_t(t) * h + j] = T(e[j]);
          const double mean = total / double(hidden);
          double sq = 0;
          for (size_t j = 0; j < h; ++j) sq += (e[j] - mean) * (e[j] - mean);
          const double inv = 1.0 / std::sqrt(sq / double(hidden) + eps);
          T* out = y->data<T>() + size_t(t) * h;
          for (size_t j = 0; j < h; ++j) out[j] = T(float((e[j] - mean) * inv) * g[j] + bt[j]);
        }
      });
      return Status::Ok();
    });
  }

 private:
  float epsilon_ = 1e-12f;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "EmbedLayerNormalization", 1, kLatestOpset, EmbedLayerNormalizationKernel);

}  // namespace onyx
