#include "static_quantize.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "feeds.h"
#include "session/session.h"

namespace onyx::cli {
namespace {

void progress_bar(int done, int total) {
  constexpr int kWidth = 30;
  const int filled = total > 0 ? done * kWidth / total : kWidth;
  std::fprintf(stderr, "\rcalibrating [%s%s] %d/%d", std::string(size_t(filled), '#').c_str(),
               std::string(size_t(kWidth - filled), ' ').c_str(), done, total);
  if (done == total) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

// Per output, over the sets: max |int8 - float|, cosine, and for (N, C) outputs with C > 1
// how often the arg-max agrees.
Status report_accuracy(const Session& fp32, const Session& int8, const std::vector<FeedSet>& sets) {
  const auto& outs = fp32.outputs();
  std::printf("\naccuracy over the %zu calibration set(s), int8 against float32:\n", sets.size());
  std::printf("%-32s %12s %12s %s\n", "output", "max abs", "cosine", "top-1 agreement");
  std::vector<double> max_abs(outs.size(), 0), dot(outs.size(), 0), na(outs.size(), 0), nb(outs.size(), 0);
  std::vector<int64_t> agree(outs.size(), 0), rows(outs.size(), 0);
  for (const FeedSet& s : sets) {
    ONYX_ASSIGN_OR_RETURN(std::vector<Value> a, fp32.run(s));
    ONYX_ASSIGN_OR_RETURN(std::vector<Value> b, int8.run(s));
    for (size_t k = 0; k < outs.size() && k < b.size(); ++k) {
      if (!a[k].is_tensor() || !b[k].is_tensor()) continue;
      const Tensor& ta = a[k].tensor();
      const Tensor& tb = b[k].tensor();
      if (ta.dtype() != DataType::kFloat || tb.dtype() != DataType::kFloat || ta.shape() != tb.shape()) continue;
      const float* pa = ta.data<float>();
      const float* pb = tb.data<float>();
      for (int64_t i = 0; i < ta.numel(); ++i) {
        max_abs[k] = std::max(max_abs[k], double(std::abs(pa[i] - pb[i])));
        dot[k] += double(pa[i]) * pb[i];
        na[k] += double(pa[i]) * pa[i];
        nb[k] += double(pb[i]) * pb[i];
      }
      if (ta.rank() == 2 && ta.dim(1) > 1) {
        const int64_t c = ta.dim(1);
        for (int64_t r = 0; r < ta.dim(0); ++r) {
          agree[k] += std::max_element(pa + r * c, pa + (r + 1) * c) - (pa + r * c) ==
                      std::max_element(pb + r * c, pb + (r + 1) * c) - (pb + r * c);
          ++rows[k];
        }
      }
    }
  }
  for (size_t k = 0; k < outs.size(); ++k) {
    const double cosine = na[k] > 0 && nb[k] > 0 ? dot[k] / std::sqrt(na[k] * nb[k]) : 0;
    const std::string top1 = rows[k] ? std::to_string(agree[k]) + "/" + std::to_string(rows[k]) : "-";
    std::printf("%-32s %12.5g %12.6f %s\n", outs[k].name.c_str(), max_abs[k], cosine, top1.c_str());
  }
  return Status::Ok();
}

const char* method_name(CalibrationMethod m) {
  return m == CalibrationMethod::kMinMax ? "minmax" : m == CalibrationMethod::kEntropy ? "entropy" : "percentile";
}

}  // namespace

Status run_static_quantize(const StaticQuantizeArgs& a) {
  const RewriteArgs& w = a.rewrite;
  // BatchNorm folded into Conv; nothing else fused, so every activation stays a tensor.
  const std::set<std::string> fuse_only = {"conv_bn_fusion"};
  ONYX_ASSIGN_OR_RETURN(OptimizedModel m, load_and_optimize(w.model, std::min(w.level, 2), &fuse_only));
  SessionOptions so;
  so.intra_op_threads = a.threads;
  ONYX_ASSIGN_OR_RETURN(std::unique_ptr<Session> fp32, Session::from_loaded_model(m.model, so));
  ONYX_ASSIGN_OR_RETURN(std::vector<FeedSet> sets, feed_sets(*fp32, a.calibration_dir, a.random_sets));
  if (sets.empty()) return invalid_argument("no calibration data: give --calibration DIR or --calibration-random N");

  const std::vector<std::string> tensors = optimizer::calibration_tensors(m.model);
  CalibrationOptions co = a.calibration;
  co.threads = a.threads;
  ONYX_ASSIGN_OR_RETURN(auto ranges, calibrate(m.model, tensors, sets, co, progress_bar));

  ir::Model quantized = m.model;
  ONYX_ASSIGN_OR_RETURN(optimizer::StaticQuantizeReport report, optimizer::quantize_static(quantized, ranges, a.options));
  ONYX_RETURN_IF_ERROR(save_rewritten(quantized, w.out, w.external_data));
  ONYX_ASSIGN_OR_RETURN(std::unique_ptr<Session> int8, Session::load_file(w.out, so));

  const bool qdq = a.options.format == optimizer::QuantFormat::kQdq;
  std::printf("%s -> %s (static int8, %s format, %s calibration over %zu set(s) of %s, %s weight scales)\n\n",
              w.model.c_str(), w.out.c_str(), qdq ? "QDQ" : "QOperator", method_name(co.method), sets.size(),
              a.calibration_dir.empty() ? "random inputs" : a.calibration_dir.c_str(),
              a.options.per_channel ? "per-channel" : "per-tensor");
  // How each quantised node's kernel computes in a session of the result (name -> way).
  std::map<std::string, std::string> how;
  for (auto& [label, way] : int8->kernel_implementations()) how[label] = way;
  std::printf("%-44s %-18s %s\n", "node", "op", "result");
  for (const auto& n : report.nodes) std::printf("%-44s %-18s %s\n", n.node.c_str(), n.op_type.c_str(), n.result.c_str());
  std::printf("\n%d node(s) quantised; weights %.1f MB -> %.1f MB\n", report.quantized,
              double(report.weight_bytes_before) / 1e6, double(report.weight_bytes_after) / 1e6);
  std::map<std::string, int> ways;
  for (const auto& [label, way] : how) ++ways[way];
  std::printf("int8 kernels in a session of %s:", w.out.c_str());
  if (ways.empty()) std::printf(" none");
  for (const auto& [way, count] : ways) std::printf(" %d %s;", count, way.c_str());
  std::printf("\nops: %s\n", op_histogram(quantized.graph).c_str());
  for (const auto& [label, way] : how)
    if (way.rfind("reference", 0) == 0) std::printf("fell back: %s computes by %s\n", label.c_str(), way.c_str());
  return report_accuracy(*fp32, *int8, sets);
}

}  // namespace onyx::cli
