// libFuzzer target (d): the training checkpoint reader (training/checkpoint.h), which a user
// may be handed as a file: any bytes give a CheckpointState or an error, never a crash, a
// hang or undefined behaviour. A state that reads is written again and must read back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "training/checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto state = onyx::training::parse_checkpoint(data, size, "fuzz.ckpt");
  if (!state.ok()) return 0;
  auto bytes = onyx::training::serialize_checkpoint(*state, true);
  if (!bytes.ok()) return 0;  // e.g. a non-finite optimizer setting is refused on save
  auto again = onyx::training::parse_checkpoint(bytes->data(), bytes->size(), "fuzz.ckpt (rewritten)");
  if (!again.ok() || again->parameters.size() != state->parameters.size()) std::abort();
  return 0;
}
