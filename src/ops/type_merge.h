// What two static types have in common, for values that may come from either (If's branches,
// the elements of a sequence, a loop's initial and carried values): the same kind, the
// element type when both agree, the rank when both agree and each dim both agree on (equal
// values, or the same symbol). Anything they differ on, or that either does not know, is
// left unknown.
#pragma once
#include "ir/graph.h"

namespace onyx::ops {

ir::TypeInfo common_type(const ir::TypeInfo& a, const ir::TypeInfo& b);

// A sequence type whose elements have type `elem` (may be unknown).
ir::TypeInfo sequence_of(const ir::TypeInfo& elem);

}  // namespace onyx::ops
