// The one place onyx talks to oneDNN's common machinery: the CPU engine, per-thread streams
// and scratch memory, and turning oneDNN's exceptions into Status. Primitive users
// (onednn_matmul, onednn_conv) build on these.
//
// Primitives are created with a user-managed scratchpad so that one primitive may run from
// several threads at once (Session::run is const and thread-safe): each call passes its own
// thread's scratch buffer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/status.h"

namespace onyx::onednn {

// The process's CPU engine.
const dnnl::engine& engine();
// A stream on the engine for the calling thread.
dnnl::stream& stream();
// Per-thread scratch buffers, one per slot, reused across calls: at least `bytes` owned by
// the calling thread, valid until its next call with the same slot. Slot kPrimitiveScratch
// is execute()'s; others are free for callers (e.g. reordered activations; kWeightsScratch
// and kGradientScratch for the backward convolutions' third and fourth operands).
enum ScratchSlot {
  kPrimitiveScratch = 0,
  kSourceScratch = 1,
  kDestinationScratch = 2,
  kWeightsScratch = 3,
  kGradientScratch = 4,
  kScratchSlots = 5
};
void* thread_scratch(ScratchSlot slot, size_t bytes);

// A oneDNN dims vector from onyx dims.
inline dnnl::memory::dims dims(const std::vector<int64_t>& d) { return dnnl::memory::dims(d.begin(), d.end()); }
// Row-major strides of `d`.
dnnl::memory::dims dense_strides(const dnnl::memory::dims& d);
// A float32 memory descriptor over `d` with `strides`.
inline dnnl::memory::desc f32_desc(const dnnl::memory::dims& d, const dnnl::memory::dims& strides) {
  return dnnl::memory::desc(d, dnnl::memory::data_type::f32, strides);
}

// The primitive attributes every onyx primitive starts from (user scratchpad).
dnnl::primitive_attr base_attr();

// The plain (row-major) format tag of an activation of 3 to 5 dims: ncw, nchw, ncdhw.
inline dnnl::memory::format_tag plain_activation_tag(size_t rank) {
  using tag = dnnl::memory::format_tag;
  return rank == 3 ? tag::ncw : rank == 4 ? tag::nchw : tag::ncdhw;
}

// A reorder between two layouts of one tensor, created with a user scratchpad so that one may
// run from several threads at once.
struct LayoutReorder {
  dnnl::reorder::primitive_desc pd;
  dnnl::reorder prim;
  LayoutReorder() = default;
  LayoutReorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to);
  // Runs it on the calling thread's stream and waits.
  void run(const dnnl::memory& from, const dnnl::memory& to) const;
};

// Runs `fn`, turning a dnnl::error into INTERNAL (and bad_alloc into RUNTIME_ERROR) naming `what` and oneDNN's message.
template <typename Fn>
Status guarded(const char* what, Fn&& fn) {
  try {
    fn();
    return Status::Ok();
  } catch (const dnnl::error& e) {
    return error(StatusCode::kInternal, "oneDNN ", what, ": ", e.what(), " (status ", int(e.status), ")");
  } catch (const std::bad_alloc&) {
    return runtime_error("out of memory in oneDNN ", what);
  }
}

// Constant weights copied into the layout a oneDNN primitive chose, owned by the kernel that
// packed them (shared by its primitive variants); read-only after packing.
using PackedWeights = std::shared_ptr<const dnnl::memory>;

// Copies `from` into new memory of layout `to` (a reorder), returning it.
dnnl::memory reorder_copy(const dnnl::memory& from, const dnnl::memory::desc& to);

// Executes `prim` on the calling thread's stream with its scratchpad (size from `pd`) added
// to `args`, and waits for it.
void execute(const dnnl::primitive& prim, const dnnl::primitive_desc_base& pd,
             std::unordered_map<int, dnnl::memory>& args);

}  // namespace onyx::onednn
