// libFuzzer target (b): model bytes -> session -> one run on small deterministic feeds (from
// a hash of the bytes, fuzz_inputs.h), under a run-time cap and an arena memory cap. Any error
// is fine, CANCELLED by the time cap included; a crash, a hang, a leak or a sanitizer report
// is a finding.
#include <cstddef>
#include <cstdint>

#include "fuzz_inputs.h"
#include "model_mutator.h"
#include "session/run_options.h"
#include "session/session.h"

namespace {
constexpr size_t kArenaLimitBytes = size_t(256) << 20;
constexpr int64_t kRunTimeoutMs = 2000;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  onyx::fuzz::Rng rng{onyx::fuzz::hash_bytes(data, size)};
  onyx::SessionOptions options;
  options.log_level = 4;
  options.intra_op_threads = 1;
  options.memory_limit_bytes = kArenaLimitBytes;
  options.graph_optimization_level = (rng.next() % 2) ? 99 : 0;
  auto session = onyx::Session::load_bytes(data, size, options, "");
  if (!session.ok()) return 0;
  auto feeds = onyx::fuzz::make_feeds(**session, rng);
  if (!feeds) return 0;
  onyx::RunOptions run_options;
  run_options.timeout_ms = kRunTimeoutMs;
  auto outputs = (*session)->run(*feeds, {}, run_options);
  (void)outputs;
  return 0;
}

#ifdef ONYX_LIBFUZZER
// Mutants that stay valid ModelProtos (model_mutator.h).
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  return onyx::fuzz::ModelMutator(seed).mutate(data, size, max_size);
}
#endif
