#include "core/json.h"

#include <cstdio>
#include <cstdlib>

namespace onyx::json {

std::string quote(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += char(c);
        }
    }
  }
  out += '"';
  return out;
}

const Value* Value::find(const std::string& key) const {
  if (kind != Kind::kObject) return nullptr;
  for (const auto& [k, v] : object)
    if (k == key) return &v;
  return nullptr;
}

namespace {

constexpr int kMaxDepth = 512;

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}

  Result<Value> document() {
    Value v;
    ONYX_RETURN_IF_ERROR(value(v, 0));
    skip_ws();
    if (pos_ != s_.size()) return fail("unexpected text after the document");
    return v;
  }

 private:
  Status fail(const std::string& what) const { return invalid_argument("JSON: ", what, " at byte ", pos_); }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  bool literal(const char* word) {
    const std::string w(word);
    if (s_.compare(pos_, w.size(), w) != 0) return false;
    pos_ += w.size();
    return true;
  }

  Status value(Value& v, int depth) {
    if (depth > kMaxDepth) return fail("nesting deeper than 512 levels");
    skip_ws();
    if (pos_ >= s_.size()) return fail("unexpected end");
    const char c = s_[pos_];
    if (c == '{') return object(v, depth);
    if (c == '[') return array(v, depth);
    if (c == '"') {
      v.kind = Value::Kind::kString;
      return string(v.string);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return number(v);
    if (literal("true")) { v.kind = Value::Kind::kBool; v.boolean = true; return Status::Ok(); }
    if (literal("false")) { v.kind = Value::Kind::kBool; v.boolean = false; return Status::Ok(); }
    if (literal("null")) { v.kind = Value::Kind::kNull; return Status::Ok(); }
    return fail(std::string("unexpected character '") + c + "'");
  }

  Status object(Value& v, int depth) {
    v.kind = Value::Kind::kObject;
    ++pos_;  // '{'
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == '}') { ++pos_; return Status::Ok(); }
    while (true) {
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != '"') return fail("expected a member name");
      std::string key;
      ONYX_RETURN_IF_ERROR(string(key));
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != ':') return fail("expected ':'");
      ++pos_;
      Value member;
      ONYX_RETURN_IF_ERROR(value(member, depth + 1));
      v.object.push_back(Member{std::move(key), std::move(member)});
      skip_ws();
      if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < s_.size() && s_[pos_] == '}') { ++pos_; return Status::Ok(); }
      return fail("expected ',' or '}'");
    }
  }

  Status array(Value& v, int depth) {
    v.kind = Value::Kind::kArray;
    ++pos_;  // '['
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == ']') { ++pos_; return Status::Ok(); }
    while (true) {
      Value item;
      ONYX_RETURN_IF_ERROR(value(item, depth + 1));
      v.array.push_back(std::move(item));
      skip_ws();
      if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < s_.size() && s_[pos_] == ']') { ++pos_; return Status::Ok(); }
      return fail("expected ',' or ']'");
    }
  }

  static void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  Status hex4(uint32_t& cp) {
    if (pos_ + 4 > s_.size()) return fail("truncated \\u escape");
    cp = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = s_[pos_++];
      cp <<= 4;
      if (h >= '0' && h <= '9') cp |= uint32_t(h - '0');
      else if (h >= 'a' && h <= 'f') cp |= uint32_t(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') cp |= uint32_t(h - 'A' + 10);
      else return fail("bad \\u escape");
    }
    return Status::Ok();
  }

  Status string(std::string& out) {
    ++pos_;  // opening quote
    while (pos_ < s_.size()) {
      const unsigned char c = static_cast<unsigned char>(s_[pos_++]);
      if (c == '"') return Status::Ok();
      if (c < 0x20) return fail("control character in a string");
      if (c != '\\') { out += char(c); continue; }
      if (pos_ >= s_.size()) break;
      const char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          uint32_t cp = 0;
          ONYX_RETURN_IF_ERROR(hex4(cp));
          if (cp >= 0xD800 && cp < 0xDC00 && pos_ + 1 < s_.size() && s_[pos_] == '\\' && s_[pos_ + 1] == 'u') {
            pos_ += 2;
            uint32_t lo = 0;
            ONYX_RETURN_IF_ERROR(hex4(lo));
            if (lo < 0xDC00 || lo > 0xDFFF) return fail("bad surrogate pair");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default: return fail(std::string("bad escape '\\") + e + "'");
      }
    }
    return fail("unterminated string");
  }

  Status number(Value& v) {
    const size_t start = pos_;
    if (s_[pos_] == '-') ++pos_;
    auto digits = [&] {
      const size_t from = pos_;
      while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      return pos_ > from;
    };
    if (!digits()) return fail("bad number");
    if (pos_ < s_.size() && s_[pos_] == '.') {
      ++pos_;
      if (!digits()) return fail("bad number");
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (!digits()) return fail("bad number");
    }
    v.kind = Value::Kind::kNumber;
    v.number = std::strtod(s_.substr(start, pos_ - start).c_str(), nullptr);
    return Status::Ok();
  }

  const std::string& s_;
  size_t pos_ = 0;
};

}  // namespace

Result<Value> parse(const std::string& text) { return Parser(text).document(); }

}  // namespace onyx::json
