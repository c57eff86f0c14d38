// com.microsoft Tokenizer (version 1; skl2onnx writes it for CountVectorizer/TfidfVectorizer
// before TfIdfVectorizer): breaks each UTF-8 string of X, shape [C] or [N, C], into tokens
// along a new last axis: Y is [C, D] or [N, C, D], D the most tokens of any element, shorter
// rows filled with 'pad_value'.
//
// Attributes (all as ONNX Runtime reads them; its results were the oracle for the cases in
// tests/python_ort/test_tokenizer.py):
//   - 'mark' (required): when non-zero every row starts with "\x02" and ends with "\x03"
//     (D grows by 2), unless no element of X has any token: then D is 0.
//   - 'pad_value' (required), 'mincharnum' (required, > 0): tokens of fewer code points are
//     dropped.
//   - 'separators' (takes precedence over 'tokenexp'): RE2 patterns applied one after
//     another: each splits every piece the earlier ones left, at its matches (leftmost, the
//     longest one there), empty pieces dropped. A separator matching the empty string at a
//     position cuts there and drops the code point that follows. The single separator ""
//     instead splits into code points (then mincharnum must be 1, and X must be UTF-8).
//   - 'tokenexp': the tokens are the successive leftmost-longest matches of one RE2 pattern;
//     an empty match yields nothing and the search resumes one code point further.
// Patterns are RE2 syntax (https://github.com/google/re2/wiki/Syntax), matched on UTF-8 with
// anchors and \b seeing the whole piece; one RE2 rejects is an INVALID_MODEL error at session
// creation. Empty X: Y is [0] for [C], [N, 0] for [N, C] (as ORT gives it). Other ranks of X:
// INVALID_ARGUMENT.
#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <re2/re2.h>

#include "kernels/kernel.h"

namespace onyx {
namespace {

constexpr char kStartText[] = "\x02";
constexpr char kEndText[] = "\x03";

bool is_continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The length in bytes of the UTF-8 sequence at s[i] (1 for a byte that starts none).
size_t code_point_length(std::string_view s, size_t i) {
  size_t n = 1;
  while (i + n < s.size() && is_continuation_byte(s[i + n])) ++n;
  return n;
}

size_t count_code_points(std::string_view s) {
  return size_t(std::count_if(s.begin(), s.end(), [](char c) { return !is_continuation_byte(c); }));
}

// Whether s is well-formed UTF-8 (no overlong forms, surrogates or values past U+10FFFF).
bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
    if (c < 0x80) n = 1;
    else if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) { n = 3; if (c == 0xE0) lo = 0xA0; if (c == 0xED) hi = 0x9F; }
    else if (c >= 0xF0 && c <= 0xF4) { n = 4; if (c == 0xF0) lo = 0x90; if (c == 0xF4) hi = 0x8F; }
    else return false;
    if (i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k) {
      const unsigned char b = static_cast<unsigned char>(s[i + k]);
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return false;
    }
    i += n;
  }
  return true;
}

std::unique_ptr<RE2> compile_pattern(const std::string& pattern, std::string* error) {
  RE2::Options options;
  options.set_log_errors(false);    // the error goes into the returned status instead
  options.set_longest_match(true);  // "as long as possible", as ORT matches
  auto regex = std::make_unique<RE2>(pattern, options);
  if (!regex->ok()) {
    *error = regex->error();
    return nullptr;
  }
  return regex;
}

class TokenizerKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    for (const char* name : {"mark", "pad_value", "mincharnum"})
      if (!info.has_attr(name)) return invalid_model("Tokenizer: attribute '", name, "' is required");
    mark_ = info.attr_int("mark", 0) != 0;
    pad_value_ = info.attr_string("pad_value", "");
    mincharnum_ = info.attr_int("mincharnum", 1);
    if (mincharnum_ <= 0) return invalid_model("Tokenizer: attribute 'mincharnum' must be positive, got ", mincharnum_);
    std::string error;
    if (info.has_attr("separators")) {
      const std::vector<std::string> separators = info.attr_strings("separators");
      if (separators.empty()) return invalid_model("Tokenizer: attribute 'separators' is empty");
      if (separators.size() == 1 && separators[0].empty()) {
        by_code_point_ = true;
        if (mincharnum_ > 1)
          return invalid_model("Tokenizer: 'mincharnum' ", mincharnum_, " cannot be met when splitting into code points "
                               "(separators [\"\"])");
        return Status::Ok();
      }
      for (const std::string& pattern : separators) {
        auto regex = compile_pattern(pattern, &error);
        if (!regex) return invalid_model("Tokenizer: separator \"", pattern, "\" is not a valid RE2 regex: ", error);
        separators_.push_back(std::move(regex));
      }
      return Status::Ok();
    }
    if (!info.has_attr("tokenexp")) return invalid_model("Tokenizer: one of 'separators' and 'tokenexp' is required");
    const std::string pattern = info.attr_string("tokenexp", "");
    tokenexp_ = compile_pattern(pattern, &error);
    if (!tokenexp_) return invalid_model("Tokenizer: tokenexp \"", pattern, "\" is not a valid RE2 regex: ", error);
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    if (!ctx.has_input(0) || ctx.input(0).dtype() != DataType::kString)
      return invalid_argument("Tokenizer: input X must be a string tensor, got ", ctx.input_value(0).describe());
    const Tensor& x = ctx.input(0);
    const size_t rank = x.shape().size();
    if (rank != 1 && rank != 2)
      return invalid_argument("Tokenizer: input X must have shape [C] or [N, C], got rank ", rank);
    if (x.numel() == 0) {
      const Shape empty = rank == 1 ? Shape{0} : Shape{x.shape()[0], 0};
      ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kString, empty));
      (void)y;
      return Status::Ok();
    }
    const std::string* in = x.data<std::string>();
    std::vector<std::vector<std::string>> tokens(size_t(x.numel()));
    size_t widest = 0;
    for (int64_t i = 0; i < x.numel(); ++i) {
      std::vector<std::string>& row = tokens[size_t(i)];
      if (by_code_point_) {
        if (!is_valid_utf8(in[i]))
          return invalid_argument("Tokenizer: element ", i, " of X is not valid UTF-8 (needed to split into code points)");
        split_code_points(in[i], &row);
      } else if (!separators_.empty()) {
        split_at_separators(in[i], &row);
      } else {
        find_tokens(in[i], &row);
      }
      widest = std::max(widest, row.size());
    }
    const size_t depth = widest == 0 ? 0 : widest + (mark_ ? 2 : 0);
    Shape y_shape = x.shape();
    y_shape.push_back(int64_t(depth));
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, DataType::kString, y_shape));
    std::string* out = y->data<std::string>();
    for (size_t i = 0; i < tokens.size() && depth > 0; ++i) {
      std::string* row_out = out + i * depth;
      size_t k = 0;
      if (mark_) row_out[k++] = kStartText;
      for (std::string& token : tokens[i]) row_out[k++] = std::move(token);
      if (mark_) row_out[k++] = kEndText;
      for (; k < depth; ++k) row_out[k] = pad_value_;
    }
    return Status::Ok();
  }

 private:
  void keep_if_long_enough(std::string_view token, std::vector<std::string>* row) const {
    if (!token.empty() && int64_t(count_code_points(token)) >= mincharnum_) row->emplace_back(token);
  }

  void split_code_points(std::string_view s, std::vector<std::string>* row) const {
    for (size_t i = 0; i < s.size();) {
      const size_t n = code_point_length(s, i);
      row->emplace_back(s.substr(i, n));
      i += n;
    }
  }

  // Cuts `piece` at every match of `separator` and appends what lies between to `parts`.
  static void split_piece(const RE2& separator, std::string_view piece, std::vector<std::string>* parts) {
    size_t start = 0;  // where the current part begins
    size_t pos = 0;    // where the search resumes
    re2::StringPiece match;
    const re2::StringPiece text(piece.data(), piece.size());
    while (pos <= piece.size() &&
           separator.Match(text, pos, piece.size(), RE2::UNANCHORED, &match, 1)) {
      const size_t at = size_t(match.data() - piece.data());
      if (at > start) parts->emplace_back(piece.substr(start, at - start));
      if (match.empty()) {  // cut here and drop the code point that follows
        if (at >= piece.size()) return;
        start = pos = at + code_point_length(piece, at);
      } else {
        start = pos = at + match.size();
      }
    }
    if (start < piece.size()) parts->emplace_back(piece.substr(start));
  }

  void split_at_separators(std::string_view s, std::vector<std::string>* row) const {
    std::vector<std::string> pieces{std::string(s)}, next;
    for (const auto& separator : separators_) {
      next.clear();
      for (const std::string& piece : pieces) split_piece(*separator, piece, &next);
      pieces.swap(next);
    }
    for (const std::string& piece : pieces) keep_if_long_enough(piece, row);
  }

  void find_tokens(std::string_view s, std::vector<std::string>* row) const {
    const re2::StringPiece text(s.data(), s.size());
    re2::StringPiece match;
    size_t pos = 0;
    while (pos < s.size() && tokenexp_->Match(text, pos, s.size(), RE2::UNANCHORED, &match, 1)) {
      const size_t at = size_t(match.data() - s.data());
      if (match.empty()) {  // nothing here: resume one code point further
        if (at >= s.size()) break;
        pos = at + code_point_length(s, at);
        continue;
      }
      keep_if_long_enough(std::string_view(match.data(), match.size()), row);
      pos = at + match.size();
    }
  }

  bool mark_ = false;
  std::string pad_value_;
  int64_t mincharnum_ = 1;
  bool by_code_point_ = false;
  std::vector<std::unique_ptr<RE2>> separators_;
  std::unique_ptr<RE2> tokenexp_;
};

}  // namespace

ONYX_REGISTER_KERNEL("com.microsoft", "Tokenizer", 1, kLatestOpset, TokenizerKernel);

}  // namespace onyx
