#include "kernels/onednn_conv_problem.h"

#include <cstdlib>
#include <cstring>

#include "kernels/onednn.h"

namespace onyx::onednn {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

namespace {
BackwardLayout layout_choice() {
  static const BackwardLayout layout = [] {
    const char* v = std::getenv("ONYX_CONV_BACKWARD_LAYOUT");
    return v && !std::strcmp(v, "plain") ? BackwardLayout::kPlain : BackwardLayout::kAny;
  }();
  return layout;
}
}  // namespace

bool backward_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("ONYX_CONV_BACKWARD");
    return !(v && !std::strcmp(v, "0"));
  }();
  return enabled;
}

bool make_conv_problem(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape, int64_t group,
                       const WindowGeometry& g, ConvProblem* p) {
  if (!backward_enabled()) return false;
  const size_t r = g.rank();
  if (r < 1 || r > 3 || x_shape.size() != r + 2 || w_shape.size() != r + 2 || group < 1) return false;
  for (const auto* v : {&g.in, &g.kernel, &g.strides, &g.dilations, &g.pad_begin, &g.pad_end, &g.out})
    if (v->size() != r) return false;
  const int64_t batch = x_shape[0], channels = x_shape[1], maps = w_shape[0];
  if (batch < 1 || channels < 1 || maps < 1 || channels % group != 0 || maps % group != 0 ||
      w_shape[1] != channels / group)
    return false;
  // oneDNN indexes with 32-bit offsets in places: keep every tensor well below 2^31 elements.
  constexpr int64_t kMaxElements = int64_t(1) << 30;
  int64_t x_size = batch * channels, y_size = batch * maps, w_size = maps * w_shape[1];
  for (size_t d = 0; d < r; ++d) {
    const int64_t in = g.in[d], k = g.kernel[d], s = g.strides[d], dil = g.dilations[d], out = g.out[d];
    if (x_shape[2 + d] != in || w_shape[2 + d] != k || in < 1 || k < 1 || s < 1 || dil < 1 || out < 1) return false;
    if (g.pad_begin[d] < 0 || g.pad_end[d] < 0) return false;
    const int64_t span = in + g.pad_begin[d] + g.pad_end[d] - ((k - 1) * dil + 1);
    if (span < 0 || span / s + 1 != out) return false;
    if (__builtin_mul_overflow(x_size, in, &x_size) || __builtin_mul_overflow(y_size, out, &y_size) ||
        __builtin_mul_overflow(w_size, k, &w_size))
      return false;
  }
  if (x_size > kMaxElements || y_size > kMaxElements || w_size > kMaxElements) return false;

  p->x = dims(x_shape);
  p->y = {batch, maps};
  p->y.insert(p->y.end(), g.out.begin(), g.out.end());
  p->w = dims(w_shape);
  if (group > 1) {
    p->w[0] = maps / group;
    p->w.insert(p->w.begin(), group);
  }
  p->strides = dims(g.strides);
  p->dilations = dims(g.dilations);
  for (auto& d : p->dilations) d -= 1;
  p->pad_l = dims(g.pad_begin);
  p->pad_r = dims(g.pad_end);
  p->x_user = dnnl::memory::desc(p->x, dt::f32, plain_activation_tag(p->x.size()));
  p->y_user = dnnl::memory::desc(p->y, dt::f32, plain_activation_tag(p->y.size()));
  p->w_user = dnnl::memory::desc(p->w, dt::f32, dense_strides(p->w));
  p->layout = layout_choice();
  p->key.clear();
  for (const auto* v : {&p->x, &p->y, &p->w, &p->strides, &p->dilations, &p->pad_l, &p->pad_r}) {
    p->key.push_back(int64_t(v->size()));
    p->key.insert(p->key.end(), v->begin(), v->end());
  }
  p->key.push_back(int64_t(p->layout));
  return true;
}

dnnl::memory::desc layout_desc(const dnnl::memory::desc& user, BackwardLayout layout) {
  if (layout == BackwardLayout::kPlain) return user;
  return dnnl::memory::desc(user.dims(), dt::f32, tag::any);
}

dnnl::convolution_forward::primitive_desc forward_hint(const ConvProblem& p, BackwardLayout layout) {
  const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
                                          layout_desc(p.x_user, layout), layout_desc(p.w_user, layout),
                                          layout_desc(p.y_user, layout), p.strides, p.dilations, p.pad_l, p.pad_r);
  return dnnl::convolution_forward::primitive_desc(d, base_attr(), engine());
}

}  // namespace onyx::onednn
