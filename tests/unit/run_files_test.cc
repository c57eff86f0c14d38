// `onyx run` reading and writing value files. bfloat16 (numpy has none): a feed stored as uint16
// bits in a .pb, as ONNX 1.12's test data stores it, or in a .npy, is taken as the bfloat16 the
// model declares; a bfloat16 output is written as its .pb and as a uint16 .npy of its bits, with
// a note. An empty .npy (a zero dim: a decoder's empty past) is a feed like any other.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "cli_runner.h"
#include "model_builder.h"

namespace onyx {
namespace {

#ifdef ONYX_CLI
using testing::ModelBuilder;
using testing::run_cli;

// y = x + x, bfloat16 [4].
std::string doubling_model() {
  ModelBuilder b;
  b.input("x", {4}, onnx::TensorProto::BFLOAT16).output("y", {4}, onnx::TensorProto::BFLOAT16);
  b.node("Add", {"x", "x"}, {"y"});
  return b.bytes();
}

// 1.0, 2.0, -0.5, 3.0 as bfloat16 bits (the top half of their float32 bits).
const uint16_t kBits[4] = {0x3F80, 0x4000, 0xBF00, 0x4040};
const uint16_t kDoubled[4] = {0x4000, 0x4080, 0xBF80, 0x40C0};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(RunFiles, Bfloat16FeedsAsUint16AreTakenAsDeclaredAndOutputsWrittenAsBits) {
  const auto dir = testing::scratch_folder("run_files", "bfloat16");
  std::ofstream(dir / "m.onnx", std::ios::binary) << doubling_model();
  std::filesystem::create_directories(dir / "in");
  onnx::TensorProto t;  // as ONNX 1.12's test data writes a bfloat16 feed
  t.set_name("x");
  t.set_data_type(onnx::TensorProto::UINT16);
  t.add_dims(4);
  t.set_raw_data(std::string(reinterpret_cast<const char*>(kBits), sizeof kBits));
  std::ofstream(dir / "in" / "input_0.pb", std::ios::binary) << t.SerializeAsString();

  std::string text;
  const std::string args = (dir / "m.onnx").string() + " --inputs-dir " + (dir / "in").string() + " --outputs-dir " +
                           (dir / "out").string();
  ASSERT_EQ(run_cli("run " + args, &text), 0) << text;
  EXPECT_NE(text.find("is bfloat16; output_0.npy holds its bits as uint16"), std::string::npos) << text;

  onnx::TensorProto y;
  ASSERT_TRUE(y.ParseFromString(slurp(dir / "out" / "output_0.pb")));
  EXPECT_EQ(y.data_type(), onnx::TensorProto::BFLOAT16);
  const std::string npy = slurp(dir / "out" / "y.npy");
  EXPECT_NE(npy.find("'descr': '<u2'"), std::string::npos);
  ASSERT_GE(npy.size(), sizeof kDoubled);
  EXPECT_EQ(std::memcmp(npy.data() + npy.size() - sizeof kDoubled, kDoubled, sizeof kDoubled), 0);

  // The written .npy of bits feeds the model back (x.npy read as the declared bfloat16).
  std::filesystem::create_directories(dir / "again");
  std::filesystem::copy_file(dir / "out" / "y.npy", dir / "again" / "x.npy");
  text.clear();
  ASSERT_EQ(run_cli("run " + (dir / "m.onnx").string() + " --inputs-dir " + (dir / "again").string() + " --outputs-dir " +
                        (dir / "out2").string(),
                    &text),
            0)
      << text;
  const std::string twice = slurp(dir / "out2" / "y.npy");
  const uint16_t quadrupled[4] = {0x4080, 0x4100, 0xC000, 0x4140};
  EXPECT_EQ(std::memcmp(twice.data() + twice.size() - sizeof quadrupled, quadrupled, sizeof quadrupled), 0);
  std::filesystem::remove_all(dir);
}

TEST(RunFiles, EmptyNpyFeedsAreRead) {
  const auto dir = testing::scratch_folder("run_files", "empty");
  ModelBuilder b;
  b.input("past", {1, 2, -1, 4}).output("out", {1, 2, -1, 4});
  b.node("Identity", {"past"}, {"out"});
  std::ofstream(dir / "m.onnx", std::ios::binary) << b.bytes();
  std::filesystem::create_directories(dir / "in");
  // numpy.save of np.zeros((1, 2, 0, 4), np.float32): the header, then no data.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 0, 4), }";
  while ((10 + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string npy("\x93NUMPY\x01\x00", 8);
  npy += char(header.size() & 0xff);
  npy += char(header.size() >> 8);
  npy += header;
  std::ofstream(dir / "in" / "past.npy", std::ios::binary) << npy;
  std::string text;
  ASSERT_EQ(run_cli("run " + (dir / "m.onnx").string() + " --inputs-dir " + (dir / "in").string(), &text), 0) << text;
  EXPECT_NE(text.find("out: float32[1,2,0,4]"), std::string::npos) << text;
  std::filesystem::remove_all(dir);
}
#endif

}  // namespace
}  // namespace onyx
