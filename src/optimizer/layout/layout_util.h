// Helpers shared by the layout passes: Transpose permutations and nodes.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "optimizer/graph_index.h"

namespace onyx::optimizer {

using Perm = std::vector<int64_t>;

// NCHW -> NHWC and back.
inline const Perm kToNhwc = {0, 2, 3, 1};
inline const Perm kToNchw = {0, 3, 1, 2};

// True when `p` is a permutation of 0..size-1.
inline bool is_permutation(const Perm& p) {
  std::vector<bool> seen(p.size(), false);
  for (int64_t v : p) {
    if (v < 0 || v >= int64_t(p.size()) || seen[size_t(v)]) return false;
    seen[size_t(v)] = true;
  }
  return true;
}

// The permutation of a default-domain Transpose node with one input and one output: its perm
// attribute, or the reversed axes when it has none and the input's rank is known. nullopt for
// anything else (or an invalid perm).
inline std::optional<Perm> transpose_perm(const GraphIndex& g, const ir::Node& n) {
  if (n.op_type != "Transpose" || !n.domain.empty() || n.inputs.size() != 1 || n.outputs.size() != 1 ||
      n.inputs[0].empty() || n.outputs[0].empty())
    return std::nullopt;
  Perm p;
  if (const ir::Attribute* a = n.attribute("perm")) {
    p = a->ints;
  } else {
    const auto r = g.rank(n.inputs[0]);
    if (!r) return std::nullopt;
    for (int64_t k = *r - 1; k >= 0; --k) p.push_back(k);
  }
  if (!is_permutation(p)) return std::nullopt;
  return p;
}

// The permutation of the Transpose producing `name`, with that node's index.
struct TransposeSource {
  size_t node;
  Perm perm;
};
inline std::optional<TransposeSource> transpose_source(const GraphIndex& g, const std::string& name) {
  auto prod = g.producer(name);
  if (!prod) return std::nullopt;
  auto p = transpose_perm(g, g.node(*prod));
  if (!p) return std::nullopt;
  return TransposeSource{*prod, std::move(*p)};
}

// Transpose(Transpose(x, first), second) == Transpose(x, compose(first, second)).
inline Perm compose(const Perm& first, const Perm& second) {
  Perm r(second.size());
  for (size_t i = 0; i < second.size(); ++i) r[i] = first[size_t(second[i])];
  return r;
}

inline Perm inverse(const Perm& p) {
  Perm r(p.size());
  for (size_t i = 0; i < p.size(); ++i) r[size_t(p[i])] = int64_t(i);
  return r;
}

inline bool is_identity(const Perm& p) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] != int64_t(i)) return false;
  return true;
}

inline ir::Node make_transpose(std::string name, std::string in, std::string out, const Perm& perm) {
  ir::Node t;
  t.name = std::move(name);
  t.op_type = "Transpose";
  t.inputs = {std::move(in)};
  t.outputs = {std::move(out)};
  ir::Attribute a;
  a.name = "perm";
  a.type = ir::Attribute::Type::kInts;
  a.ints = perm;
  t.attributes["perm"] = std::move(a);
  return t;
}

// True when every read of `name` is a direct input of node `i` (any number of times), so the
// value can go when node `i` does: not a graph output, not captured.
inline bool only_read_by(const GraphIndex& g, const std::string& name, size_t i) {
  if (g.is_graph_output(name) || g.is_captured(name)) return false;
  const auto& c = g.consumers(name);
  return c.size() == 1 && c[0] == i;
}

}  // namespace onyx::optimizer
