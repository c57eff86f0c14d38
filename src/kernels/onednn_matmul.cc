#include "kernels/onednn_matmul.h"

#include <algorithm>
#include <unordered_map>

#include "kernels/gelu_common.h"
#include "kernels/onednn.h"
#include "kernels/small_products.h"

namespace onyx::onednn {
namespace {

constexpr size_t kMaxCachedShapes = 32;

using dt = dnnl::memory::data_type;

// The descriptor of an operand stored with dims `stored` (last two swapped when `trans`),
// described in the logical [batch..., rows, cols] order oneDNN expects, of element type `type`.
dnnl::memory::desc operand_desc(const std::vector<int64_t>& stored, bool trans, dt type = dt::f32) {
  dnnl::memory::dims d = dims(stored);
  dnnl::memory::dims s = dense_strides(d);
  if (trans) {
    std::swap(d[d.size() - 1], d[d.size() - 2]);
    std::swap(s[s.size() - 1], s[s.size() - 2]);
  }
  return dnnl::memory::desc(d, type, s);
}

int64_t rows(const std::vector<int64_t>& stored, bool trans) { return stored[stored.size() - (trans ? 1 : 2)]; }
int64_t cols(const std::vector<int64_t>& stored, bool trans) { return stored[stored.size() - (trans ? 2 : 1)]; }

dnnl::memory::dims output_dims(const MatMulShape& s) {
  const size_t r = s.a.size();
  dnnl::memory::dims d(r);
  for (size_t i = 0; i + 2 < r; ++i) d[i] = std::max(s.a[i], s.b[i]);
  d[r - 2] = rows(s.a, s.trans_a);
  d[r - 1] = cols(s.b, s.trans_b);
  return d;
}

// The 2-D product an unpacked plain-B shape folds to, for oneDNN's sgemm: b without batch
// (all its batch dims 1); a's batch folded into its rows when a is not transposed, else a
// without batch too.
struct PlainProduct {
  int64_t m = 0, n = 0, k = 0;
};
bool fold_to_plain_product(const MatMulShape& s, PlainProduct& p) {
  const size_t r = s.a.size();
  int64_t a_batch = 1;
  for (size_t i = 0; i + 2 < r; ++i) {
    if (s.b[i] != 1) return false;
    a_batch *= s.a[i];
  }
  if (s.trans_a && a_batch != 1) return false;
  p.m = rows(s.a, s.trans_a) * a_batch;
  p.k = cols(s.a, s.trans_a);
  p.n = cols(s.b, s.trans_b);
  return p.m > 0 && p.n > 0 && p.k > 0;
}

// Whether oneDNN's sgemm beats its matmul primitive on a product whose b is float32 as
// stored (not packed). Measured with oneDNN 2.6 (AVX-512, 1 and 2 threads) on the training
// shapes of a BERT-like encoder and a GPT-2-like decoder (bench/RESULTS.md, eighth session):
// with b not transposed, sgemm is faster by 3-80% (GPT-2's 128 x 3072 x 768 input gradient:
// 90 -> 162 GFLOP/s; the LM head's 128 x 768 x 50257: 104 -> 154), except with a stored
// transposed over a power-of-two number of rows >= 512 (1024 x 256 x 1024 weight gradients:
// 133 against the primitive's 172). With b transposed the primitive is as fast or faster.
bool sgemm_preferred(const MatMulShape& s, const PlainProduct& p) {
  if (s.trans_b) return false;
  const bool power_of_two_rows = (p.m & (p.m - 1)) == 0;
  return !(s.trans_a && power_of_two_rows && p.m >= 512);
}

}  // namespace

Status check_matmul_shape(const MatMulShape& s) {
  if (s.a.size() < 2 || s.a.size() != s.b.size())
    return invalid_argument("matmul operands must have one rank >= 2, got ranks ", s.a.size(), " and ", s.b.size());
  for (size_t i = 0; i + 2 < s.a.size(); ++i)
    if (s.a[i] != s.b[i] && s.a[i] != 1 && s.b[i] != 1)
      return invalid_argument("matmul batch dim ", i, " does not broadcast: ", s.a[i], " vs ", s.b[i]);
  if (cols(s.a, s.trans_a) != rows(s.b, s.trans_b))
    return invalid_argument("matmul inner dims differ: ", cols(s.a, s.trans_a), " vs ", rows(s.b, s.trans_b));
  return Status::Ok();
}

bool bf16_products_available() {
  static const bool available = [] {
    const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
    return isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx;
  }();
  return available;
}

Result<PackedWeights> MatMul::pack_constant_b(const Tensor& b, bool trans_b, int64_t m_hint, bool bf16) {
  if (b.dtype() != DataType::kFloat) return error(StatusCode::kInternal, "pack_constant_b packs float32 weights only");
  // A pending copy's bytes may sit at any address; oneDNN's reorder reads its source with
  // unaligned vector loads, so the weight is packed straight from the mapped file.
  return pack_bytes(b.bytes_in_place(), b.shape(), trans_b, m_hint, bf16);
}

Result<PackedWeights> MatMul::pack_b(const float* b, const std::vector<int64_t>& b_dims, bool trans_b,
                                     int64_t m_hint, bool bf16) {
  return pack_bytes(b, b_dims, trans_b, m_hint, bf16);
}

Result<PackedWeights> MatMul::pack_bytes(const void* b, const std::vector<int64_t>& b_dims, bool trans_b,
                                         int64_t m_hint, bool bf16) {
  if (b_dims.size() != 2) return error(StatusCode::kInternal, "matmul packs 2-D weights only");
  const dnnl::memory::desc b_plain = operand_desc(b_dims, trans_b);
  const int64_t k = rows(b_dims, trans_b), n = cols(b_dims, trans_b);
  const dt type = bf16 && bf16_products_available() ? dt::bf16 : dt::f32;
  PackedWeights packed;
  ONYX_RETURN_IF_ERROR(guarded("weight packing", [&] {
    const dnnl::memory::dims a_dims = {std::max<int64_t>(1, m_hint), k}, y_dims = {std::max<int64_t>(1, m_hint), n};
    const dnnl::memory::desc a_md(a_dims, type, dense_strides(a_dims));
    const dnnl::matmul::primitive_desc pd(
        dnnl::matmul::desc(a_md, dnnl::memory::desc(b_plain.dims(), type, dnnl::memory::format_tag::any),
                           f32_desc(y_dims, dense_strides(y_dims))),
        base_attr(), engine());
    const dnnl::memory src(b_plain, engine(), const_cast<void*>(b));
    packed = std::make_shared<const dnnl::memory>(reorder_copy(src, pd.weights_desc()));
  }));
  return packed;
}

void MatMul::use_packed_b(PackedWeights packed) {
  packed_b_ = std::move(packed);
  row_panels_ready_ = packed_b_ && describe_row_panels(packed_b_->get_desc(), row_panels_);
}

int64_t MatMul::panel_product_rows(const MatMulShape& shape) const {
  if (!row_panels_ready_ || shape.trans_a) return 0;
  PlainProduct p;
  if (!fold_to_plain_product(shape, p) || !row_panels_take(row_panels_, p.m) || p.k != row_panels_.k ||
      p.n != row_panels_.n)
    return 0;
  if (epilogue_.activation == dnnl::algorithm::undef) return p.m;
  // GELU after the bias, as FusedMatMulBias asks; other activations stay with oneDNN.
  const bool gelu = epilogue_.activation == dnnl::algorithm::eltwise_gelu_erf ||
                    epilogue_.activation == dnnl::algorithm::eltwise_gelu_tanh;
  return gelu && !epilogue_.accumulate && epilogue_.alpha == 1.0f ? p.m : 0;
}

Result<std::shared_ptr<const MatMul::Entry>> MatMul::entry_for(const MatMulShape& shape) const {
  std::vector<int64_t> key = shape.a;
  key.insert(key.end(), shape.b.begin(), shape.b.end());
  key.push_back(shape.trans_a * 2 + shape.trans_b);
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;

  const dnnl::memory::desc a_f32 = operand_desc(shape.a, shape.trans_a);
  const dnnl::memory::desc b_plain = operand_desc(shape.b, shape.trans_b);
  const bool bf16 = packed_b_ && packed_b_->get_desc().data_type() == dt::bf16;
  const dnnl::memory::desc a_md = bf16 ? operand_desc(shape.a, shape.trans_a, dt::bf16) : a_f32;
  const dnnl::memory::dims y_dims = output_dims(shape);
  const dnnl::memory::desc y_md = f32_desc(y_dims, dense_strides(y_dims));
  dnnl::memory::dims bias_dims(y_dims.size(), 1);
  bias_dims.back() = y_dims.back();
  const dnnl::memory::desc bias_md =
      epilogue_.bias ? f32_desc(bias_dims, dense_strides(bias_dims)) : dnnl::memory::desc();

  dnnl::primitive_attr attr = base_attr();
  if (epilogue_.alpha != 1.0f) attr.set_output_scales(0, {epilogue_.alpha});
  dnnl::post_ops ops;
  if (epilogue_.accumulate) ops.append_sum(1.0f);
  if (epilogue_.activation != dnnl::algorithm::undef)
    ops.append_eltwise(1.0f, epilogue_.activation, epilogue_.activation_alpha, epilogue_.activation_beta);
  attr.set_post_ops(ops);

  auto make = [&](const dnnl::memory::desc& b_md) {
    return dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, bias_md, y_md), attr, engine());
  };
  auto entry = std::make_shared<Entry>();
  Status s = guarded("matmul setup", [&] {
    if (!packed_b_) {
      entry->pd = make(b_plain);
    } else {
      // The packed b as this shape's rank sees it (leading 1s are free in oneDNN's layouts
      // only through reshape: ask for the packed layout and fall back to a copy).
      const dnnl::memory::desc packed_md = packed_b_->get_desc();
      bool direct = false;
      if (packed_md.dims() == b_plain.dims()) {
        try {
          entry->pd = make(packed_md);
          direct = true;
        } catch (const dnnl::error&) {
          direct = false;  // this shape's primitive wants another layout
        }
      }
      if (!direct) {
        entry->pd = make(dnnl::memory::desc(b_plain.dims(), bf16 ? dt::bf16 : dt::f32, dnnl::memory::format_tag::any));
        const dnnl::memory packed_view(packed_md.reshape(b_plain.dims()), engine(), packed_b_->get_data_handle());
        entry->own_b = reorder_copy(packed_view, entry->pd.weights_desc());
        entry->has_own_b = true;
      }
    }
    entry->prim = dnnl::matmul(entry->pd);
    if (bf16) {
      entry->bf16_src = true;
      entry->a_f32 = a_f32;
      entry->to_bf16_pd = dnnl::reorder::primitive_desc(engine(), a_f32, engine(), entry->pd.src_desc(), base_attr());
      entry->to_bf16 = dnnl::reorder(entry->to_bf16_pd);
    }
  });
  ONYX_RETURN_IF_ERROR(s);
  if (cache_.size() >= kMaxCachedShapes) cache_.clear();  // dynamic shapes: keep the cache bounded
  cache_.emplace(std::move(key), entry);
  return std::shared_ptr<const Entry>(entry);
}

Status MatMul::run(const MatMulShape& shape, const float* a, const float* b, const float* bias, float* y) const {
  ONYX_RETURN_IF_ERROR(check_matmul_shape(shape));
  if (epilogue_.bias && (!bias || epilogue_.alpha != 1.0f))
    return error(StatusCode::kInternal, "matmul bias needs a bias pointer and alpha 1");
  // Tiny products with a B of their own (attention over a growing cache): no primitive.
  if (!packed_b_ && !epilogue_.bias && !epilogue_.accumulate && epilogue_.activation == dnnl::algorithm::undef &&
      small_batched_matmul(shape, epilogue_.alpha, a, b, y))
    return Status::Ok();
  // A few rows (decoding) against packed weights: stream the panels.
  if (const int64_t rows = panel_product_rows(shape)) {
    row_times_panels(row_panels_, packed_b_->get_data_handle(), a, rows, epilogue_.alpha,
                     epilogue_.bias ? bias : nullptr, epilogue_.accumulate, y);
    if (epilogue_.activation != dnnl::algorithm::undef)
      gelu_row(epilogue_.activation == dnnl::algorithm::eltwise_gelu_erf ? GeluKind::kErf : GeluKind::kTanh, y, nullptr,
               y, rows * row_panels_.n);
    return Status::Ok();
  }
  PlainProduct p;
  if (!packed_b_ && !epilogue_.bias && epilogue_.activation == dnnl::algorithm::undef &&
      fold_to_plain_product(shape, p) && sgemm_preferred(shape, p)) {
    // Row-major operands as stored: a is m x k (k x m when transposed), b is k x n.
    const dnnl_status_t st = dnnl_sgemm(shape.trans_a ? 'T' : 'N', 'N', p.m, p.n, p.k, epilogue_.alpha, a,
                                        shape.trans_a ? p.m : p.k, b, p.n, epilogue_.accumulate ? 1.f : 0.f, y, p.n);
    if (st != dnnl_success) return error(StatusCode::kInternal, "oneDNN sgemm failed for ", p.m, "x", p.n, "x", p.k);
    return Status::Ok();
  }
  ONYX_ASSIGN_OR_RETURN(auto entry, entry_for(shape));
  return guarded("matmul", [&] {
    std::unordered_map<int, dnnl::memory> args;
    if (entry->bf16_src) {
      const dnnl::memory a_f32(entry->a_f32, engine(), const_cast<float*>(a));
      const dnnl::memory a_bf16(entry->pd.src_desc(), engine(),
                                thread_scratch(kSourceScratch, entry->pd.src_desc().get_size()));
      std::unordered_map<int, dnnl::memory> convert{{DNNL_ARG_FROM, a_f32}, {DNNL_ARG_TO, a_bf16}};
      execute(entry->to_bf16, entry->to_bf16_pd, convert);
      args[DNNL_ARG_SRC] = a_bf16;
    } else {
      args[DNNL_ARG_SRC] = dnnl::memory(entry->pd.src_desc(), engine(), const_cast<float*>(a));
    }
    if (entry->has_own_b) args[DNNL_ARG_WEIGHTS] = entry->own_b;
    else if (packed_b_) args[DNNL_ARG_WEIGHTS] = *packed_b_;
    else args[DNNL_ARG_WEIGHTS] = dnnl::memory(entry->pd.weights_desc(), engine(), const_cast<float*>(b));
    if (epilogue_.bias) args[DNNL_ARG_BIAS] = dnnl::memory(entry->pd.bias_desc(), engine(), const_cast<float*>(bias));
    args[DNNL_ARG_DST] = dnnl::memory(entry->pd.dst_desc(), engine(), y);
    execute(entry->prim, entry->pd, args);
  });
}

MatMulShape stored_matmul_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b, bool trans_a, bool trans_b) {
  MatMulShape s;
  s.a.assign(a.begin(), a.end());
  s.b.assign(b.begin(), b.end());
  while (s.a.size() < s.b.size()) s.a.insert(s.a.begin(), 1);
  while (s.b.size() < s.a.size()) s.b.insert(s.b.begin(), 1);
  s.trans_a = trans_a;
  s.trans_b = trans_b;
  return s;
}

MatMulShape numpy_matmul_shape(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  MatMulShape s;
  s.a.assign(a.begin(), a.end());
  s.b.assign(b.begin(), b.end());
  if (s.a.size() == 1) s.a.insert(s.a.begin(), 1);
  if (s.b.size() == 1) s.b.push_back(1);
  bool b_has_batch = false;
  for (size_t i = 0; i + 2 < s.b.size(); ++i) b_has_batch |= s.b[i] != 1;
  if (!b_has_batch) {
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < s.a.size(); ++i) rows *= s.a[i];
    s.a = {rows, s.a.back()};
    s.b = {s.b[s.b.size() - 2], s.b.back()};
    return s;
  }
  while (s.a.size() < s.b.size()) s.a.insert(s.a.begin(), 1);
  while (s.b.size() < s.a.size()) s.b.insert(s.b.begin(), 1);
  return s;
}

}  // namespace onyx::onednn
