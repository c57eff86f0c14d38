#include "kernels/onednn_pool.h"

#include <algorithm>
#include <unordered_map>

#include "kernels/onednn.h"

namespace onyx::onednn {
namespace {

constexpr size_t kMaxCachedShapes = 32;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

// The end padding that gives oneDNN g's output size: just enough for the last window, 0 when
// the floor of the division drops leftover input.
int64_t end_padding(const WindowGeometry& g, size_t d) {
  return std::max<int64_t>(0, (g.out[d] - 1) * g.strides[d] + g.kernel[d] - g.in[d] - g.pad_begin[d]);
}

tag layout_tag(size_t rank, bool channels_last) {
  if (channels_last) return rank == 3 ? tag::nwc : rank == 4 ? tag::nhwc : tag::ndhwc;
  return rank == 3 ? tag::ncw : rank == 4 ? tag::nchw : tag::ncdhw;
}

}  // namespace

bool MaxPool::supports(const WindowGeometry& g) {
  if (g.rank() < 1 || g.rank() > 3) return false;
  for (size_t d = 0; d < g.rank(); ++d) {
    if (g.dilations[d] != 1) return false;
    // oneDNN's output size, floor((in + pads - kernel) / stride) + 1, must be g's.
    if ((g.in[d] + g.pad_begin[d] + end_padding(g, d) - g.kernel[d]) / g.strides[d] + 1 != g.out[d]) return false;
    // Every window must see at least one real element (oneDNN would give -inf otherwise too,
    // but keep the reference kernel's definition in charge of that corner).
    if (g.pad_begin[d] >= g.kernel[d]) return false;
    if ((g.out[d] - 1) * g.strides[d] - g.pad_begin[d] >= g.in[d]) return false;
  }
  return true;
}

Status MaxPool::run(const std::vector<int64_t>& x_shape, const WindowGeometry& g, DataType type, const void* x,
                    void* y) const {
  if (!supports(type)) return error(StatusCode::kInternal, "oneDNN max pooling of ", data_type_name(type));
  const dt elem = type == DataType::kFloat ? dt::f32 : type == DataType::kUInt8 ? dt::u8 : dt::s8;
  std::vector<int64_t> key = x_shape;
  key.push_back(int64_t(elem));
  for (const auto* v : {&g.kernel, &g.strides, &g.pad_begin, &g.out}) key.insert(key.end(), v->begin(), v->end());
  std::shared_ptr<const Entry> entry;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = cache_.find(key); it != cache_.end()) entry = it->second;
  }
  if (!entry) {
    auto made = std::make_shared<Entry>();
    ONYX_RETURN_IF_ERROR(guarded("pooling setup", [&] {
      const dnnl::memory::dims x_dims = dims(x_shape);
      dnnl::memory::dims y_dims = {x_shape[0], x_shape[1]};
      y_dims.insert(y_dims.end(), g.out.begin(), g.out.end());
      dnnl::memory::dims pad_r(g.rank());
      for (size_t d = 0; d < g.rank(); ++d)
        pad_r[d] = end_padding(g, d);
      const dnnl::memory::desc x_md(x_dims, elem, layout_tag(x_dims.size(), channels_last_));
      const dnnl::memory::desc y_md(y_dims, elem, layout_tag(y_dims.size(), channels_last_));
      made->pd = dnnl::pooling_forward::primitive_desc(
          dnnl::pooling_forward::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max, x_md, y_md,
                                      dims(g.strides), dims(g.kernel), dims(g.pad_begin), pad_r),
          base_attr(), engine());
      made->prim = dnnl::pooling_forward(made->pd);
    }));
    std::lock_guard<std::mutex> lock(mu_);
    if (cache_.size() >= kMaxCachedShapes) cache_.clear();
    cache_.emplace(key, made);
    entry = made;
  }
  return guarded("pooling", [&] {
    std::unordered_map<int, dnnl::memory> args;
    args[DNNL_ARG_SRC] = dnnl::memory(entry->pd.src_desc(), engine(), const_cast<void*>(x));
    args[DNNL_ARG_DST] = dnnl::memory(entry->pd.dst_desc(), engine(), y);
    execute(entry->prim, entry->pd, args);
  });
}

}  // namespace onyx::onednn
