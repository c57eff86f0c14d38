// ai.onnx.ml CastMap: a map<int64, string | float> becomes Y [1, N] of cast_to's type
// (TO_FLOAT, TO_STRING, TO_INT64). map_form DENSE: the values in increasing key order,
// N = the map's size. SPARSE: N = max_map, Y[0, k] = the value of key k, keys outside
// [0, max_map) ignored, absent ones padded with 0 (the string "0.f" for TO_STRING, as ONNX
// Runtime pads). Floats become strings as "%f" prints them and int64 by truncation; strings
// are parsed as numbers (INVALID_ARGUMENT when one is not).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "kernels/kernel.h"

namespace onyx {
namespace {

class CastMapKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const std::string to = info.attr_string("cast_to", "TO_FLOAT");
    if (to == "TO_FLOAT") to_ = DataType::kFloat;
    else if (to == "TO_STRING") to_ = DataType::kString;
    else if (to == "TO_INT64") to_ = DataType::kInt64;
    else return invalid_model("CastMap: cast_to must be TO_FLOAT, TO_STRING or TO_INT64, got '", to, "'");
    const std::string form = info.attr_string("map_form", "DENSE");
    if (form != "DENSE" && form != "SPARSE") return invalid_model("CastMap: map_form must be DENSE or SPARSE, got '", form, "'");
    sparse_ = form == "SPARSE";
    max_map_ = info.attr_int("max_map", 1);
    if (sparse_ && (max_map_ < 1 || max_map_ > (int64_t(1) << 40)))
      return invalid_model("CastMap: max_map must be positive, got ", max_map_);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Value& in = ctx.input_value(0);
    if (!in.is_map() || in.map_keys().dtype() != DataType::kInt64 ||
        (in.map_values().dtype() != DataType::kFloat && in.map_values().dtype() != DataType::kString))
      return invalid_argument("CastMap: X must be a map<int64, float | string>, got ", in.describe());
    const Tensor& keys = in.map_keys();
    const Tensor& values = in.map_values();
    std::vector<int64_t> order(size_t(keys.numel()));
    std::iota(order.begin(), order.end(), int64_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t a, int64_t b) { return keys.data<int64_t>()[a] < keys.data<int64_t>()[b]; });
    const int64_t width = sparse_ ? max_map_ : keys.numel();
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, to_, {1, width}));
    if (sparse_ && to_ == DataType::kString)
      for (int64_t k = 0; k < width; ++k) y->data<std::string>()[k] = "0.f";
    for (int64_t i = 0; i < keys.numel(); ++i) {
      const int64_t from = order[size_t(i)];
      const int64_t at = sparse_ ? keys.data<int64_t>()[from] : i;
      if (at < 0 || at >= width) continue;
      ONYX_RETURN_IF_ERROR(cast_one(values, from, y, at));
    }
    return Status::Ok();
  }

 private:
  Status cast_one(const Tensor& values, int64_t from, Tensor* y, int64_t at) const {
    if (values.dtype() == DataType::kFloat) {
      const float v = values.data<float>()[from];
      if (to_ == DataType::kFloat) y->data<float>()[at] = v;
      else if (to_ == DataType::kString) {
        char text[128];  // "%f" of the largest float is 46 characters
        std::snprintf(text, sizeof text, "%f", double(v));
        y->data<std::string>()[at] = text;
      } else {
        if (!(std::fabs(v) < 9.2e18f)) return invalid_argument("CastMap: ", v, " does not fit int64");
        y->data<int64_t>()[at] = int64_t(v);
      }
      return Status::Ok();
    }
    const std::string& s = values.data<std::string>()[from];
    if (to_ == DataType::kString) {
      y->data<std::string>()[at] = s;
      return Status::Ok();
    }
    char* end = nullptr;
    if (to_ == DataType::kFloat) {
      const float v = std::strtof(s.c_str(), &end);
      if (end == s.c_str()) return invalid_argument("CastMap: '", s, "' is not a number");
      y->data<float>()[at] = v;
    } else {
      const long long v = std::strtoll(s.c_str(), &end, 10);
      if (end == s.c_str()) return invalid_argument("CastMap: '", s, "' is not an integer");
      y->data<int64_t>()[at] = int64_t(v);
    }
    return Status::Ok();
  }

  DataType to_ = DataType::kFloat;
  bool sparse_ = false;
  int64_t max_map_ = 1;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "CastMap", 1, kLatestOpset, CastMapKernel);

}  // namespace onyx
