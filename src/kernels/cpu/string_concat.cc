// StringConcat (opset 20): z = x + y, the byte concatenation of string elements, with numpy
// broadcasting. Strings are byte sequences: UTF-8 text stays valid UTF-8.
#include <string>

#include "kernels/elementwise_binary.h"

namespace onyx {
namespace {

class StringConcatKernel final : public Kernel {
 public:
  Status compute(KernelContext& ctx) const override {
    return compute_binary<false, std::string>(ctx, broadcast_, []<typename T>(const T& x, const T& y) { return x + y; });
  }

 private:
  BinaryBroadcast broadcast_;  // numpy rules (the op has no legacy broadcast attributes)
};

}  // namespace

ONYX_REGISTER_KERNEL("", "StringConcat", 20, kLatestOpset, StringConcatKernel);

}  // namespace onyx
