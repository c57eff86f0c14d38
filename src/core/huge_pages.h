// Transparent huge pages for large buffers: weights copied out of a model file, packed weights,
// big activations. With 4 KiB pages a 400 MB model costs ~100,000 page faults when it is first
// written (half of BERT-base's session creation was the kernel faulting pages in) and the weight
// streams of decoding miss the TLB every 4 KiB; a 2 MiB page takes 512 of each at once.
// Where the kernel offers huge pages on request only (transparent_hugepage = madvise, Debian's
// default), asking is what makes the difference.
#pragma once
#include <cstddef>

namespace onyx {

// Buffers at least this large are worth asking for.
inline constexpr size_t kHugePageThreshold = size_t(2) << 20;

// Asks the kernel to back the 2 MiB-aligned pages inside [p, p + bytes) with huge pages, before
// they are first written. A no-op below kHugePageThreshold, where madvise cannot (other
// systems), and when the environment sets ONYX_HUGE_PAGES=0; never fails.
void advise_huge_pages(void* p, size_t bytes);

}  // namespace onyx
