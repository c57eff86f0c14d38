// onyx compare A.onnx B.onnx [--input NAME=FILE]... [--inputs-dir DIR] [--runs N] [--seed S]
//                            [--batch N] [--seq N] [FREE-DIMS] [--level L] [--threads N]
//                            [--rtol R] [--atol A]
// Runs two models on the same inputs (the check after optimising, converting or quantising a
// model) and prints, per output (matched by name), the largest absolute difference, the
// largest relative one (largest |b - a| over largest |a|: A is the reference) and the cosine
// similarity, worst over `runs` input sets. Inputs not given are random, drawn anew per run:
// floats in [0, 1), integer ids within the embedding table they index, masks all ones
// (feeds.h, random_int_ranges). Exit status: 0 when every element of every output of every
// run has |b - a| <= atol + rtol * |a| (NaN only against NaN), 1 when one does not, 2 on an
// error (a model that does not load or run, inputs or outputs that do not correspond).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "feeds.h"
#include "kernels/dispatch.h"
#include "session/session.h"

namespace onyx::cli {
namespace {

std::string usage() {
  return std::string(
             "usage: onyx compare A.onnx B.onnx [--input NAME=FILE]... [--inputs-dir DIR] [--runs N] [--seed S]\n"
             "                    [--batch N] [--seq N] [--level L] [--threads N] [--rtol R] [--atol A]\n"
             "                    ") +
         kFreeDimUsage +
         "\n"
         "Runs both models on the same inputs (random ones drawn anew per run) and prints, per output, the\n"
         "max abs and max relative difference (A is the reference) and the cosine. Exit 0 when every\n"
         "|b - a| <= atol + rtol |a| (default 1e-5, 1e-3), 1 beyond, 2 on errors.\n";
}

struct CompareArgs {
  std::string a, b;
  FeedArgs feeds;
  int runs = 3;
  double rtol = 1e-3, atol = 1e-5;
  SessionOptions options;
};

Result<double> parse_number(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !(x >= 0) || std::isinf(x)) return invalid_argument(flag, " takes a number >= 0, got '", v, "'");
  return x;
}

Result<CompareArgs> parse(const std::vector<std::string>& args) {
  CompareArgs r;
  r.feeds.random_inputs = true;
  std::vector<std::string> models;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto next = [&]() -> Result<std::string> {
      if (i + 1 >= args.size()) return invalid_argument(a, " needs a value");
      return args[++i];
    };
    ONYX_ASSIGN_OR_RETURN(bool feed_flag, parse_feed_flag(a, next, r.feeds));
    if (feed_flag) continue;
    if (a == "--runs" || a == "--seed" || a == "--batch" || a == "--seq" || a == "--level" || a == "--threads" ||
        a == "--rtol" || a == "--atol") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      ONYX_ASSIGN_OR_RETURN(double x, parse_number(a, v));
      const bool integral = a != "--rtol" && a != "--atol";
      if (integral && (x != std::floor(x) || x > 1e9)) return invalid_argument(a, " takes an integer, got '", v, "'");
      if ((a == "--runs" || a == "--batch" || a == "--seq") && x < 1) return invalid_argument(a, " takes an integer >= 1");
      if (a == "--runs") r.runs = int(x);
      else if (a == "--seed") r.feeds.seed = uint32_t(x);
      else if (a == "--batch") r.feeds.random_batch = int64_t(x);
      else if (a == "--seq") r.feeds.random_seq = int64_t(x);
      else if (a == "--level") r.options.graph_optimization_level = int(x);
      else if (a == "--threads") r.options.intra_op_threads = int(x);
      else if (a == "--rtol") r.rtol = x;
      else r.atol = x;
    } else if (is_free_dim_flag(a)) {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      ONYX_RETURN_IF_ERROR(parse_free_dim_flag(a, v, r.options).status());
    } else if (!a.empty() && a[0] == '-') {
      return invalid_argument("unknown option '", a, "'");
    } else {
      models.push_back(a);
    }
  }
  if (models.size() != 2) return invalid_argument("give two models, A (the reference) and B; got ", models.size());
  r.a = models[0];
  r.b = models[1];
  return r;
}

// One output's differences, accumulated over runs.
struct OutputStats {
  std::string description;  // dtype and shape of A's value, from the first run
  double max_abs = 0, max_a = 0, min_cosine = 1;
  int64_t outside = 0;  // elements beyond atol + rtol * |a|, over all runs
  std::string mismatch;  // a difference of kind, dtype or shape, when there was one
};

// A numeric (or bool) tensor's elements as doubles.
Result<std::vector<double>> as_doubles(const Tensor& t) {
  std::vector<double> out(size_t(t.numel()));
  ONYX_RETURN_IF_ERROR((dispatch<ONYX_NUMERIC_TYPES, bool>(t.dtype(), [&]<typename T>() -> Status {
    const T* p = t.data<T>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = double(compute_t<T>(p[i]));
    return Status::Ok();
  })));
  return out;
}

void accumulate(const Value& a, const Value& b, double rtol, double atol, OutputStats& s) {
  if (s.description.empty()) s.description = a.describe();
  if (!a.is_tensor() || !b.is_tensor()) {
    if (a.describe() != b.describe()) s.mismatch = "A gives " + a.describe() + ", B gives " + b.describe();
    else if (!a.is_tensor()) s.mismatch = "not a tensor: values not compared";
    return;
  }
  const Tensor& x = a.tensor();
  const Tensor& y = b.tensor();
  // A float16 model against its float32 original: floating outputs compare across types.
  const bool both_float = is_float_type(x.dtype()) && is_float_type(y.dtype());
  if ((x.dtype() != y.dtype() && !both_float) || x.shape() != y.shape()) {
    s.mismatch = "A gives " + x.describe() + ", B gives " + y.describe();
    return;
  }
  if (x.dtype() == DataType::kString) {
    for (int64_t i = 0; i < x.numel(); ++i)
      if (x.data<std::string>()[i] != y.data<std::string>()[i]) ++s.outside;
    return;
  }
  auto xs = as_doubles(x), ys = as_doubles(y);
  if (!xs.ok() || !ys.ok()) {
    s.mismatch = "values of " + std::string(data_type_name(x.dtype())) + " not compared";
    return;
  }
  double dot = 0, norm_a = 0, norm_b = 0;
  for (size_t i = 0; i < xs->size(); ++i) {
    const double u = (*xs)[i], v = (*ys)[i];
    if (std::isnan(u) || std::isnan(v)) {
      if (std::isnan(u) != std::isnan(v)) {
        ++s.outside;
        s.max_abs = std::numeric_limits<double>::infinity();
      }
      continue;
    }
    const double d = u == v ? 0.0 : std::abs(u - v);  // equal infinities differ by 0
    s.max_abs = std::max(s.max_abs, d);
    if (std::isfinite(u)) s.max_a = std::max(s.max_a, std::abs(u));
    if (d > atol + rtol * std::abs(u)) ++s.outside;
    if (std::isfinite(u) && std::isfinite(v)) {
      dot += u * v;
      norm_a += u * u;
      norm_b += v * v;
    }
  }
  const double cosine = norm_a == 0 && norm_b == 0 ? 1.0 : (norm_a == 0 || norm_b == 0 ? 0.0 : dot / std::sqrt(norm_a * norm_b));
  s.min_cosine = std::min(s.min_cosine, cosine);
}

// 0 (within tolerance), 1 (a difference) or an error.
Result<int> compare(const CompareArgs& c) {
  ONYX_ASSIGN_OR_RETURN(auto a, Session::load_file(c.a, c.options));
  ONYX_ASSIGN_OR_RETURN(auto b, Session::load_file(c.b, c.options));
  std::vector<size_t> b_index;  // B's output position for each of A's outputs
  for (const auto& out : a->outputs()) {
    auto k = b->output_index(out.name);
    if (!k.ok()) return invalid_argument("A's output '", out.name, "' is not an output of B");
    b_index.push_back(*k);
  }
  if (b->outputs().size() != a->outputs().size())
    return invalid_argument("B has ", b->outputs().size(), " outputs, A ", a->outputs().size());

  std::vector<OutputStats> stats(a->outputs().size());
  for (int run = 0; run < c.runs; ++run) {
    FeedArgs feeds = c.feeds;
    feeds.seed = c.feeds.seed + uint32_t(run);
    ONYX_ASSIGN_OR_RETURN(auto inputs, gather_feeds(*a, feeds));
    for (const auto& vi : b->inputs()) {
      const bool fed = std::any_of(inputs.begin(), inputs.end(), [&](const auto& f) { return f.first == vi.name; });
      if (!fed && !b->input_has_default(vi.name)) return invalid_argument("B's input '", vi.name, "' is not an input of A");
    }
    ONYX_ASSIGN_OR_RETURN(auto ya, a->run(inputs));
    ONYX_ASSIGN_OR_RETURN(auto b_inputs, feeds_as_declared(*b, inputs));
    auto yb = b->run(b_inputs);
    if (!yb.ok()) return yb.take_status().with_context("while running B on A's inputs");
    for (size_t k = 0; k < stats.size(); ++k) accumulate(ya[k], (*yb)[b_index[k]], c.rtol, c.atol, stats[k]);
  }

  std::printf("A %s\nB %s\n%d run(s); within |b - a| <= %g + %g |a|?\n\n", c.a.c_str(), c.b.c_str(), c.runs, c.atol,
              c.rtol);
  std::printf("%-32s %-28s %10s %10s %10s  %s\n", "output", "A's value", "max abs", "max rel", "cosine", "verdict");
  bool all_within = true;
  for (size_t k = 0; k < stats.size(); ++k) {
    const OutputStats& s = stats[k];
    const bool within = s.mismatch.empty() && s.outside == 0;
    all_within = all_within && within;
    std::string verdict = within ? "ok" : s.mismatch.empty() ? std::to_string(s.outside) + " element(s) outside" : s.mismatch;
    const double rel = s.max_a > 0 ? s.max_abs / s.max_a : (s.max_abs == 0 ? 0.0 : std::numeric_limits<double>::infinity());
    std::printf("%-32s %-28s %10.3e %10.3e %10.6f  %s\n", a->outputs()[k].name.c_str(), s.description.c_str(), s.max_abs,
                rel, s.min_cosine, verdict.c_str());
  }
  std::printf("\n%s\n", all_within ? "all outputs within tolerance" : "outputs differ beyond tolerance");
  return all_within ? 0 : 1;
}

}  // namespace

int compare_command(const std::vector<std::string>& args) {
  if (asks_for_help(args)) return print_help(usage());
  auto parsed = parse(args);
  if (!parsed.ok()) return usage_error("compare", parsed.status().message(), usage());
  auto result = compare(*parsed);
  if (!result.ok()) {
    std::fprintf(stderr, "onyx compare: %s\n", result.status().to_string().c_str());
    return 2;
  }
  return *result;
}

}  // namespace onyx::cli
