// Argument helpers shared by the onyx subcommands.
#pragma once
#include <string>
#include <vector>

#include "core/status.h"
#include "session/session.h"

namespace onyx::cli {

// Each command has one usage text (`usage()` or `kUsage` in its file), shown two ways: asked
// for with --help or -h (print_help: to stdout, exit 0), or after a usage error such as an
// unknown flag (usage_error: "onyx COMMAND: ERROR" unless ERROR is empty, then the text, to
// stderr, exit 2). asks_for_help is true when --help or -h is among `args`.
bool asks_for_help(const std::vector<std::string>& args);
int print_help(const std::string& usage);
int usage_error(const std::string& command, const std::string& error, const std::string& usage);

// Handles --free-dim NAME=VALUE and --free-dim-denotation DENOTATION=VALUE (repeatable) into
// `options`. Returns true when `flag` is one of them (`value` then consumed); an error when
// the value is malformed.
Result<bool> parse_free_dim_flag(const std::string& flag, const std::string& value, SessionOptions& options);
// True when `flag` takes a value and parse_free_dim_flag handles it.
bool is_free_dim_flag(const std::string& flag);
// The usage text for the two flags.
inline constexpr const char* kFreeDimUsage = "[--free-dim NAME=VALUE]... [--free-dim-denotation DATA_BATCH=VALUE]...";

// Handles --save-optimized FILE (the graph after optimisation written as an ONNX model) and
// --save-optimized-external NAME (its initializers of 1 KiB or more in the external data file
// NAME, beside FILE). Returns true when `flag` is one of them (`value` then consumed).
bool parse_save_flag(const std::string& flag, const std::string& value, SessionOptions& options);
// True when `flag` takes a value and parse_save_flag handles it.
bool is_save_flag(const std::string& flag);
inline constexpr const char* kSaveUsage = "[--save-optimized FILE [--save-optimized-external NAME]]";

// Handles --provider LIST (comma-separated, priority order: "cuda", "cuda,cpu",
// "CUDAExecutionProvider"), --provider-option KEY=VALUE (an option of the first provider in
// the list, repeatable) and --strict-placement (a CPU fallback is an error; takes no value:
// `value` is ignored and not consumed). Returns true when `flag` is one of them.
Result<bool> parse_provider_flag(const std::string& flag, const std::string& value, SessionOptions& options);
// True when `flag` takes a value and parse_provider_flag handles it.
bool is_provider_flag(const std::string& flag);
inline constexpr const char* kProviderUsage = "[--provider cuda[,cpu]] [--provider-option KEY=VALUE]... [--strict-placement]";
// Prints where the nodes of `session` run: a count per provider, each node that fell back to
// the CPU with the reasons, and the copy steps (to stdout).
void print_placement(const Session& session);

}  // namespace onyx::cli
