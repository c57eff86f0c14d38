#include "kernels/onednn_conv.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include "core/parallel.h"
#include "kernels/onednn.h"

namespace onyx::onednn {
namespace {

constexpr size_t kMaxCachedShapes = 32;

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

// Which layout the convolution computes in: "any" lets oneDNN choose (blocked on AVX-512),
// "plain" computes on NCHW directly, "nhwc" on channels-last. ONYX_CONV_LAYOUT overrides the
// default, for measuring.
enum class Layout { kAny, kPlain, kChannelsLast };
Layout inner_layout() {
  static const Layout layout = [] {
    const char* v = std::getenv("ONYX_CONV_LAYOUT");
    if (v && !std::strcmp(v, "plain")) return Layout::kPlain;
    if (v && !std::strcmp(v, "nhwc")) return Layout::kChannelsLast;
    return Layout::kAny;
  }();
  return layout;
}

tag plain_tag(size_t rank) { return rank == 3 ? tag::ncw : rank == 4 ? tag::nchw : tag::ncdhw; }
tag channels_last_tag(size_t rank) { return rank == 3 ? tag::nwc : rank == 4 ? tag::nhwc : tag::ndhwc; }

dnnl::memory::desc activation_desc(const dnnl::memory::dims& d, Layout layout) {
  switch (layout) {
    case Layout::kPlain: return dnnl::memory::desc(d, dt::f32, plain_tag(d.size()));
    case Layout::kChannelsLast: return dnnl::memory::desc(d, dt::f32, channels_last_tag(d.size()));
    case Layout::kAny: break;
  }
  return dnnl::memory::desc(d, dt::f32, tag::any);
}

// Winograd for 2-D 3x3 convolutions at stride 1 without dilation, one group and constant
// weights, where oneDNN has it (AVX-512: F(2x2,3x3) or F(4x4,3x3), blocked layouts, so
// channels-last X and Y are reordered around it): about a third of the direct convolution's
// time on ResNet's 3x3 layers. Its error against direct convolution is measured by
// onednn_conv_test (within 1e-4 of the output's largest magnitude). Outputs under 14x14 stay
// direct: Winograd gains little there and its transformed weights are up to 4x larger.
// ONYX_CONV_WINOGRAD=0 turns it off, for measuring.
bool winograd_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("ONYX_CONV_WINOGRAD");
    return !(v && !std::strcmp(v, "0"));
  }();
  return enabled;
}

constexpr int64_t kMinWinogradOutput = 14 * 14;

bool winograd_candidate(const dnnl::memory::dims& w_dims, int64_t group, const WindowGeometry& g,
                        const dnnl::memory::dims& strides, const dnnl::memory::dims& dilations, bool constant_w) {
  if (!winograd_enabled() || !constant_w || group != 1 || g.rank() != 2 || w_dims.size() != 4) return false;
  if (w_dims[2] != 3 || w_dims[3] != 3) return false;
  for (size_t i = 0; i < 2; ++i)
    if (strides[i] != 1 || dilations[i] != 0) return false;
  return g.out[0] * g.out[1] >= kMinWinogradOutput;
}

using Reorder = Conv::Reorder;

// A reorder between two layouts of one tensor, with a user scratchpad (thread-safe).
Reorder make_reorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
  Reorder r;
  r.pd = dnnl::reorder::primitive_desc(engine(), from, engine(), to, base_attr());
  r.prim = dnnl::reorder(r.pd);
  return r;
}

void run_reorder(const Reorder& r, const dnnl::memory& from, const dnnl::memory& to) {
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
  execute(r.prim, r.pd, args);
}

}  // namespace

Result<std::shared_ptr<const Conv::Entry>> Conv::entry_for(const std::vector<int64_t>& x_shape,
                                                           const std::vector<int64_t>& w_shape, int64_t group,
                                                           const WindowGeometry& g, const float* w) const {
  std::vector<int64_t> key = x_shape;
  key.insert(key.end(), w_shape.begin(), w_shape.end());
  key.push_back(group);
  for (const auto* v : {&g.strides, &g.dilations, &g.pad_begin, &g.pad_end}) key.insert(key.end(), v->begin(), v->end());
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;

  const int64_t maps = w_shape[0];
  const dnnl::memory::dims x_dims = dims(x_shape);
  dnnl::memory::dims y_dims = {x_shape[0], maps};
  y_dims.insert(y_dims.end(), g.out.begin(), g.out.end());
  dnnl::memory::dims w_dims = dims(w_shape);
  if (group > 1) {
    w_dims[0] = maps / group;
    w_dims.insert(w_dims.begin(), group);
  }
  dnnl::memory::dims strides = dims(g.strides), dilations = dims(g.dilations), pad_l = dims(g.pad_begin),
                     pad_r = dims(g.pad_end);
  for (auto& d : dilations) d -= 1;  // oneDNN counts the gaps between taps

  auto entry = std::make_shared<Entry>();
  const bool nhwc = epilogue_.channels_last;
  entry->x_user = dnnl::memory::desc(x_dims, dt::f32, nhwc ? channels_last_tag(x_dims.size()) : plain_tag(x_dims.size()));
  entry->y_user = dnnl::memory::desc(y_dims, dt::f32, nhwc ? channels_last_tag(y_dims.size()) : plain_tag(y_dims.size()));
  const dnnl::memory::desc w_plain(w_dims, dt::f32, dense_strides(w_dims));
  const dnnl::memory::desc bias_md = epilogue_.bias ? dnnl::memory::desc({maps}, dt::f32, tag::a) : dnnl::memory::desc();
  const Layout layout = nhwc ? Layout::kChannelsLast : inner_layout();

  // The residual is summed into y, which run() first fills with z. (A binary post-op reading z
  // in place would save that copy, but oneDNN 2.6 then picks jit_1x1 over brgconv_1x1 for
  // ResNet's 1x1 layers, which costs more than the copy: measured in bench/RESULTS.md.)
  dnnl::primitive_attr attr = base_attr();
  dnnl::post_ops ops;
  if (epilogue_.accumulate) ops.append_sum(1.0f);
  if (epilogue_.activation != dnnl::algorithm::undef)
    ops.append_eltwise(1.0f, epilogue_.activation, epilogue_.activation_alpha, epilogue_.activation_beta);
  attr.set_post_ops(ops);
  const bool packable = constant_w_ == w && w != nullptr;
  const bool try_winograd = winograd_candidate(w_dims, group, g, strides, dilations, packable);
  auto make_with = [&](dnnl::algorithm algorithm, Layout inner, const dnnl::memory::desc& w_md) {
    return dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algorithm, activation_desc(x_dims, inner),
                                        w_md, bias_md, activation_desc(y_dims, inner), strides, dilations, pad_l, pad_r),
        attr, engine());
  };
  // Winograd in the layout oneDNN picks when it takes this geometry, else direct convolution.
  auto make = [&](const dnnl::memory::desc& w_md) {
    if (try_winograd) {
      try {
        auto pd = make_with(dnnl::algorithm::convolution_winograd, Layout::kAny, w_md);
        entry->winograd = true;
        return pd;
      } catch (const dnnl::error&) {
        // no Winograd kernel for this shape, layout or post-op chain on this CPU
      }
    }
    entry->winograd = false;
    return make_with(dnnl::algorithm::convolution_direct, layout, w_md);
  };

  Status s = guarded("convolution setup", [&] {
    if (packable && !packing_tried_) {
      packing_tried_ = true;
      auto pd = make(dnnl::memory::desc(w_dims, dt::f32, tag::any));
      if (pd.weights_desc() != w_plain) {
        auto packed = std::make_unique<dnnl::memory>(pd.weights_desc(), engine());
        dnnl::memory src(w_plain, engine(), const_cast<float*>(w));
        Reorder r = make_reorder(w_plain, pd.weights_desc());
        run_reorder(r, src, *packed);
        packed_w_ = std::move(packed);
      }
    }
    if (packable && packed_w_) {
      try {
        entry->pd = make(packed_w_->get_desc());
        entry->uses_packed_w = true;
      } catch (const dnnl::error&) {
        entry->uses_packed_w = false;  // this shape's primitive wants another layout: use w as stored
      }
    }
    if (!entry->uses_packed_w) {
      // w changes between runs (training's parameters, a computed weight): let oneDNN choose
      // its layout too and reorder w into it every run (ONYX_CONV_LAYOUT=plain keeps it plain). With w as stored, oneDNN 2.6 falls
      // back to im2col + GEMM for blocked activations, 3-4x slower on ResNet's layers than the
      // direct kernel plus the reorder.
      const bool keep_w = packable || layout == Layout::kPlain;
      entry->pd = make(keep_w ? w_plain : dnnl::memory::desc(w_dims, dt::f32, tag::any));
      entry->reorder_w = entry->pd.weights_desc() != w_plain;
      if (entry->reorder_w) entry->w_to_inner = make_reorder(w_plain, entry->pd.weights_desc());
    }
    entry->prim = dnnl::convolution_forward(entry->pd);
    entry->reorder_x = entry->pd.src_desc() != entry->x_user;
    entry->reorder_y = entry->pd.dst_desc() != entry->y_user;
    if (entry->reorder_x) entry->x_to_inner = make_reorder(entry->x_user, entry->pd.src_desc());
    if (entry->reorder_y) {
      entry->y_to_user = make_reorder(entry->pd.dst_desc(), entry->y_user);
      if (epilogue_.accumulate) entry->y_to_inner = make_reorder(entry->y_user, entry->pd.dst_desc());
    }
  });
  ONYX_RETURN_IF_ERROR(s);
  if (cache_.size() >= kMaxCachedShapes) cache_.clear();  // dynamic shapes: keep the cache bounded
  cache_.emplace(std::move(key), entry);
  return std::shared_ptr<const Entry>(entry);
}

Result<bool> Conv::uses_winograd(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape,
                                 int64_t group, const WindowGeometry& g, const float* w) const {
  ONYX_ASSIGN_OR_RETURN(auto entry, entry_for(x_shape, w_shape, group, g, w));
  return entry->winograd;
}

Status Conv::run(const std::vector<int64_t>& x_shape, const std::vector<int64_t>& w_shape, int64_t group,
                 const WindowGeometry& g, const float* x, const float* w, const float* bias, const float* z,
                 float* y) const {
  if (!supports(g)) return invalid_argument("oneDNN convolution takes 1 to 3 spatial dims, got ", g.rank());
  if (epilogue_.bias && !bias) return error(StatusCode::kInternal, "convolution bias expected");
  if (epilogue_.accumulate && (!z || z == y)) return error(StatusCode::kInternal, "convolution residual expected, apart from y");
  ONYX_ASSIGN_OR_RETURN(auto entry, entry_for(x_shape, w_shape, group, g, w));
  if (epilogue_.accumulate) {  // z into y, in parallel (a single-threaded copy showed at 2 threads)
    const size_t n = entry->y_user.get_size() / sizeof(float);
    parallel_for(int64_t(n), int64_t(1) << 16, [&](int64_t begin, int64_t end) {
      std::memcpy(y + begin, z + begin, size_t(end - begin) * sizeof(float));
    });
  }
  return guarded("convolution", [&] {
    const dnnl::memory x_user(entry->x_user, engine(), const_cast<float*>(x));
    const dnnl::memory y_user(entry->y_user, engine(), y);
    dnnl::memory x_inner = x_user, y_inner = y_user;
    if (entry->reorder_x) {
      x_inner = dnnl::memory(entry->pd.src_desc(), engine(),
                             thread_scratch(kSourceScratch, entry->pd.src_desc().get_size()));
      run_reorder(entry->x_to_inner, x_user, x_inner);
    }
    if (entry->reorder_y) {
      y_inner = dnnl::memory(entry->pd.dst_desc(), engine(),
                             thread_scratch(kDestinationScratch, entry->pd.dst_desc().get_size()));
      if (epilogue_.accumulate) run_reorder(entry->y_to_inner, y_user, y_inner);
    }
    std::unordered_map<int, dnnl::memory> args;
    args[DNNL_ARG_SRC] = x_inner;
    if (entry->uses_packed_w) {
      args[DNNL_ARG_WEIGHTS] = *packed_w_;
    } else if (entry->reorder_w) {
      const dnnl::memory w_user(entry->w_to_inner.pd.src_desc(), engine(), const_cast<float*>(w));
      const dnnl::memory::desc md = entry->pd.weights_desc();
      args[DNNL_ARG_WEIGHTS] = dnnl::memory(md, engine(), thread_scratch(kWeightsScratch, md.get_size()));
      run_reorder(entry->w_to_inner, w_user, args[DNNL_ARG_WEIGHTS]);
    } else {
      args[DNNL_ARG_WEIGHTS] = dnnl::memory(entry->pd.weights_desc(), engine(), const_cast<float*>(w));
    }
    if (epilogue_.bias) args[DNNL_ARG_BIAS] = dnnl::memory(entry->pd.bias_desc(), engine(), const_cast<float*>(bias));
    args[DNNL_ARG_DST] = y_inner;
    execute(entry->prim, entry->pd, args);
    if (entry->reorder_y) run_reorder(entry->y_to_user, y_inner, y_user);
  });
}

}  // namespace onyx::onednn
