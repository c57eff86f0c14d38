// onyx train-artifacts MODEL --loss LOSS [--optimizer AdamW|SGD] [-o DIR] [--prefix P]
//                       [--requires-grad NAME,...] [--frozen NAME,...] [--loss-input NAME]
//                       [--additional-output NAME]... [--optimizer-config KEY=VALUE]... [--nominal-checkpoint]
// Writes onnxruntime's on-device training artifacts for MODEL (training/artifacts.h): the
// training, eval and optimizer models and the checkpoint, as onyx.training.artifacts.
// generate_artifacts does, and prints the paths written. Nothing is written when making any
// part fails (every file is made in memory first).
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "onnx/loader.h"
#include "training/artifacts.h"

namespace onyx::cli {
namespace {

constexpr const char* kUsage =
    "usage: onyx train-artifacts MODEL --loss MSELoss|CrossEntropyLoss|BCEWithLogitsLoss|L1Loss\n"
    "                            [--optimizer AdamW|SGD] [-o DIR] [--prefix P]\n"
    "                            [--requires-grad NAME,...] [--frozen NAME,...] [--loss-input NAME]\n"
    "                            [--additional-output NAME]... [--optimizer-config KEY=VALUE]...\n"
    "                            [--nominal-checkpoint]\n"
    "Writes the artifacts of onnxruntime's on-device training for MODEL into DIR (default: .):\n"
    "training_model.onnx, eval_model.onnx, optimizer_model.onnx (with --optimizer) and checkpoint\n"
    "(and nominal_checkpoint), each name after the prefix P. The loss takes the model's first\n"
    "output (or --loss-input) against a new input 'target' ('labels' for CrossEntropyLoss).\n"
    "--requires-grad defaults to every floating initializer not --frozen. --optimizer-config sets\n"
    "AdamW's beta1, beta2, epsilon, weight_decay (onnxruntime's defaults: 0.9, 0.999, 1e-6, 0).\n";

std::vector<std::string> comma_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

int train_artifacts_command(const std::vector<std::string>& args) {
  if (asks_for_help(args)) return print_help(kUsage);
  std::string model_path, loss_name;
  training::ArtifactsSpec spec;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool flag_with_value = a == "--loss" || a == "--optimizer" || a == "-o" || a == "--prefix" ||
                                 a == "--requires-grad" || a == "--frozen" || a == "--loss-input" ||
                                 a == "--additional-output" || a == "--optimizer-config";
    if (flag_with_value && i + 1 >= args.size()) return usage_error("train-artifacts", a + " needs a value", kUsage);
    if (a == "--loss") {
      loss_name = args[++i];
    } else if (a == "--optimizer") {
      auto kind = training::optimizer_kind_named(args[++i]);
      if (!kind.ok()) return usage_error("train-artifacts", kind.status().message(), kUsage);
      spec.optimizer = *kind;
    } else if (a == "-o") {
      spec.directory = args[++i];
    } else if (a == "--prefix") {
      spec.prefix = args[++i];
    } else if (a == "--requires-grad") {
      spec.requires_grad = comma_list(args[++i]);
    } else if (a == "--frozen") {
      spec.frozen = comma_list(args[++i]);
    } else if (a == "--loss-input") {
      spec.loss_input = args[++i];
    } else if (a == "--additional-output") {
      spec.additional_outputs.push_back(args[++i]);
    } else if (a == "--optimizer-config") {
      const std::string& kv = args[++i];
      const size_t eq = kv.find('=');
      char* end = nullptr;
      const double v = eq == std::string::npos ? 0 : std::strtod(kv.c_str() + eq + 1, &end);
      if (eq == std::string::npos || eq + 1 >= kv.size() || *end)
        return usage_error("train-artifacts", "--optimizer-config takes KEY=NUMBER, got '" + kv + "'", kUsage);
      spec.optimizer_config[kv.substr(0, eq)] = v;
    } else if (a == "--nominal-checkpoint") {
      spec.nominal_checkpoint = true;
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("train-artifacts", "unknown flag " + a, kUsage);
    } else if (model_path.empty()) {
      model_path = a;
    } else {
      return usage_error("train-artifacts", "one MODEL only", kUsage);
    }
  }
  if (model_path.empty()) return usage_error("train-artifacts", "no MODEL", kUsage);
  if (loss_name.empty()) return usage_error("train-artifacts", "--loss is required", kUsage);
  auto loss = training::loss_kind_named(loss_name);
  if (!loss.ok()) return usage_error("train-artifacts", loss.status().message(), kUsage);
  spec.loss = *loss;
  auto model = onnx_format::load_model_file(model_path);
  if (!model.ok()) {
    std::fprintf(stderr, "onyx train-artifacts: %s\n", model.status().to_string().c_str());
    return 1;
  }
  auto written = training::generate_artifacts(*model, spec);
  if (!written.ok()) {
    std::fprintf(stderr, "onyx train-artifacts: %s\n", written.status().to_string().c_str());
    return 1;
  }
  for (const std::string& path : *written) std::printf("wrote %s\n", path.c_str());
  return 0;
}

}  // namespace onyx::cli
