// Gathering a run's feeds from the command line, shared by `onyx run` and `onyx bench`:
// --input NAME=FILE, --inputs-dir DIR, --random-inputs, and writing outputs to a folder.
#pragma once
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "core/value.h"
#include "session/session.h"

namespace onyx::cli {

struct FeedArgs {
  std::vector<std::pair<std::string, std::string>> inputs;  // NAME=FILE (.npy or .pb)
  std::string inputs_dir;  // <name>.npy per input, else input_K.pb in graph-input order
  bool random_inputs = false;
  // Sizes for symbolic dims of random inputs, by dim_param name; others become 1.
  std::map<std::string, int64_t> random_dims;
  // Sizes for the first / second dim of random inputs when symbolic (0: not given).
  int64_t random_batch = 0, random_seq = 0;
  // Random integers are drawn where the graph says what is valid (random_int_ranges), others
  // from [0, random_int_high): 0 and 1 are valid indices for any axis of two or more, valid
  // token types and valid masks. One rule for `run`, `bench`, `compare` and calibration.
  int64_t random_int_high = 2;
  bool int_ranges_from_graph = true;
  // Seeds the random values (the same seed gives the same feeds).
  uint32_t seed = 0;
};

// Where random integer inputs stay valid, read from the graph: an input used as the indices
// of a Gather on axis 0 of a tensor of known size V (an embedding table) gets [0, V) (the
// smallest such V); an input whose name contains "mask" (any case) gets all ones. Inputs not
// in the map keep [0, random_int_high).
struct IntRange {
  int64_t low = 0, high = 1;  // [low, high)
};
std::map<std::string, IntRange> random_int_ranges(const Session& session);

// Handles --input, --inputs-dir and --random-inputs; returns true when `flag` was one of
// them (its value, if any, taken with `next`).
template <typename Next>
Result<bool> parse_feed_flag(const std::string& flag, Next&& next, FeedArgs& out) {
  if (flag == "--input") {
    ONYX_ASSIGN_OR_RETURN(std::string v, next());
    const size_t eq = v.find('=');
    if (eq == std::string::npos || eq == 0) return invalid_argument("--input takes NAME=FILE, got '", v, "'");
    out.inputs.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    return true;
  }
  if (flag == "--inputs-dir") {
    ONYX_ASSIGN_OR_RETURN(out.inputs_dir, next());
    return true;
  }
  if (flag == "--random-inputs") {
    out.random_inputs = true;
    return true;
  }
  return false;
}

// A random input whose declared shape had symbolic (or unnamed, or unknown-rank) dims, and
// the sizes chosen for them.
struct RandomShape {
  std::string input;
  std::string shape;  // the shape made: "int64[1,128]"
  std::string sizes;  // the symbolic dims' sizes: "batch=1, sequence=128" (unnamed: "dim 1=128")
  bool defaulted = false;  // a symbolic dim became 1 for want of a size
};

// The feeds for `session`. Random values (when asked) fill every feedable input not given
// otherwise: floats uniform in [0, 1), integers in [0, random_int_high) (or in the graph's
// ranges, with int_ranges_from_graph), booleans half true. With `random_shapes`, each random
// input whose declared shape was not fully fixed is appended there.
Result<std::vector<std::pair<std::string, Value>>> gather_feeds(const Session& session, const FeedArgs& args,
                                                                std::vector<RandomShape>* random_shapes = nullptr);

// Prints a line per entry to `out`, "random input 'NAME': SHAPE (SIZES)", then, when a size
// was the default 1, one line saying how to choose the sizes (`how`: the command's flags).
void print_random_shapes(const std::vector<RandomShape>& shapes, const std::string& how, std::FILE* out);

// `feeds` as `session` declares its inputs: a floating tensor declared with another floating
// type (a float16 model fed what its float32 original takes) is converted; the rest pass.
Result<std::vector<std::pair<std::string, Value>>> feeds_as_declared(
    const Session& session, const std::vector<std::pair<std::string, Value>>& feeds);

// ONNX 1.12's test data stores bfloat16 tensors as uint16 holding the same bits (numpy has no
// bfloat16), and so does write_outputs' .npy: a uint16 tensor where `declared` says bfloat16
// becomes that bfloat16 tensor (same memory). Likewise a uint8 tensor (a .npy of uint8, or of
// V1 as numpy saves ml_dtypes arrays) where `declared` is a narrow type (float8, int4, uint4,
// int2, uint2, float4e2m1) holds one code a byte and becomes that type (packed where it is).
// Anything else passes unchanged. gather_feeds applies it to every file it reads.
Value raw_bits_as_declared(Value v, const ir::TypeInfo& declared);

// Writes outputs[k] as DIR/output_K.pb and, for non-string tensors, DIR/output_K.npy, plus
// DIR/<name>.npy when the output's name is a plain file name not of the form output_*. A
// bfloat16 tensor's .npy holds its bits as uint16, a narrow type's (float8, int4, float4 ...)
// one code a byte as numpy's raw V1 (ml_dtypes' layout: np.load(f).view(ml_dtypes.int4)); a
// type .npy cannot hold gets only the .pb; each time a note on stderr says so.
Status write_outputs(const Session& session, const std::vector<Value>& outputs, const std::string& dir);

}  // namespace onyx::cli
