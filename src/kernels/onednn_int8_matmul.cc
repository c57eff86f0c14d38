#include "kernels/onednn_int8_matmul.h"

#include <unordered_map>

#include "kernels/onednn.h"

namespace onyx::onednn {
namespace {

using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;
constexpr size_t kMaxCachedShapes = 32;

}  // namespace

Status Int8MatMul::pack(const int8_t* b, int64_t k, int64_t n, int64_t m_hint) {
  if (packed_) return error(StatusCode::kInternal, "int8 matmul weights packed twice");
  if (k <= 0 || n <= 0) return invalid_argument("int8 matmul weights must be non-empty, got ", k, " x ", n);
  k_ = k;
  n_ = n;
  return guarded("int8 matmul packing", [&] {
    const dnnl::memory::desc a_md({m_hint, k}, dt::u8, tag::ab), b_any({k, n}, dt::s8, tag::any),
        y_md({m_hint, n}, dt::s32, tag::ab), b_plain({k, n}, dt::s8, tag::ab);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_any, y_md), base_attr(), engine());
    const dnnl::memory plain(b_plain, engine(), const_cast<int8_t*>(b));
    packed_ = std::make_shared<const dnnl::memory>(reorder_copy(plain, pd.weights_desc()));
  });
}

Result<std::shared_ptr<const Int8MatMul::Entry>> Int8MatMul::entry_for(int64_t m, bool a_unsigned) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto key = std::make_pair(m, a_unsigned);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  auto entry = std::make_shared<Entry>();
  Status s = guarded("int8 matmul setup", [&] {
    const dnnl::memory::desc a_md({m, k_}, a_unsigned ? dt::u8 : dt::s8, tag::ab), y_md({m, n_}, dt::s32, tag::ab);
    auto make = [&](const dnnl::memory::desc& b_md) {
      return dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, y_md), base_attr(), engine());
    };
    bool direct = false;
    try {
      entry->pd = make(packed_->get_desc());
      direct = true;
    } catch (const dnnl::error&) {
      direct = false;  // this shape's primitive wants another layout
    }
    if (!direct) {
      entry->pd = make(dnnl::memory::desc({k_, n_}, dt::s8, tag::any));
      entry->own_b = reorder_copy(*packed_, entry->pd.weights_desc());
      entry->has_own_b = true;
    }
    entry->prim = dnnl::matmul(entry->pd);
  });
  ONYX_RETURN_IF_ERROR(s);
  if (cache_.size() >= kMaxCachedShapes) cache_.clear();  // dynamic shapes: keep the cache bounded
  cache_.emplace(key, entry);
  return std::shared_ptr<const Entry>(entry);
}

Status Int8MatMul::run(const void* a, bool a_unsigned, int64_t m, int32_t* acc) const {
  if (!packed_) return error(StatusCode::kInternal, "int8 matmul run before its weights were packed");
  if (m <= 0) return Status::Ok();
  ONYX_ASSIGN_OR_RETURN(auto entry, entry_for(m, a_unsigned));
  return guarded("int8 matmul", [&] {
    std::unordered_map<int, dnnl::memory> args;
    args[DNNL_ARG_SRC] = dnnl::memory(entry->pd.src_desc(), engine(), const_cast<void*>(a));
    args[DNNL_ARG_WEIGHTS] = entry->has_own_b ? entry->own_b : *packed_;
    args[DNNL_ARG_DST] = dnnl::memory(entry->pd.dst_desc(), engine(), acc);
    execute(entry->prim, entry->pd, args);
  });
}

}  // namespace onyx::onednn
