#include "cli_args.h"

#include <cerrno>
#include <cstdlib>

namespace onyx::cli {

bool is_free_dim_flag(const std::string& flag) { return flag == "--free-dim" || flag == "--free-dim-denotation"; }

Result<bool> parse_free_dim_flag(const std::string& flag, const std::string& value, SessionOptions& options) {
  if (!is_free_dim_flag(flag)) return false;
  const size_t eq = value.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == value.size())
    return invalid_argument(flag, " takes NAME=VALUE, got '", value, "'");
  const std::string name = value.substr(0, eq), number = value.substr(eq + 1);
  char* end = nullptr;
  errno = 0;
  const long long size = std::strtoll(number.c_str(), &end, 10);
  if (errno || *end != '\0' || size < 0)
    return invalid_argument(flag, " ", value, ": the size must be a non-negative integer");
  if (flag == "--free-dim") options.add_free_dimension_override_by_name(name, size);
  else options.add_free_dimension_override(name, size);
  return true;
}

bool is_save_flag(const std::string& flag) {
  return flag == "--save-optimized" || flag == "--save-optimized-external";
}

bool parse_save_flag(const std::string& flag, const std::string& value, SessionOptions& options) {
  if (flag == "--save-optimized") options.optimized_model_filepath = value;
  else if (flag == "--save-optimized-external") options.optimized_model_external_data_file = value;
  else return false;
  return true;
}

}  // namespace onyx::cli
