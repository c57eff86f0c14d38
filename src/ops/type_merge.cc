#include "ops/type_merge.h"

#include <memory>

namespace onyx::ops {
namespace {

bool same_dim(const Dim& a, const Dim& b) {
  if (a.value || b.value) return a.value == b.value;
  return !a.symbol.empty() && a.symbol == b.symbol;
}

}  // namespace

ir::TypeInfo common_type(const ir::TypeInfo& a, const ir::TypeInfo& b) {
  using K = ir::TypeInfo::Kind;
  ir::TypeInfo out;
  if (a.kind != b.kind || a.kind == K::kUnknown) return out;
  out.kind = a.kind;
  if (a.kind == K::kTensor) {
    if (a.elem_type == b.elem_type) out.elem_type = a.elem_type;
    if (a.shape.has_rank && b.shape.has_rank && a.shape.dims.size() == b.shape.dims.size()) {
      out.shape.has_rank = true;
      out.shape.dims.resize(a.shape.dims.size());
      for (size_t d = 0; d < a.shape.dims.size(); ++d)
        if (same_dim(a.shape.dims[d], b.shape.dims[d])) out.shape.dims[d] = a.shape.dims[d];
    }
  } else if (a.kind == K::kSequence || a.kind == K::kOptional) {
    out.inner = std::make_shared<ir::TypeInfo>(a.inner && b.inner ? common_type(*a.inner, *b.inner) : ir::TypeInfo{});
  }
  return out;
}

ir::TypeInfo sequence_of(const ir::TypeInfo& elem) {
  ir::TypeInfo t;
  t.kind = ir::TypeInfo::Kind::kSequence;
  t.inner = std::make_shared<ir::TypeInfo>(elem);
  return t;
}

}  // namespace onyx::ops
