#include "kernels/onednn_conv_backward_data.h"

#include <unordered_map>

#include "kernels/onednn.h"
#include "kernels/onednn_conv_problem.h"

namespace onyx::onednn {
namespace {
constexpr size_t kMaxCachedShapes = 32;
}  // namespace

struct ConvBackwardData::Entry {
  dnnl::convolution_backward_data::primitive_desc pd;
  dnnl::convolution_backward_data prim;
  ConvProblem problem;
  bool reorder_dy = false, reorder_w = false, reorder_dx = false;
  LayoutReorder dy_in, w_in, dx_out;  // set when the matching reorder_* is
};

bool ConvBackwardData::supports(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape,
                                int64_t group, const WindowGeometry& g) {
  ConvProblem p;
  return make_conv_problem(x_shape, w_shape, group, g, &p);
}

Result<std::shared_ptr<const ConvBackwardData::Entry>> ConvBackwardData::entry_for(
    const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape, int64_t group,
    const WindowGeometry& g) const {
  ConvProblem p;
  if (!make_conv_problem(x_shape, w_shape, group, g, &p))
    return invalid_argument("oneDNN convolution backward-data does not take this geometry");
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = cache_.find(p.key); it != cache_.end()) return it->second;
  auto entry = std::make_shared<Entry>();
  Status s = guarded("convolution backward-data setup", [&] {
    const BackwardLayout layout = p.layout;
    const auto hint = forward_hint(p, layout);
    const dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, layout_desc(p.x_user, layout),
                                                  layout_desc(p.w_user, layout), layout_desc(p.y_user, layout),
                                                  p.strides, p.dilations, p.pad_l, p.pad_r);
    entry->pd = dnnl::convolution_backward_data::primitive_desc(d, base_attr(), engine(), hint);
    entry->prim = dnnl::convolution_backward_data(entry->pd);
    entry->reorder_dy = entry->pd.diff_dst_desc() != p.y_user;
    entry->reorder_w = entry->pd.weights_desc() != p.w_user;
    entry->reorder_dx = entry->pd.diff_src_desc() != p.x_user;
    if (entry->reorder_dy) entry->dy_in = LayoutReorder(p.y_user, entry->pd.diff_dst_desc());
    if (entry->reorder_w) entry->w_in = LayoutReorder(p.w_user, entry->pd.weights_desc());
    if (entry->reorder_dx) entry->dx_out = LayoutReorder(entry->pd.diff_src_desc(), p.x_user);
  });
  ONYX_RETURN_IF_ERROR(s);
  entry->problem = std::move(p);
  if (cache_.size() >= kMaxCachedShapes) cache_.clear();  // changing shapes: keep the cache bounded
  const std::vector<int64_t>& key = entry->problem.key;
  cache_.emplace(key, entry);
  return std::shared_ptr<const Entry>(entry);
}

Status ConvBackwardData::run(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape,
                             int64_t group, const WindowGeometry& g, const float* dy, const float* w,
                             float* dx) const {
  ONYX_ASSIGN_OR_RETURN(auto entry, entry_for(x_shape, w_shape, group, g));
  return guarded("convolution backward-data", [&] {
    const ConvProblem& p = entry->problem;
    const dnnl::memory dy_user(p.y_user, engine(), const_cast<float*>(dy));
    const dnnl::memory w_user(p.w_user, engine(), const_cast<float*>(w));
    const dnnl::memory dx_user(p.x_user, engine(), dx);
    dnnl::memory dy_inner = dy_user, w_inner = w_user, dx_inner = dx_user;
    if (entry->reorder_dy) {
      const auto& md = entry->pd.diff_dst_desc();
      dy_inner = dnnl::memory(md, engine(), thread_scratch(kSourceScratch, md.get_size()));
      entry->dy_in.run(dy_user, dy_inner);
    }
    if (entry->reorder_w) {
      const auto& md = entry->pd.weights_desc();
      w_inner = dnnl::memory(md, engine(), thread_scratch(kWeightsScratch, md.get_size()));
      entry->w_in.run(w_user, w_inner);
    }
    if (entry->reorder_dx) {
      const auto& md = entry->pd.diff_src_desc();
      dx_inner = dnnl::memory(md, engine(), thread_scratch(kDestinationScratch, md.get_size()));
    }
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_DIFF_DST, dy_inner}, {DNNL_ARG_WEIGHTS, w_inner}, {DNNL_ARG_DIFF_SRC, dx_inner}};
    execute(entry->prim, entry->pd, args);
    if (entry->reorder_dx) entry->dx_out.run(dx_inner, dx_user);
  });
}

}  // namespace onyx::onednn
