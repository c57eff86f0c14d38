// Einsum: the output shape from the equation and the input shapes (numpy semantics, as the
// kernel): each letter's size is the broadcast of its sizes across the terms (size 1
// broadcasts); "..." dims broadcast right-aligned. Without "->" the output is the "..." dims
// followed by the letters used exactly once, in ASCII order. Element type: input 0's.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "ops/op_rule.h"

namespace onyx::ops {
namespace {

struct Term {
  std::string letters;  // without the ellipsis
  bool ellipsis = false;
  size_t ellipsis_pos = 0;  // letters before "..."
};

bool parse_term(const std::string& s, Term* t) {
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 3, "...") == 0) {
      if (t->ellipsis) return false;
      t->ellipsis = true;
      t->ellipsis_pos = t->letters.size();
      i += 3;
    } else if (std::isalpha(static_cast<unsigned char>(s[i]))) {
      t->letters += s[i++];
    } else {
      return false;
    }
  }
  return true;
}

SymbolicShape rank1(const Dim& d) {
  SymbolicShape s;
  s.has_rank = true;
  s.dims.push_back(d);
  return s;
}

Status infer_einsum(InferenceContext& ctx) {
  const DataType elem = ctx.input_elem_type(0);
  std::string eq;
  for (char c : ctx.attr_string("equation", "")) if (c != ' ') eq += c;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    Term t;
    if (!parse_term(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start), &t)) {
      ctx.set_output(0, elem, {});
      return Status::Ok();
    }
    terms.push_back(t);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (int(terms.size()) != ctx.num_inputs()) {
    ctx.set_output(0, elem, {});
    return Status::Ok();
  }

  // Collect each letter's sizes and each operand's "..." dims.
  std::map<char, std::vector<SymbolicShape>> letter_dims;
  std::map<char, int> uses;
  std::vector<SymbolicShape> ellipsis_parts;
  bool any_ellipsis = false, ellipsis_known = true;
  for (size_t i = 0; i < terms.size(); ++i) {
    const Term& t = terms[i];
    const SymbolicShape s = ctx.input_shape(int(i));
    for (char c : t.letters) ++uses[c];
    any_ellipsis = any_ellipsis || t.ellipsis;
    if (!s.has_rank) {
      if (t.ellipsis) ellipsis_known = false;
      for (char c : t.letters) letter_dims[c].push_back(rank1(Dim{}));
      continue;
    }
    const size_t n = t.letters.size();
    if (s.dims.size() < n || (!t.ellipsis && s.dims.size() != n)) {
      ctx.set_output(0, elem, {});
      return invalid_model("einsum term '", t.letters, "' does not fit input ", i, " of shape ", s.to_string());
    }
    const size_t e = s.dims.size() - n;
    for (size_t j = 0; j < n; ++j) {
      const size_t d = j < t.ellipsis_pos || !t.ellipsis ? j : j + e;
      letter_dims[t.letters[j]].push_back(rank1(s.dims[d]));
    }
    if (t.ellipsis) {
      SymbolicShape part;
      part.has_rank = true;
      part.dims.assign(s.dims.begin() + std::ptrdiff_t(t.ellipsis_pos), s.dims.begin() + std::ptrdiff_t(t.ellipsis_pos + e));
      ellipsis_parts.push_back(std::move(part));
    }
  }

  Term out;
  if (arrow != std::string::npos) {
    if (!parse_term(eq.substr(arrow + 2), &out)) {
      ctx.set_output(0, elem, {});
      return Status::Ok();
    }
  } else {
    out.ellipsis = any_ellipsis;
    for (const auto& [c, n] : uses) if (n == 1) out.letters += c;  // std::map: ASCII order
  }

  SymbolicShape ell;
  ell.has_rank = true;
  if (out.ellipsis) {
    if (!ellipsis_known) {
      ctx.set_output(0, elem, {});
      return Status::Ok();
    }
    auto b = broadcast_symbolic(ellipsis_parts);
    if (!b.ok()) {
      ctx.set_output(0, elem, {});
      return b.take_status();
    }
    ell = std::move(b).value();
    if (!ell.has_rank) {  // ellipsis ranks past kMaxStaticRank
      ctx.set_output(0, elem, {});
      return Status::Ok();
    }
  }
  SymbolicShape shape;
  shape.has_rank = true;
  for (size_t j = 0; j <= out.letters.size(); ++j) {
    if (out.ellipsis && j == out.ellipsis_pos) shape.dims.insert(shape.dims.end(), ell.dims.begin(), ell.dims.end());
    if (j == out.letters.size()) break;
    Dim d;
    auto it = letter_dims.find(out.letters[j]);
    if (it != letter_dims.end()) {
      auto b = broadcast_symbolic(it->second);
      if (b.ok()) d = b.value().dims[0];
    }
    shape.dims.push_back(d);
  }
  ctx.set_output(0, elem, std::move(shape));
  return Status::Ok();
}

}  // namespace
ONYX_REGISTER_OP_RULE("", "Einsum", 12, 1000, infer_einsum);
}  // namespace onyx::ops
