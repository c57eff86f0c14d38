// `onyx quantize --static`: calibrate, rewrite (optimizer/quantize_static.h), save, then report
// per node what it became and how its kernel computes in a session of the result, and the
// accuracy change over the calibration sets.
#pragma once
#include <string>

#include "calibrate.h"
#include "core/status.h"
#include "model_rewrite.h"
#include "optimizer/quantize_static.h"

namespace onyx::cli {

struct StaticQuantizeArgs {
  RewriteArgs rewrite;
  std::string calibration_dir;  // subfolders of feed sets (as --inputs-dir reads them), or one set
  int random_sets = 0;          // random feed sets instead of a folder
  CalibrationOptions calibration;
  optimizer::StaticQuantizeOptions options;
  int threads = 0;
};

Status run_static_quantize(const StaticQuantizeArgs& args);

}  // namespace onyx::cli
