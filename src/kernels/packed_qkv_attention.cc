#include "kernels/packed_qkv_attention.h"

#include <algorithm>

#include "core/parallel.h"
#include "kernels/vector_math.h"

namespace onyx {
namespace {

constexpr int64_t kScoresBudget = int64_t(1) << 22;  // floats of scores per group of heads

}  // namespace

Result<AttentionMask> AttentionMask::read(const Tensor* mask, int64_t batch, int64_t seq, int64_t keys,
                                          const char* op) {
  AttentionMask m;
  m.batch_ = batch;
  m.seq_ = seq;
  m.keys_ = keys;
  if (!mask) return m;
  if (mask->dtype() != DataType::kInt32 && mask->dtype() != DataType::kInt64)
    return invalid_argument(op, ": mask_index must be int32, got ", mask->describe());
  const Shape& s = mask->shape();
  if (s == Shape{batch}) m.kind_ = Kind::kEnd;
  else if (s == Shape{2 * batch}) m.kind_ = Kind::kEndStart;
  else if (s == Shape{batch, keys}) m.kind_ = Kind::kRaw2;
  else if (s == Shape{batch, seq, keys}) m.kind_ = Kind::kRaw3;
  else
    return not_implemented(op, ": mask_index ", mask->describe(), " (takes [", batch, "], [", 2 * batch, "], [", batch,
                           ", ", keys, "] or [", batch, ", ", seq, ", ", keys, "])");
  m.values_.resize(size_t(mask->numel()));
  for (int64_t k = 0; k < mask->numel(); ++k) m.values_[size_t(k)] = mask->get_int64(k);
  return m;
}

bool AttentionMask::masked(int64_t b, int64_t i, int64_t j) const {
  switch (kind_) {
    case Kind::kNone: return false;
    case Kind::kEnd: return j >= values_[size_t(b)];
    case Kind::kEndStart: return j >= values_[size_t(b)] || j < values_[size_t(batch_ + b)];
    case Kind::kRaw2: return values_[size_t(b * keys_ + j)] <= 0;
    case Kind::kRaw3: return values_[size_t((b * seq_ + i) * keys_ + j)] <= 0;
  }
  return false;
}

Status run_packed_qkv_attention(KernelContext& ctx, const onednn::HeadProducts& products, const PackedQkvAttention& p,
                                const float* qkv, int64_t batch, int64_t seq, int64_t hq, int64_t hv,
                                const AttentionMask& mask, const Tensor* attn_bias, float* y, const char* op) {
  const int64_t heads = p.heads, width = 2 * hq + hv, h = hq / heads, dh = hv / heads;
  if (attn_bias &&
      (attn_bias->dtype() != DataType::kFloat || attn_bias->rank() != 4 ||
       (attn_bias->dim(0) != 1 && attn_bias->dim(0) != batch) || (attn_bias->dim(1) != 1 && attn_bias->dim(1) != heads) ||
       attn_bias->dim(2) != seq || attn_bias->dim(3) != seq))
    return invalid_argument(op, ": attention_bias ", attn_bias->describe(), " must be float32 [", batch, " or 1, ",
                            heads, " or 1, ", seq, ", ", seq, "]");
  if (batch * seq == 0) return Status::Ok();
  const int64_t group = std::clamp<int64_t>(kScoresBudget / std::max<int64_t>(1, seq * seq), 1, heads);
  ONYX_ASSIGN_OR_RETURN(Tensor scores, ctx.allocate_scratch(DataType::kFloat, {group, seq, seq}));
  float* pp = scores.data<float>();
  const float* ap = attn_bias ? attn_bias->data<float>() : nullptr;
  for (int64_t b = 0; b < batch; ++b) {
    const float* rows = qkv + b * seq * width;
    for (int64_t n0 = 0; n0 < heads; n0 += group) {
      const int64_t count = std::min(group, heads - n0);
      ONYX_RETURN_IF_ERROR(products.scores(rows + n0 * h, width, rows + hq + n0 * h, width, pp, count, seq, seq, h, p.scale));
      parallel_for(count * seq, std::max<int64_t>(1, 8192 / seq), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) {
          const int64_t n = n0 + r / seq, i = r % seq;
          float* row = pp + r * seq;
          const float* bias_row =
              ap ? ap + (((attn_bias->dim(0) == 1 ? 0 : b) * attn_bias->dim(1) + (attn_bias->dim(1) == 1 ? 0 : n)) * seq + i) * seq
                 : nullptr;
          for (int64_t j = 0; j < seq; ++j) {
            float add = mask.masked(b, i, j) ? p.mask_filter_value : 0.f;
            if (p.causal && j > i) add += p.mask_filter_value;
            if (bias_row) add += bias_row[j];
            row[j] += add;
          }
          vec::softmax_row(row, row, seq);
        }
      });
      ONYX_RETURN_IF_ERROR(
          products.context(pp, rows + 2 * hq + n0 * dh, width, y + b * seq * hv + n0 * dh, hv, count, seq, seq, dh));
    }
  }
  return Status::Ok();
}

}  // namespace onyx
