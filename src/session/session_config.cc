#include "session/session_config.h"

#include <string>

namespace onyx {

bool known_session_config_key(const std::string& key) {
  if (key == kBf16GemmConfigKey) return true;
  for (const char* prefix : {"session.", "optimization.", "mlas.", "ep.", "kernel.", "memory."})
    if (key.rfind(prefix, 0) == 0) return true;
  return false;
}

Status check_session_config_entry(const std::string& key, const std::string& value) {
  if (key == kExternalMinBytesConfigKey) {
    bool ok = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos && value.size() < 20;
    if (!ok) return invalid_argument(kExternalMinBytesConfigKey, " must be a byte count, got '", value, "'");
  }
  if (key == kBf16GemmConfigKey && value != "0" && value != "1")
    return invalid_argument(kBf16GemmConfigKey, " must be '0' or '1', got '", value, "'");
  return Status::Ok();
}

void apply_session_config(const std::map<std::string, std::string>& config, SessionOptions& s) {
  if (auto it = config.find(kExternalFileConfigKey); it != config.end()) s.optimized_model_external_data_file = it->second;
  if (auto it = config.find(kExternalMinBytesConfigKey); it != config.end())
    s.optimized_model_external_min_bytes = size_t(std::stoull(it->second));  // checked when added
  if (auto it = config.find(kBf16GemmConfigKey); it != config.end()) s.bf16_gemm = it->second == "1";
  if (auto it = config.find("session.set_denormal_as_zero"); it != config.end()) s.denormal_as_zero = it->second == "1";
  if (auto it = config.find("session.disable_cpu_ep_fallback"); it != config.end())
    s.disable_cpu_fallback = it->second == "1";
}

}  // namespace onyx
