#include "session/free_dims.h"

#include <cctype>
#include <set>
#include <utility>

namespace onyx {
namespace {

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool has_dims(const ir::ValueInfo& vi) {
  return vi.type.kind == ir::TypeInfo::Kind::kTensor && vi.type.shape.has_rank;
}

}  // namespace

Result<FreeDimensionResult> apply_free_dimension_overrides(ir::Graph& graph,
                                                           const std::map<std::string, int64_t>& by_name,
                                                           const std::map<std::string, int64_t>& by_denotation) {
  FreeDimensionResult result;
  for (const auto& [name, v] : by_name)
    if (v < 0) return invalid_argument("free-dimension override '", name, "'=", v, ": the size must be >= 0");
  // Denotations match case-insensitively; keep one spelling per key for messages.
  std::map<std::string, std::pair<int64_t, std::string>> denotations;
  for (const auto& [name, v] : by_denotation) {
    if (v < 0) return invalid_argument("free-dimension override for denotation ", name, "=", v, ": the size must be >= 0");
    auto [it, added] = denotations.emplace(upper(name), std::make_pair(v, name));
    if (!added && it->second.first != v)
      return invalid_argument("free-dimension overrides for denotation ", it->second.second, " (", it->second.first,
                              ") and ", name, " (", v, ") disagree");
  }
  if (by_name.empty() && denotations.empty()) return result;

  // Pass 1: decide each free input dim, and the size of each dim_param an override fixes.
  std::set<std::string> used_names, used_denotations;
  std::map<std::string, std::pair<int64_t, std::string>> symbol_size;  // dim_param -> (size, what fixed it)
  for (auto& vi : graph.inputs) {
    if (!has_dims(vi)) continue;
    for (size_t d = 0; d < vi.type.shape.dims.size(); ++d) {
      Dim& dim = vi.type.shape.dims[d];
      auto dn = dim.denotation.empty() ? denotations.end() : denotations.find(upper(dim.denotation));
      auto nm = dim.symbol.empty() ? by_name.end() : by_name.find(dim.symbol);
      const bool has_dn = dn != denotations.end(), has_nm = nm != by_name.end();
      if (has_dn) used_denotations.insert(dn->first);
      if (has_nm) used_names.insert(nm->first);
      const std::string where = "input '" + vi.name + "' dim " + std::to_string(d);
      const std::string note = "free-dimension overrides: " + where;
      if (dim.value) {
        if (has_dn && dn->second.first != *dim.value)
          result.warnings.push_back(note + " is fixed at " + std::to_string(*dim.value) + " by the model; the override " +
                                    dn->second.second + "=" + std::to_string(dn->second.first) + " does not apply to it");
        continue;
      }
      if (has_nm) {
        if (has_dn && dn->second.first != nm->second)
          result.warnings.push_back(note + " has dim_param '" + dim.symbol + "' and denotation " + dim.denotation +
                                    ": the override by name (" + std::to_string(nm->second) +
                                    ") wins over the one by denotation (" + std::to_string(dn->second.first) + ")");
        symbol_size[dim.symbol] = {nm->second, "dim_param '" + dim.symbol + "'"};
      } else if (has_dn) {
        const std::string source = "denotation " + dn->second.second;
        if (dim.symbol.empty()) {
          dim.value = dn->second.first;
          result.fixed[vi.name][d] = source;
          continue;
        }
        auto it = symbol_size.find(dim.symbol);
        if (it != symbol_size.end() && it->second.first != dn->second.first)
          return invalid_argument("free-dimension overrides fix dim_param '", dim.symbol, "' to both ", it->second.first,
                                  " (", it->second.second, ") and ", dn->second.first, " (", source, " on ", where, ")");
        symbol_size[dim.symbol] = {dn->second.first, source};
      }
    }
  }

  // Pass 2: a fixed dim_param is fixed everywhere it appears in this graph's declared types.
  auto fix = [&](std::vector<ir::ValueInfo>& infos, bool record) {
    for (auto& vi : infos) {
      if (!has_dims(vi)) continue;
      for (size_t d = 0; d < vi.type.shape.dims.size(); ++d) {
        Dim& dim = vi.type.shape.dims[d];
        if (dim.value || dim.symbol.empty()) continue;
        auto it = symbol_size.find(dim.symbol);
        if (it == symbol_size.end()) continue;
        dim.value = it->second.first;
        if (record) result.fixed[vi.name][d] = it->second.second;
        dim.symbol.clear();
      }
    }
  };
  fix(graph.inputs, true);
  fix(graph.outputs, false);
  fix(graph.value_infos, false);

  for (const auto& [name, v] : by_name)
    if (!used_names.count(name))
      result.warnings.push_back("free-dimension override '" + name + "'=" + std::to_string(v) +
                                ": no graph input has a dim_param of that name; ignored");
  for (const auto& [key, entry] : denotations)
    if (!used_denotations.count(key))
      result.warnings.push_back("free-dimension override for denotation " + entry.second + "=" +
                                std::to_string(entry.first) + ": no graph input dim has that denotation; ignored");
  return result;
}

}  // namespace onyx
