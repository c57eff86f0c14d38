// Minimal JSON: string escaping for writers (the profiler) and a small DOM parser for readers
// (`onyx profile-summary`, tests). Not a general-purpose library: numbers are doubles, object
// members keep file order (duplicates allowed, find() returns the first), and the parser
// refuses anything RFC 8259 does not allow (trailing commas, comments, bare words).
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace onyx::json {

// `s` as a JSON string literal, quotes included; control characters become \uXXXX.
std::string quote(const std::string& s);

struct Member;

struct Value {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> array;
  std::vector<Member> object;  // in file order

  bool is_object() const { return kind == Kind::kObject; }
  bool is_array() const { return kind == Kind::kArray; }
  bool is_string() const { return kind == Kind::kString; }
  bool is_number() const { return kind == Kind::kNumber; }
  // The first member named `key` of an object; null when absent or not an object.
  const Value* find(const std::string& key) const;
};

// One member of an object (a named type rather than std::pair, which may not hold the still
// incomplete Value).
struct Member {
  std::string first;
  Value second;
};

// Parses a whole document (surrounding whitespace allowed). Errors are INVALID_ARGUMENT with
// the byte offset. Nesting deeper than 512 levels is refused.
Result<Value> parse(const std::string& text);

}  // namespace onyx::json
