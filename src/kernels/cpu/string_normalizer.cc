// StringNormalizer: drops the stopwords (case-sensitively or not) from a [C] or [1, C]
// string tensor, then lower- or upper-cases what is left. Case mapping is locale-free and
// built in: ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic letters (one-to-one
// mappings only; e.g. the German sharp s stays as it is). Bytes that are not valid UTF-8
// pass through unchanged. The locale attribute is accepted and does not change the mapping.
// When every element is dropped the output is one empty string, [1] or [1, 1].
#include <unordered_set>

#include "kernels/kernel.h"

namespace onyx {
namespace {

enum class CaseAction { kNone, kLower, kUpper };

// The lower-case form of code point c (c itself when it has none).
char32_t to_lower(char32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
  if ((c >= 0xC0 && c <= 0xDE && c != 0xD7)) return c + 0x20;
  if (c == 0x178) return 0xFF;
  if (c >= 0x100 && c <= 0x17F) {
    // Latin Extended-A pairs upper/lower as even/odd, except 0x139..0x148 and 0x179..0x17E
    // (odd/even), and 0x130, 0x131, 0x138, 0x149, 0x17F which have no simple pair here.
    if (c == 0x130 || c == 0x131 || c == 0x138 || c == 0x149 || c == 0x17F) return c;
    const bool odd_upper = (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E);
    return odd_upper ? (c % 2 ? c + 1 : c) : (c % 2 ? c : c + 1);
  }
  if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 0x20;  // Greek capitals
  if (c >= 0x386 && c <= 0x38F) {
    if (c == 0x386) return 0x3AC;
    if (c >= 0x388 && c <= 0x38A) return c + 0x25;
    if (c == 0x38C) return 0x3CC;
    if (c == 0x38E || c == 0x38F) return c + 0x3F;
  }
  if (c >= 0x410 && c <= 0x42F) return c + 0x20;  // Cyrillic capitals
  if (c >= 0x400 && c <= 0x40F) return c + 0x50;
  return c;
}

// The upper-case form of code point c (c itself when it has none).
char32_t to_upper(char32_t c) {
  if (c < 0x80) return c >= 'a' && c <= 'z' ? c - 32 : c;
  if (c >= 0xE0 && c <= 0xFE && c != 0xF7) return c - 0x20;
  if (c == 0xFF) return 0x178;
  if (c >= 0x100 && c <= 0x17F) {
    if (c == 0x130 || c == 0x131 || c == 0x138 || c == 0x149 || c == 0x17F) return c;
    const bool odd_upper = (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E);
    return odd_upper ? (c % 2 ? c : c - 1) : (c % 2 ? c - 1 : c);
  }
  if (c >= 0x3B1 && c <= 0x3CB && c != 0x3C2) return c - 0x20;  // Greek small letters
  if (c == 0x3C2) return 0x3A3;                                 // final sigma
  if (c == 0x3AC) return 0x386;
  if (c >= 0x3AD && c <= 0x3AF) return c - 0x25;
  if (c == 0x3CC) return 0x38C;
  if (c == 0x3CD || c == 0x3CE) return c - 0x3F;
  if (c >= 0x430 && c <= 0x44F) return c - 0x20;  // Cyrillic small letters
  if (c >= 0x450 && c <= 0x45F) return c - 0x50;
  return c;
}

// Decodes one UTF-8 sequence at s[i]; returns its length, or 0 when it is not valid UTF-8.
size_t decode(const std::string& s, size_t i, char32_t* out) {
  const unsigned char b0 = static_cast<unsigned char>(s[i]);
  size_t len;
  char32_t c;
  if (b0 < 0x80) { *out = b0; return 1; }
  if (b0 >= 0xC2 && b0 <= 0xDF) { len = 2; c = b0 & 0x1F; }
  else if (b0 >= 0xE0 && b0 <= 0xEF) { len = 3; c = b0 & 0x0F; }
  else if (b0 >= 0xF0 && b0 <= 0xF4) { len = 4; c = b0 & 0x07; }
  else return 0;
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const unsigned char b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    c = (c << 6) | (b & 0x3F);
  }
  if ((len == 3 && (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF))) || (len == 4 && (c < 0x10000 || c > 0x10FFFF)))
    return 0;
  *out = c;
  return len;
}

void encode(char32_t c, std::string& out) {
  if (c < 0x80) {
    out += char(c);
  } else if (c < 0x800) {
    out += char(0xC0 | (c >> 6));
    out += char(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += char(0xE0 | (c >> 12));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  } else {
    out += char(0xF0 | (c >> 18));
    out += char(0x80 | ((c >> 12) & 0x3F));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  }
}

std::string change_case(const std::string& s, CaseAction action) {
  if (action == CaseAction::kNone) return s;
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    char32_t c;
    const size_t len = decode(s, i, &c);
    if (len == 0) {  // not UTF-8: keep the byte
      out += s[i++];
      continue;
    }
    encode(action == CaseAction::kLower ? to_lower(c) : to_upper(c), out);
    i += len;
  }
  return out;
}

class StringNormalizerKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const std::string action = info.attr_string("case_change_action", "NONE");
    if (action == "NONE") action_ = CaseAction::kNone;
    else if (action == "LOWER") action_ = CaseAction::kLower;
    else if (action == "UPPER") action_ = CaseAction::kUpper;
    else return invalid_model("case_change_action must be LOWER, UPPER or NONE, got '", action, "'");
    case_sensitive_ = info.attr_int("is_case_sensitive", 0) != 0;
    for (const std::string& word : info.attr_strings("stopwords"))
      stopwords_.insert(case_sensitive_ ? word : change_case(word, CaseAction::kLower));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined() || x.dtype() != DataType::kString)
      return invalid_argument("StringNormalizer input must be a string tensor, got ", x.describe());
    if (!(x.rank() == 1 || (x.rank() == 2 && x.dim(0) == 1)))
      return invalid_argument("StringNormalizer input must be [C] or [1, C], got ", x.describe());
    const std::string* in = x.data<std::string>();
    std::vector<std::string> kept;
    for (int64_t i = 0; i < x.numel(); ++i) {
      const std::string key = case_sensitive_ ? in[i] : change_case(in[i], CaseAction::kLower);
      if (!stopwords_.count(key)) kept.push_back(change_case(in[i], action_));
    }
    if (kept.empty()) kept.emplace_back();
    const int64_t count = int64_t(kept.size());
    const Shape shape = x.rank() == 1 ? Shape{count} : Shape{1, count};
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, DataType::kString, shape));
    std::string* out = y->data<std::string>();
    for (int64_t i = 0; i < count; ++i) out[i] = std::move(kept[size_t(i)]);
    return Status::Ok();
  }

 private:
  CaseAction action_ = CaseAction::kNone;
  bool case_sensitive_ = false;
  std::unordered_set<std::string> stopwords_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "StringNormalizer", 10, kLatestOpset, StringNormalizerKernel);

}  // namespace onyx
