// libFuzzer target (a): model bytes -> load -> check -> optimise -> plan (a whole session
// creation, at an optimisation level the bytes pick). Any error is fine; a crash, a hang, a
// leak or a sanitizer report is a finding.
#include <cstddef>
#include <cstdint>

#include "core/logging.h"
#include "fuzz_inputs.h"
#include "model_mutator.h"
#include "session/session.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  onyx::SessionOptions options;
  options.log_level = 4;  // warnings about odd models are expected here
  options.intra_op_threads = 1;
  constexpr int kLevels[] = {0, 1, 2, 99};
  options.graph_optimization_level = kLevels[onyx::fuzz::hash_bytes(data, size) % 4];
  // base_dir "": a model naming external data gets an error, never a file of this machine.
  auto session = onyx::Session::load_bytes(data, size, options, "");
  (void)session;
  return 0;
}

#ifdef ONYX_LIBFUZZER
// Mutants that stay valid ModelProtos (model_mutator.h).
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  return onyx::fuzz::ModelMutator(seed).mutate(data, size, max_size);
}
#endif
