// MatMul: numpy.matmul semantics (batch broadcasting, 1-D operands).
// float32 runs through oneDNN (a constant B is packed once); other floats compute in float /
// double; integers wrap around like two's-complement hardware.
#include <type_traits>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/gemm.h"
#include "kernels/kernel.h"
#include "kernels/matmul_common.h"
#include "kernels/onednn_matmul.h"

namespace onyx {
namespace {

// op(a) * op(b) for numpy.matmul shapes as oneDNN sees them: 1-D operands made 2-D, ranks
// equalised with leading 1s, and the batch of a folded into its rows when b has no batch.
onednn::MatMulShape onednn_shape(const Shape& a, const Shape& b) {
  onednn::MatMulShape s;
  s.a.assign(a.begin(), a.end());
  s.b.assign(b.begin(), b.end());
  if (s.a.size() == 1) s.a.insert(s.a.begin(), 1);
  if (s.b.size() == 1) s.b.push_back(1);
  bool b_has_batch = false;
  for (size_t i = 0; i + 2 < s.b.size(); ++i) b_has_batch |= s.b[i] != 1;
  if (!b_has_batch) {
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < s.a.size(); ++i) rows *= s.a[i];
    s.a = {rows, s.a.back()};
    s.b = {s.b[s.b.size() - 2], s.b.back()};
    return s;
  }
  while (s.a.size() < s.b.size()) s.a.insert(s.a.begin(), 1);
  while (s.b.size() < s.a.size()) s.b.insert(s.b.begin(), 1);
  return s;
}

class MatMulKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const Tensor* b = info.constant_input(1);
    if (b && b->dtype() == DataType::kFloat && b->rank() == 2 && b->numel() > 0) {
      ONYX_ASSIGN_OR_RETURN(onednn::PackedWeights packed,
                            onednn::MatMul::pack_b(b->data<float>(), b->shape(), false, kRowsHint,
                                                                   info.settings().bf16_gemm));
      matmul_.use_packed_b(std::move(packed));
      packed_ = true;
    }
    return Status::Ok();
  }

  // A packed B is never read again (a non-float A is refused before B's data is needed).
  std::vector<int> released_constant_inputs() const override { return packed_ ? std::vector<int>{1} : std::vector<int>{}; }

  Status compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype()) return invalid_argument("A and B types differ: ", a.describe(), " and ", b.describe());
    ONYX_ASSIGN_OR_RETURN(MatMulPlan plan, plan_matmul(a.shape(), b.shape()));
    if (a.dtype() == DataType::kFloat && plan.k > 0) {
      ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output_uninitialized(0, a.dtype(), plan.out));
      if (y->numel() == 0) return Status::Ok();
      return matmul_.run(onednn_shape(a.shape(), b.shape()), a.data<float>(), b.data<float>(), nullptr,
                         y->data<float>());
    }
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, a.dtype(), plan.out));
    if (y->numel() == 0) return Status::Ok();
    return dispatch<ONYX_FLOAT_TYPES, int32_t, int64_t, uint32_t, uint64_t>(a.dtype(), [&]<typename T>() -> Status {
      using CT = std::conditional_t<std::is_integral_v<T>, uint64_t, compute_t<T>>;
      std::vector<CT> abuf, bbuf, ybuf;
      const CT* ac = as_compute_type<CT>(a.data<T>(), a.numel(), abuf);
      const CT* bc = as_compute_type<CT>(b.data<T>(), b.numel(), bbuf);
      if constexpr (std::is_same_v<T, CT>) {
        batched_matmul<CT>(plan, ac, bc, y->data<T>());
      } else {
        ybuf.resize(size_t(y->numel()));
        batched_matmul<CT>(plan, ac, bc, ybuf.data());
        T* out = y->data<T>();
        for (int64_t i = 0; i < y->numel(); ++i) out[i] = static_cast<T>(ybuf[size_t(i)]);
      }
      return Status::Ok();
    });
  }

 private:
  static constexpr int64_t kRowsHint = 128;  // rows of A the packed layout is chosen for
  onednn::MatMul matmul_{onednn::MatMulEpilogue{}};
  bool packed_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "MatMul", 1, kLatestOpset, MatMulKernel);

}  // namespace onyx
