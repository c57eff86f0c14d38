// BitShift: Z = X << Y or X >> Y elementwise on unsigned integers, with numpy broadcasting.
// A shift by the bit width or more gives 0.
#include <climits>
#include <string>

#include "kernels/elementwise_binary.h"

namespace onyx {
namespace {

class BitShiftKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const std::string direction = info.attr_string("direction", "");
    if (direction != "LEFT" && direction != "RIGHT")
      return invalid_model("attribute 'direction' must be \"LEFT\" or \"RIGHT\", got \"", direction, "\"");
    left_ = direction == "LEFT";
    return broadcast_.parse(info);
  }

  Status compute(KernelContext& ctx) const override {
    const bool left = left_;
    return compute_binary<false, ONYX_UNSIGNED_INT_TYPES>(ctx, broadcast_, [left]<typename T>(T x, T y) {
      if (y >= T(sizeof(T) * CHAR_BIT)) return T(0);
      return left ? T(wrap_t<T>(x) << y) : T(x >> y);
    });
  }

 private:
  bool left_ = true;
  BinaryBroadcast broadcast_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "BitShift", 11, kLatestOpset, BitShiftKernel);

}  // namespace onyx
