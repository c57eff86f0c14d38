#include "kernels/onednn_qconv.h"

#include <cstring>
#include <unordered_map>

#include "kernels/onednn.h"

namespace onyx::onednn {
namespace {

constexpr size_t kMaxCachedShapes = 32;

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

tag plain_tag(size_t rank) { return rank == 3 ? tag::ncw : rank == 4 ? tag::nchw : tag::ncdhw; }
tag channels_last_tag(size_t rank) { return rank == 3 ? tag::nwc : rank == 4 ? tag::nhwc : tag::ndhwc; }

dnnl::memory::dims weight_dims(const std::vector<int64_t>& w_shape, int64_t group) {
  dnnl::memory::dims w = dims(w_shape);
  if (group > 1) {
    w[0] /= group;
    w.insert(w.begin(), group);
  }
  return w;
}

}  // namespace

Status QuantizedConv::set_weights(std::vector<int8_t> w, std::vector<int64_t> w_shape, int64_t group) {
  if (!w_.empty() || packed_w_) return error(StatusCode::kInternal, "quantised convolution weights set twice");
  if (w_shape.size() < 3 || w_shape.size() > 5 || group < 1 || w_shape[0] % group != 0)
    return invalid_argument("quantised convolution weights of unexpected shape");
  w_ = std::move(w);
  w_shape_ = std::move(w_shape);
  group_ = group;
  return Status::Ok();
}

Result<std::shared_ptr<const QuantizedConv::Entry>> QuantizedConv::entry_for(const QuantizedConvArgs& a) const {
  const WindowGeometry& g = *a.geometry;
  std::vector<int64_t> key = a.x_shape;
  for (const auto* v : {&g.strides, &g.dilations, &g.pad_begin, &g.pad_end}) key.insert(key.end(), v->begin(), v->end());
  key.insert(key.end(), {int64_t(a.x_signed), int64_t(a.y_signed), a.x_zero_point, a.y_zero_point, int64_t(a.bias != nullptr)});
  for (float s : *a.scale) {
    int32_t bits;
    std::memcpy(&bits, &s, sizeof bits);
    key.push_back(bits);
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;

  const int64_t maps = w_shape_[0];
  const dnnl::memory::dims x_dims = dims(a.x_shape);
  dnnl::memory::dims y_dims = {a.x_shape[0], maps};
  y_dims.insert(y_dims.end(), g.out.begin(), g.out.end());
  const dnnl::memory::dims w_dims = weight_dims(w_shape_, group_);
  dnnl::memory::dims strides = dims(g.strides), dilations = dims(g.dilations), pad_l = dims(g.pad_begin),
                     pad_r = dims(g.pad_end);
  for (auto& d : dilations) d -= 1;  // oneDNN counts the gaps between taps
  const dt x_type = a.x_signed ? dt::s8 : dt::u8, y_type = a.y_signed ? dt::s8 : dt::u8;
  const tag user_tag = channels_last_ ? channels_last_tag(x_dims.size()) : plain_tag(x_dims.size());

  auto entry = std::make_shared<Entry>();
  entry->x_user = dnnl::memory::desc(x_dims, x_type, user_tag);
  entry->y_user = dnnl::memory::desc(y_dims, y_type, user_tag);
  const dnnl::memory::desc w_plain(w_dims, dt::s8, dense_strides(w_dims));
  const dnnl::memory::desc bias_md = a.bias ? dnnl::memory::desc({maps}, dt::s32, tag::a) : dnnl::memory::desc();

  dnnl::primitive_attr attr = base_attr();
  attr.set_output_scales(a.scale->size() == 1 ? 0 : 1 << 1, *a.scale);
  if (a.x_zero_point != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {a.x_zero_point});
  if (a.y_zero_point != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {a.y_zero_point});
  // oneDNN rounds once, after adding the zero point: round(v + zp), which differs from
  // QuantizeLinear's round(v) + zp at exact ties when zp is odd. Rounding v first (half to
  // even) makes the later conversion exact.
  if (a.y_zero_point % 2 != 0) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_round, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  // Channels-last computes in place; from NCHW oneDNN picks its layout (channels-last for
  // int8 on AVX-512) and x and y are reordered around it.
  auto make = [&](const dnnl::memory::desc& w_md) {
    const dnnl::memory::desc x_md = channels_last_ ? entry->x_user : dnnl::memory::desc(x_dims, x_type, tag::any);
    const dnnl::memory::desc y_md = channels_last_ ? entry->y_user : dnnl::memory::desc(y_dims, y_type, tag::any);
    return dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, x_md,
                                        w_md, bias_md, y_md, strides, dilations, pad_l, pad_r),
        attr, engine());
  };
  Status s = guarded("quantised convolution setup", [&] {
    const dnnl::memory plain(w_plain, engine(), const_cast<int8_t*>(w_.data()));
    if (!packed_w_) {
      entry->pd = make(dnnl::memory::desc(w_dims, dt::s8, tag::any));
      packed_w_ = std::make_shared<const dnnl::memory>(reorder_copy(plain, entry->pd.weights_desc()));
    } else {
      try {
        entry->pd = make(packed_w_->get_desc());
      } catch (const dnnl::error&) {  // this shape's primitive wants another layout
        entry->pd = make(dnnl::memory::desc(w_dims, dt::s8, tag::any));
        entry->own_w = reorder_copy(plain, entry->pd.weights_desc());
        entry->has_own_w = true;
      }
    }
    entry->prim = dnnl::convolution_forward(entry->pd);
    entry->reorder_x = entry->pd.src_desc() != entry->x_user;
    entry->reorder_y = entry->pd.dst_desc() != entry->y_user;
    if (entry->reorder_x) {
      entry->x_to_inner_pd =
          dnnl::reorder::primitive_desc(engine(), entry->x_user, engine(), entry->pd.src_desc(), base_attr());
      entry->x_to_inner = dnnl::reorder(entry->x_to_inner_pd);
    }
    if (entry->reorder_y) {
      entry->y_to_user_pd =
          dnnl::reorder::primitive_desc(engine(), entry->pd.dst_desc(), engine(), entry->y_user, base_attr());
      entry->y_to_user = dnnl::reorder(entry->y_to_user_pd);
    }
  });
  ONYX_RETURN_IF_ERROR(s);
  if (cache_.size() >= kMaxCachedShapes) cache_.clear();  // dynamic shapes: keep the cache bounded
  cache_.emplace(std::move(key), entry);
  return std::shared_ptr<const Entry>(entry);
}

Status QuantizedConv::run(const QuantizedConvArgs& a) const {
  if (w_.empty()) return error(StatusCode::kInternal, "quantised convolution run before its weights were set");
  if (!a.geometry || !supports(*a.geometry) || a.x_shape.size() != w_shape_.size() || !a.scale ||
      (a.scale->size() != 1 && int64_t(a.scale->size()) != w_shape_[0]))
    return error(StatusCode::kInternal, "quantised convolution called with inconsistent arguments");
  ONYX_ASSIGN_OR_RETURN(auto entry, entry_for(a));
  return guarded("quantised convolution", [&] {
    const dnnl::memory x_user(entry->x_user, engine(), const_cast<void*>(a.x));
    const dnnl::memory y_user(entry->y_user, engine(), a.y);
    dnnl::memory x_inner = x_user, y_inner = y_user;
    std::unordered_map<int, dnnl::memory> args;
    if (entry->reorder_x) {
      x_inner = dnnl::memory(entry->pd.src_desc(), engine(),
                             thread_scratch(kSourceScratch, entry->pd.src_desc().get_size()));
      args = {{DNNL_ARG_FROM, x_user}, {DNNL_ARG_TO, x_inner}};
      execute(entry->x_to_inner, entry->x_to_inner_pd, args);
    }
    if (entry->reorder_y)
      y_inner = dnnl::memory(entry->pd.dst_desc(), engine(),
                             thread_scratch(kDestinationScratch, entry->pd.dst_desc().get_size()));
    args.clear();
    args[DNNL_ARG_SRC] = x_inner;
    args[DNNL_ARG_WEIGHTS] = entry->has_own_w ? entry->own_w : *packed_w_;
    if (a.bias) args[DNNL_ARG_BIAS] = dnnl::memory(entry->pd.bias_desc(), engine(), const_cast<int32_t*>(a.bias));
    args[DNNL_ARG_DST] = y_inner;
    execute(entry->prim, entry->pd, args);
    if (entry->reorder_y) {
      args = {{DNNL_ARG_FROM, y_inner}, {DNNL_ARG_TO, y_user}};
      execute(entry->y_to_user, entry->y_to_user_pd, args);
    }
  });
}

}  // namespace onyx::onednn
