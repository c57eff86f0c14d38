// libFuzzer target (a): model bytes -> load -> check -> optimise -> plan (a whole session
// creation, at an optimisation level the bytes pick). Any error is fine; a crash, a hang, a
// leak or a sanitizer report is a finding. It also checks the raw_data lift that model files
// go through (src/onnx/raw_data_lift.h) against protobuf: the skeleton plus the lifted bytes
// must parse exactly when the whole bytes do, into the same message; a difference aborts.
#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/logging.h"
#include "fuzz_inputs.h"
#include "model_mutator.h"
#include "onnx/raw_data_lift.h"
#include "session/session.h"

namespace {

void check_raw_data_lift(const uint8_t* data, size_t size) {
  const char* bytes = reinterpret_cast<const char*>(data);
  auto skeleton = onyx::onnx_format::lift_raw_data(bytes, size, 16);
  if (!skeleton) return;
  onnx::ModelProto whole, rebuilt;
  const bool whole_ok = whole.ParseFromArray(bytes, int(size));
  bool rebuilt_ok = rebuilt.ParseFromString(skeleton->bytes);
  for (const auto& l : skeleton->lifted) {
    if (!rebuilt_ok) break;
    if (l.initializer_index >= rebuilt.graph().initializer_size() || l.offset + l.size > size) std::abort();
    rebuilt.mutable_graph()->mutable_initializer(l.initializer_index)->set_raw_data(bytes + l.offset, l.size);
  }
  if (whole_ok != rebuilt_ok) std::abort();
  if (whole_ok && whole.SerializeAsString() != rebuilt.SerializeAsString()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size <= size_t(INT32_MAX)) check_raw_data_lift(data, size);
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
