// Argument helpers shared by the onyx subcommands.
#pragma once
#include <string>

#include "core/status.h"
#include "session/session.h"

namespace onyx::cli {

// Handles --free-dim NAME=VALUE and --free-dim-denotation DENOTATION=VALUE (repeatable) into
// `options`. Returns true when `flag` is one of them (`value` then consumed); an error when
// the value is malformed.
Result<bool> parse_free_dim_flag(const std::string& flag, const std::string& value, SessionOptions& options);
// True when `flag` takes a value and parse_free_dim_flag handles it.
bool is_free_dim_flag(const std::string& flag);
// The usage text for the two flags.
inline constexpr const char* kFreeDimUsage = "[--free-dim NAME=VALUE]... [--free-dim-denotation DATA_BATCH=VALUE]...";

}  // namespace onyx::cli
