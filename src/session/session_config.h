// ONNX Runtime's session config entries (SessionOptions.add_session_config_entry in Python,
// AddSessionConfigEntry in the C API) applied to onyx's SessionOptions, in one place for both.
#pragma once
#include <map>
#include <string>

#include "core/status.h"
#include "session/session.h"

namespace onyx {

// onyx's own key: "1" multiplies float32 MatMul/Gemm with constant weights in bfloat16.
inline constexpr const char* kBf16GemmConfigKey = "onyx.cpu.gemm_bf16";
inline constexpr const char* kExternalFileConfigKey = "session.optimized_model_external_initializers_file_name";
inline constexpr const char* kExternalMinBytesConfigKey =
    "session.optimized_model_external_initializers_min_size_in_bytes";

// True for the keys onyx acts on or ONNX Runtime documents (by prefix); others are stored
// and reported as unknown by the callers.
bool known_session_config_key(const std::string& key);

// INVALID_ARGUMENT, naming the key, when `value` is not one `key` takes.
Status check_session_config_entry(const std::string& key, const std::string& value);

// Sets the options the entries act on (the external-initializer file and threshold for saving
// the optimised model, bf16 products, denormal flushing, no CPU fallback); the other entries
// are accepted and stored by the caller without effect. Entries must have been checked.
void apply_session_config(const std::map<std::string, std::string>& config, SessionOptions& options);

}  // namespace onyx
