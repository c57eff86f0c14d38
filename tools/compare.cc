#include "compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "core/narrow_types.h"

namespace onyx::cli {
namespace {

std::string compare_tensors(const Tensor& e, const Tensor& a, const Tolerance& tol) {
  if (e.dtype() != a.dtype())
    return std::string("dtype: expected ") + data_type_name(e.dtype()) + ", got " + data_type_name(a.dtype());
  if (e.shape() != a.shape()) return "shape: expected " + shape_to_string(e.shape()) + ", got " + shape_to_string(a.shape());
  if (tol.shapes_only) return "";
  const int64_t n = e.numel();
  int64_t bad = 0, first = -1;
  double max_err = 0;
  std::string first_e, first_a;
  if (e.dtype() == DataType::kString) {
    for (int64_t i = 0; i < n; ++i) {
      if (e.data<std::string>()[i] != a.data<std::string>()[i]) {
        if (first < 0) { first = i; first_e = e.data<std::string>()[i]; first_a = a.data<std::string>()[i]; }
        ++bad;
      }
    }
    if (!bad) return "";
    return std::to_string(bad) + "/" + std::to_string(n) + " strings differ; first [" + std::to_string(first) +
           "] expected \"" + first_e + "\" got \"" + first_a + "\"";
  }
  if (is_narrow_type(e.dtype())) {  // float8, int4, float4 ...: the element codes must be equal
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t ec = narrow_code_at(e.raw_data(), e.dtype(), i), ac = narrow_code_at(a.raw_data(), a.dtype(), i);
      if (ec != ac) {
        if (first < 0) {
          first = i;
          std::ostringstream os1, os2;
          os1 << e.get_double(i) << " (code 0x" << std::hex << int(ec) << ")";
          os2 << a.get_double(i) << " (code 0x" << std::hex << int(ac) << ")";
          first_e = os1.str(); first_a = os2.str();
        }
        ++bad;
      }
    }
    if (!bad) return "";
    return std::to_string(bad) + "/" + std::to_string(n) + " elements differ in their bits; first [" +
           std::to_string(first) + "] expected " + first_e + " got " + first_a;
  }
  const bool is_float = is_float_type(e.dtype()) || e.dtype() == DataType::kComplex64 || e.dtype() == DataType::kComplex128;
  const int64_t count = e.dtype() == DataType::kComplex64 || e.dtype() == DataType::kComplex128 ? 2 * n : n;
  // float16 holds about three decimal digits: its outputs are held to about four units in the
  // last place (2^-10 relative each), the least that a reordered float32 sum rounded to float16
  // (a GPU's convolution, say) can promise against a float64 reference.
  const double rtol = e.dtype() == DataType::kFloat16 ? std::max(tol.rtol, 4e-3) : tol.rtol;
  for (int64_t i = 0; i < count; ++i) {
    bool ok;
    double ev, av;
    if (e.dtype() == DataType::kComplex64) { ev = e.data<float>()[i]; av = a.data<float>()[i]; }
    else if (e.dtype() == DataType::kComplex128) { ev = e.data<double>()[i]; av = a.data<double>()[i]; }
    else if (e.dtype() == DataType::kUInt64 || e.dtype() == DataType::kInt64) {
      const bool eq = e.get_int64(i) == a.get_int64(i);
      if (!eq) { ++bad; if (first < 0) { first = i; first_e = std::to_string(e.get_int64(i)); first_a = std::to_string(a.get_int64(i)); } }
      continue;
    } else { ev = e.get_double(i); av = a.get_double(i); }
    if (is_float) {
      if (std::isnan(ev) || std::isnan(av)) ok = std::isnan(ev) && std::isnan(av);
      else if (std::isinf(ev) || std::isinf(av)) ok = ev == av;
      else {
        const double err = std::fabs(av - ev);
        ok = err <= tol.atol + rtol * std::fabs(ev);
        if (!ok) max_err = std::max(max_err, err);
      }
    } else {
      ok = ev == av;
    }
    if (!ok) {
      ++bad;
      if (first < 0) {
        first = i;
        std::ostringstream os1, os2;
        os1.precision(9); os2.precision(9);
        os1 << ev; os2 << av;
        first_e = os1.str(); first_a = os2.str();
      }
    }
  }
  if (!bad) return "";
  std::ostringstream os;
  os << bad << "/" << count << " values out of tolerance";
  if (is_float) os << " (max abs err " << max_err << ")";
  os << "; first [" << first << "] expected " << first_e << " got " << first_a;
  return os.str();
}

// Maps compare by key, in any order: the same key set, and each key's value within tolerance.
std::string compare_maps(const Value& e, const Value& a, const Tolerance& tol) {
  if (e.map_keys().dtype() != a.map_keys().dtype() || e.map_values().dtype() != a.map_values().dtype())
    return "map type: expected " + e.describe() + ", got " + a.describe();
  const Tensor& ek = e.map_keys();
  const Tensor& ak = a.map_keys();
  if (ek.numel() != ak.numel())
    return "map size: expected " + std::to_string(ek.numel()) + ", got " + std::to_string(ak.numel());
  const bool strings = ek.dtype() == DataType::kString;
  auto key_text = [&](const Tensor& k, int64_t i) { return strings ? k.data<std::string>()[i] : std::to_string(k.get_int64(i)); };
  std::vector<int64_t> order(size_t(ak.numel()));
  for (int64_t i = 0; i < ak.numel(); ++i) order[size_t(i)] = i;
  for (int64_t i = 0; i < ek.numel(); ++i) {
    const std::string key = key_text(ek, i);
    int64_t found = -1;
    for (int64_t j = 0; j < ak.numel() && found < 0; ++j)
      if (key_text(ak, j) == key) found = j;
    if (found < 0) return "map key '" + key + "' is missing";
    order[size_t(i)] = found;
  }
  // The actual values in the expected map's key order, compared as 1-D tensors.
  const Tensor& av = a.map_values();
  Tensor reordered(av.dtype(), {av.numel()});
  for (int64_t i = 0; i < av.numel(); ++i) {
    if (av.dtype() == DataType::kString) reordered.data<std::string>()[i] = av.data<std::string>()[order[size_t(i)]];
    else std::memcpy(static_cast<char*>(reordered.raw_data()) + size_t(i) * av.itemsize(),
                     static_cast<const char*>(av.raw_data()) + size_t(order[size_t(i)]) * av.itemsize(), av.itemsize());
  }
  return compare_tensors(e.map_values(), reordered, tol);
}

}  // namespace

std::string compare_values(const Value& expected, const Value& actual, const Tolerance& tol) {
  if (expected.kind() != actual.kind()) return "kind: expected " + expected.describe() + ", got " + actual.describe();
  if (expected.is_tensor()) return compare_tensors(expected.tensor(), actual.tensor(), tol);
  if (expected.is_sequence()) {
    const auto& es = expected.sequence_items();
    const auto& as = actual.sequence_items();
    if (es.size() != as.size())
      return "sequence length: expected " + std::to_string(es.size()) + ", got " + std::to_string(as.size());
    for (size_t i = 0; i < es.size(); ++i) {
      std::string d = compare_tensors(es[i], as[i], tol);
      if (!d.empty()) return "item " + std::to_string(i) + ": " + d;
    }
  }
  if (expected.is_map()) return compare_maps(expected, actual, tol);
  if (expected.is_map_sequence()) {
    const auto& es = expected.map_sequence_items();
    const auto& as = actual.map_sequence_items();
    if (es.size() != as.size())
      return "sequence length: expected " + std::to_string(es.size()) + ", got " + std::to_string(as.size());
    for (size_t i = 0; i < es.size(); ++i) {
      std::string d = compare_maps(es[i], as[i], tol);
      if (!d.empty()) return "map " + std::to_string(i) + ": " + d;
    }
  }
  return "";
}

}  // namespace onyx::cli
