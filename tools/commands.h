// The onyx command line: one function per subcommand, each in its own file.
#pragma once
#include <string>
#include <vector>

namespace onyx::cli {

// Each returns the process exit code; args exclude the program and subcommand names.
int info_command(const std::vector<std::string>& args);
int run_command(const std::vector<std::string>& args);
int test_command(const std::vector<std::string>& args);
int bench_command(const std::vector<std::string>& args);
int profile_summary_command(const std::vector<std::string>& args);
int compare_command(const std::vector<std::string>& args);
int optimize_command(const std::vector<std::string>& args);
int quantize_command(const std::vector<std::string>& args);
int providers_command(const std::vector<std::string>& args);
int train_artifacts_command(const std::vector<std::string>& args);

}  // namespace onyx::cli
