// StringSplit (opset 20): splits each string of X as Python's str.split(delimiter, maxsplit):
//   - a non-empty 'delimiter': every occurrence separates (consecutive ones delimit empty
//     strings; "" gives one empty substring);
//   - no or an empty 'delimiter': runs of whitespace separate, leading and trailing
//     whitespace is dropped (an all-whitespace string gives no substring). Whitespace is
//     Python's str.isspace set, read from UTF-8 without ICU: ASCII \t \n \v \f \r, 0x1C-0x1F,
//     space, and U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F,
//     U+3000; bytes that are not valid UTF-8 are not whitespace;
//   - 'maxsplit' (absent or negative: no limit) caps the splits; the rest of the string is
//     the last substring (with whitespace splitting, its leading whitespace is dropped).
// Y: X's shape + [the most substrings of any element], padded with empty strings;
// Z: int64, X's shape, the number of substrings of each element.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/kernel.h"

namespace onyx {
namespace {

// The length in bytes of the whitespace character at s[i], or 0 when s[i] starts none.
size_t whitespace_length(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F)) return 1;
  auto cont = [&](size_t k) { return i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF && cont(1)) {
    const char32_t cp = (char32_t(c & 0x1F) << 6) | (static_cast<unsigned char>(s[i + 1]) & 0x3F);
    return cp == 0x85 || cp == 0xA0 ? 2 : 0;
  }
  if (c >= 0xE0 && c <= 0xEF && cont(1) && cont(2)) {
    const char32_t cp = (char32_t(c & 0x0F) << 12) | (char32_t(static_cast<unsigned char>(s[i + 1]) & 0x3F) << 6) |
                        (static_cast<unsigned char>(s[i + 2]) & 0x3F);
    const bool space = cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 ||
                       cp == 0x202F || cp == 0x205F || cp == 0x3000;
    return space ? 3 : 0;
  }
  return 0;
}

// Python's s.split(None, maxsplit).
std::vector<std::string> split_whitespace(std::string_view s, int64_t maxsplit) {
  std::vector<std::string> parts;
  size_t i = 0;
  auto skip_space = [&] {
    while (i < s.size()) {
      const size_t n = whitespace_length(s, i);
      if (n == 0) break;
      i += n;
    }
  };
  skip_space();
  while (i < s.size()) {
    if (maxsplit >= 0 && int64_t(parts.size()) == maxsplit) {
      parts.emplace_back(s.substr(i));
      break;
    }
    const size_t start = i;
    while (i < s.size() && whitespace_length(s, i) == 0) ++i;
    parts.emplace_back(s.substr(start, i - start));
    skip_space();
  }
  return parts;
}

// Python's s.split(delimiter, maxsplit) for a non-empty delimiter.
std::vector<std::string> split_on(std::string_view s, std::string_view delimiter, int64_t maxsplit) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (maxsplit < 0 || int64_t(parts.size()) < maxsplit) {
    const size_t at = s.find(delimiter, start);
    if (at == std::string_view::npos) break;
    parts.emplace_back(s.substr(start, at - start));
    start = at + delimiter.size();
  }
  parts.emplace_back(s.substr(start));
  return parts;
}

class StringSplitKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    delimiter_ = info.attr_string("delimiter", "");
    maxsplit_ = info.attr_int("maxsplit", -1);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    if (!ctx.has_input(0) || ctx.input(0).dtype() != DataType::kString)
      return invalid_argument("StringSplit: input X must be a string tensor, got ", ctx.input_value(0).describe());
    const Tensor& x = ctx.input(0);
    const std::string* in = x.data<std::string>();
    std::vector<std::vector<std::string>> parts(size_t(x.numel()));
    size_t widest = 0;
    for (int64_t i = 0; i < x.numel(); ++i) {
      parts[size_t(i)] = delimiter_.empty() ? split_whitespace(in[i], maxsplit_) : split_on(in[i], delimiter_, maxsplit_);
      widest = std::max(widest, parts[size_t(i)].size());
    }
    Shape y_shape = x.shape();
    y_shape.push_back(int64_t(widest));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, DataType::kString, y_shape));
    ONYX_ASSIGN_OR_RETURN(Tensor* z, ctx.allocate_output_uninitialized(1, DataType::kInt64, x.shape()));
    std::string* out = y->data<std::string>();
    int64_t* counts = z->data<int64_t>();
    for (size_t i = 0; i < parts.size(); ++i) {
      counts[i] = int64_t(parts[i].size());
      for (size_t k = 0; k < parts[i].size(); ++k) out[i * widest + k] = std::move(parts[i][k]);
    }
    return Status::Ok();
  }

 private:
  std::string delimiter_;
  int64_t maxsplit_ = -1;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "StringSplit", 20, kLatestOpset, StringSplitKernel);

}  // namespace onyx
