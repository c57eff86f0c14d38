// MelWeightMatrix: the [dft_length/2 + 1, num_mel_bins] matrix of triangular mel filters
// (peak 1.0) between lower_edge_hertz and upper_edge_hertz, with mel(f) = 2595 log10(1 + f/700).
// The num_mel_bins + 2 band edges are spaced evenly in mel over num_mel_bins + 2 steps and
// mapped to spectrogram bins as floor((dft_length + 1) * f / sample_rate), as in the ONNX
// reference. Computed in double, cast to output_datatype (default float).
#include <algorithm>
#include <cmath>

#include "kernels/signal_common.h"

namespace onyx {
namespace {

// Checks that input i is a scalar of an integer (or floating-point) type.
Status check_scalar(const KernelContext& ctx, int i, const char* what, bool integer) {
  const Tensor& t = ctx.input(i);
  if (!t.defined() || t.numel() != 1 || (integer ? !is_integer_type(t.dtype()) : !is_float_type(t.dtype())))
    return invalid_argument(what, " must be ", integer ? "an integer" : "a floating-point", " scalar, got ",
                            t.describe());
  return Status::Ok();
}

class MelWeightMatrixKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override { return parse_output_datatype(info, &out_type_); }

  Status compute(KernelContext& ctx) const override {
    const char* names[] = {"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz"};
    for (int i = 0; i < 5; ++i) ONYX_RETURN_IF_ERROR(check_scalar(ctx, i, names[i], i < 3));
    const int64_t mel_bins = ctx.input(0).get_int64(0);
    const int64_t dft_length = ctx.input(1).get_int64(0);
    const double sample_rate = ctx.input(2).get_double(0);
    const double lower_hz = ctx.input(3).get_double(0);
    const double upper_hz = ctx.input(4).get_double(0);
    if (mel_bins <= 0 || dft_length <= 0 || sample_rate <= 0)
      return invalid_argument("num_mel_bins, dft_length and sample_rate must be positive");
    if (!(lower_hz >= 0 && lower_hz <= upper_hz && upper_hz < 1e300))
      return invalid_argument("need 0 <= lower_edge_hertz <= upper_edge_hertz, got ", lower_hz, " and ", upper_hz);
    const int64_t spectrogram_bins = dft_length / 2 + 1;
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, out_type_, {spectrogram_bins, mel_bins}));

    const auto mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
    const double low_mel = mel(lower_hz);
    const double step = (mel(upper_hz) - low_mel) / double(mel_bins + 2);
    // Band edges as whole bin numbers, kept in double: they may lie far past the matrix.
    std::vector<double> edges(static_cast<size_t>(mel_bins + 2));
    for (int64_t k = 0; k < mel_bins + 2; ++k) {
      const double hz = 700.0 * (std::pow(10.0, (double(k) * step + low_mel) / 2595.0) - 1.0);
      edges[size_t(k)] = std::floor(double(dft_length + 1) * hz / sample_rate);
    }
    // Rows [first, last] of the matrix that lie in the bin range [lo, hi].
    const auto rows = [&](double lo, double hi, int64_t* first, int64_t* last) {
      *first = int64_t(std::clamp(lo, 0.0, double(spectrogram_bins)));
      *last = int64_t(std::clamp(hi, -1.0, double(spectrogram_bins - 1)));
    };

    std::vector<double> w(static_cast<size_t>(spectrogram_bins * mel_bins), 0.0);
    for (int64_t i = 0; i < mel_bins; ++i) {
      const double left = edges[size_t(i)], center = edges[size_t(i + 1)], right = edges[size_t(i + 2)];
      int64_t first, last;
      if (center == left) {
        if (center >= 0 && center < double(spectrogram_bins)) w[size_t(int64_t(center) * mel_bins + i)] = 1.0;
      } else {
        rows(left, center, &first, &last);
        for (int64_t j = first; j <= last; ++j) w[size_t(j * mel_bins + i)] = (double(j) - left) / (center - left);
      }
      if (right > center) {
        rows(center, right - 1, &first, &last);
        for (int64_t j = first; j <= last; ++j) w[size_t(j * mel_bins + i)] = (right - double(j)) / (right - center);
      }
    }

    return dispatch<ONYX_NUMERIC_TYPES>(out_type_, [&]<typename T>() -> Status {
      T* out = y->data<T>();
      for (size_t k = 0; k < w.size(); ++k) out[k] = static_cast<T>(static_cast<compute_t<T>>(w[k]));
      return Status::Ok();
    });
  }

 private:
  DataType out_type_ = DataType::kFloat;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "MelWeightMatrix", 17, kLatestOpset, MelWeightMatrixKernel);

}  // namespace onyx
