// onyx: the command-line entry point. `onyx help` lists the subcommands.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <unistd.h>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"

namespace {

using Command = int (*)(const std::vector<std::string>&);

Command find_command(const std::string& name) {
  static const std::pair<const char*, Command> kCommands[] = {
      {"info", onyx::cli::info_command},         {"run", onyx::cli::run_command},
      {"bench", onyx::cli::bench_command},       {"test", onyx::cli::test_command},
      {"profile-summary", onyx::cli::profile_summary_command},
      {"compare", onyx::cli::compare_command},   {"optimize", onyx::cli::optimize_command},
      {"quantize", onyx::cli::quantize_command}, {"providers", onyx::cli::providers_command},
      {"train-artifacts", onyx::cli::train_artifacts_command},
  };
  for (const auto& [n, f] : kCommands)
    if (name == n) return f;
  return nullptr;
}

void print_usage(std::FILE* out) {
  std::fprintf(out,
      "onyx - an ONNX runtime for inference and training\n\n"
      "usage:\n"
      "  onyx info MODEL [FREE-DIMS]       IR, opsets, producer, inputs/outputs, op histogram\n"
      "  onyx run MODEL [--input NAME=FILE]... [--inputs-dir DIR] [--outputs-dir DIR] [--random-inputs]\n"
      "               [FREE-DIMS] [--profile FILE]\n"
      "                                    run once and print the outputs and the time taken;\n"
      "                                    --profile writes a Chrome-trace JSON (Perfetto)\n"
      "  onyx bench MODEL [--threads N] [--runs N] [--warmup N] [--batch N] [--seq N] [--json FILE]\n"
      "               [--input NAME=FILE]... [--inputs-dir DIR] [FREE-DIMS] [--level 0|1|2|99] [--profile FILE]\n"
      "                                    create time, first run, min/median/p90 latency, peak RSS\n"
      "  onyx test CASE_DIR...             run ONNX test cases (model.onnx + test_data_set_*)\n"
      "  onyx profile-summary FILE [--top N]\n"
      "                                    kernel time per op type from a --profile file\n"
      "  onyx compare A.onnx B.onnx [--runs N] [--rtol R] [--atol A] [--inputs-dir DIR] ...\n"
      "                                    run two models on the same inputs; per output max abs /\n"
      "                                    rel difference and cosine; exit 1 beyond tolerance\n"
      "  onyx optimize MODEL -o OUT [--level L] [--model-type bert|gpt2|vit|unet] [--disable-passes P,...]\n"
      "                [--float16 [--keep-io-types] [--op-block-list OP,...]]\n"
      "                                    write the model after onyx's graph optimisations,\n"
      "                                    optionally converted to float16; with a model type,\n"
      "                                    check which expected fusions fired\n"
      "  onyx quantize MODEL -o OUT --dynamic [--per-tensor] [--exclude OP|NODE]...\n"
      "                                    int8 weights for MatMul/Gemm (DynamicQuantizeMatMul)\n"
      "  onyx quantize MODEL -o OUT --static (--calibration DIR | --calibration-random N)\n"
      "               [--method minmax|entropy|percentile] [--per-channel] [--format qoperator|qdq]\n"
      "                                    calibrated int8 activations and weights (QLinearConv, ...)\n"
      "  onyx providers [--require NAME]   the execution providers of this build and whether each\n"
      "                                    can run here (CUDA needs a device)\n"
      "  onyx train-artifacts MODEL --loss LOSS [--optimizer AdamW|SGD] [-o DIR] [--requires-grad N,...]\n"
      "                                    the training, eval and optimizer models and the checkpoint\n"
      "                                    of onnxruntime's on-device training\n\n"
      "run, bench and test take --provider cuda[,cpu] [--provider-option KEY=VALUE]... [--strict-placement]\n"
      "FREE-DIMS: --free-dim NAME=VALUE and --free-dim-denotation DATA_BATCH=VALUE (repeatable)\n"
      "           fix symbolic input dims by dim_param name or by ONNX dimension denotation\n"
      "onyx COMMAND --help (or onyx help COMMAND) prints that command's usage\n");
}

}  // namespace

// The intra-op pool is OpenMP's (libgomp), which reads its waiting policy from the environment
// when it is loaded, before main. Unless the user chose one, onyx re-executes itself once with
// a short spin (GOMP_SPINCOUNT) so that idle pool threads soon sleep instead of spinning on a
// core another process needs. ONYX_NO_REEXEC=1 skips this.
// About 10-50 microseconds of spinning before a pool thread blocks.
constexpr const char* kDefaultSpinCount = "20000";

static void prefer_short_spin(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT") || std::getenv("ONYX_NO_REEXEC")) return;
  setenv("GOMP_SPINCOUNT", kDefaultSpinCount, 1);
  execv("/proc/self/exe", argv);  // returns only on failure: go on with libgomp's defaults
}

// `onyx` alone prints the usage and exits 2; `onyx --help`, `-h` or `help` prints it and exits 0;
// `onyx help COMMAND` is `onyx COMMAND --help`; an unknown command is a usage error (stderr, 2).
int main(int argc, char** argv) {
  prefer_short_spin(argv);
  const bool help = argc >= 2 && (!std::strcmp(argv[1], "help") || !std::strcmp(argv[1], "--help") ||
                                  !std::strcmp(argv[1], "-h"));
  if (argc < 2 || (help && argc == 2)) {
    print_usage(stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[help ? 2 : 1];
  const std::vector<std::string> args = help ? std::vector<std::string>{"--help"}
                                             : std::vector<std::string>(argv + 2, argv + argc);
  if (Command run = find_command(command)) return run(args);
  std::fprintf(stderr, "onyx: unknown command '%s'\n", command.c_str());
  print_usage(stderr);
  return 2;
}
