#include "kernels/onednn_conv_backward_weights.h"

#include <unordered_map>

#include "kernels/onednn.h"
#include "kernels/onednn_conv_problem.h"

namespace onyx::onednn {
namespace {
constexpr size_t kMaxCachedShapes = 32;
}  // namespace

struct ConvBackwardWeights::Entry {
  dnnl::convolution_backward_weights::primitive_desc pd;
  dnnl::convolution_backward_weights prim;
  ConvProblem problem;
  bool bias = false;
  bool reorder_x = false, reorder_dy = false, reorder_dw = false;
  LayoutReorder x_in, dy_in, dw_out;  // set when the matching reorder_* is
};

bool ConvBackwardWeights::supports(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape,
                                   int64_t group, const WindowGeometry& g) {
  ConvProblem p;
  return make_conv_problem(x_shape, w_shape, group, g, &p);
}

Result<std::shared_ptr<const ConvBackwardWeights::Entry>> ConvBackwardWeights::entry_for(
    const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape, int64_t group, const WindowGeometry& g,
    bool bias) const {
  ConvProblem p;
  if (!make_conv_problem(x_shape, w_shape, group, g, &p))
    return invalid_argument("oneDNN convolution backward-weights does not take this geometry");
  p.key.push_back(bias ? 1 : 0);
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = cache_.find(p.key); it != cache_.end()) return it->second;
  auto entry = std::make_shared<Entry>();
  entry->bias = bias;
  Status s = guarded("convolution backward-weights setup", [&] {
    const BackwardLayout layout = p.layout;
    const auto hint = forward_hint(p, layout);
    const dnnl::memory::desc bias_md =
        bias ? dnnl::memory::desc({p.y[1]}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a)
             : dnnl::memory::desc();
    const dnnl::convolution_backward_weights::desc d(
        dnnl::algorithm::convolution_direct, layout_desc(p.x_user, layout), layout_desc(p.w_user, layout), bias_md,
        layout_desc(p.y_user, layout), p.strides, p.dilations, p.pad_l, p.pad_r);
    entry->pd = dnnl::convolution_backward_weights::primitive_desc(d, base_attr(), engine(), hint);
    entry->prim = dnnl::convolution_backward_weights(entry->pd);
    entry->reorder_x = entry->pd.src_desc() != p.x_user;
    entry->reorder_dy = entry->pd.diff_dst_desc() != p.y_user;
    entry->reorder_dw = entry->pd.diff_weights_desc() != p.w_user;
    if (entry->reorder_x) entry->x_in = LayoutReorder(p.x_user, entry->pd.src_desc());
    if (entry->reorder_dy) entry->dy_in = LayoutReorder(p.y_user, entry->pd.diff_dst_desc());
    if (entry->reorder_dw) entry->dw_out = LayoutReorder(entry->pd.diff_weights_desc(), p.w_user);
  });
  ONYX_RETURN_IF_ERROR(s);
  entry->problem = std::move(p);
  if (cache_.size() >= kMaxCachedShapes) cache_.clear();  // changing shapes: keep the cache bounded
  const std::vector<int64_t>& key = entry->problem.key;
  cache_.emplace(key, entry);
  return std::shared_ptr<const Entry>(entry);
}

Status ConvBackwardWeights::run(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape,
                                int64_t group, const WindowGeometry& g, const float* x, const float* dy, float* dw,
                                float* db) const {
  ONYX_ASSIGN_OR_RETURN(auto entry, entry_for(x_shape, w_shape, group, g, db != nullptr));
  return guarded("convolution backward-weights", [&] {
    const ConvProblem& p = entry->problem;
    const dnnl::memory x_user(p.x_user, engine(), const_cast<float*>(x));
    const dnnl::memory dy_user(p.y_user, engine(), const_cast<float*>(dy));
    const dnnl::memory dw_user(p.w_user, engine(), dw);
    dnnl::memory x_inner = x_user, dy_inner = dy_user, dw_inner = dw_user;
    if (entry->reorder_x) {
      const auto& md = entry->pd.src_desc();
      x_inner = dnnl::memory(md, engine(), thread_scratch(kSourceScratch, md.get_size()));
      entry->x_in.run(x_user, x_inner);
    }
    if (entry->reorder_dy) {
      const auto& md = entry->pd.diff_dst_desc();
      dy_inner = dnnl::memory(md, engine(), thread_scratch(kGradientScratch, md.get_size()));
      entry->dy_in.run(dy_user, dy_inner);
    }
    if (entry->reorder_dw) {
      const auto& md = entry->pd.diff_weights_desc();
      dw_inner = dnnl::memory(md, engine(), thread_scratch(kWeightsScratch, md.get_size()));
    }
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, x_inner}, {DNNL_ARG_DIFF_DST, dy_inner}, {DNNL_ARG_DIFF_WEIGHTS, dw_inner}};
    if (entry->bias) args[DNNL_ARG_DIFF_BIAS] = dnnl::memory(entry->pd.diff_bias_desc(), engine(), db);
    execute(entry->prim, entry->pd, args);
    if (entry->reorder_dw) entry->dw_out.run(dw_inner, dw_user);
  });
}

}  // namespace onyx::onednn
