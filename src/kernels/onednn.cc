#include "kernels/onednn.h"

#include <cstdlib>
#include <memory>

namespace onyx::onednn {

namespace {

// oneDNN keeps a process-wide cache of created primitives (JIT code included), 1,024 by
// default: with changing input shapes it grows to that size and holds tens of MB. onyx's
// kernels keep their own bounded per-shape caches, so oneDNN's is kept small unless the user
// chose a size with ONEDNN_PRIMITIVE_CACHE_CAPACITY.
constexpr int kPrimitiveCacheCapacity = 64;

}  // namespace

const dnnl::engine& engine() {
  static const dnnl::engine cpu = [] {
    if (!std::getenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY") && !std::getenv("DNNL_PRIMITIVE_CACHE_CAPACITY"))
      dnnl::set_primitive_cache_capacity(kPrimitiveCacheCapacity);
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return cpu;
}

dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

void* thread_scratch(ScratchSlot slot, size_t bytes) {
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  thread_local std::unique_ptr<void, Free> buffers[kScratchSlots];
  thread_local size_t capacity[kScratchSlots] = {};
  if (bytes > capacity[slot]) {
    const size_t grown = (bytes + 4095) / 4096 * 4096;
    void* p = std::aligned_alloc(64, grown);
    if (!p) throw std::bad_alloc();
    buffers[slot].reset(p);
    capacity[slot] = grown;
  }
  return buffers[slot].get();
}

dnnl::memory::dims dense_strides(const dnnl::memory::dims& d) {
  dnnl::memory::dims s(d.size(), 1);
  for (size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
  return s;
}

dnnl::primitive_attr base_attr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

LayoutReorder::LayoutReorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to)
    : pd(engine(), from, engine(), to, base_attr()), prim(pd) {}

void LayoutReorder::run(const dnnl::memory& from, const dnnl::memory& to) const {
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
  execute(prim, pd, args);
}

dnnl::memory reorder_copy(const dnnl::memory& from, const dnnl::memory::desc& to) {
  dnnl::memory out(to, engine());
  const dnnl::reorder::primitive_desc pd(engine(), from.get_desc(), engine(), to, base_attr());
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, out}};
  execute(dnnl::reorder(pd), pd, args);
  return out;
}

void execute(const dnnl::primitive& prim, const dnnl::primitive_desc_base& pd,
             std::unordered_map<int, dnnl::memory>& args) {
  const dnnl::memory::desc scratch_md = pd.scratchpad_desc();
  const size_t bytes = scratch_md.get_size();
  if (bytes > 0) args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(scratch_md, engine(), thread_scratch(kPrimitiveScratch, bytes));
  dnnl::stream& s = stream();
  prim.execute(s, args);
  s.wait();
}

}  // namespace onyx::onednn
