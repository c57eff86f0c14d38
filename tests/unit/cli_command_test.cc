// The onyx command line as a whole, through the built binary: --help / -h / `help COMMAND`
// print each command's usage to stdout and exit 0, an unknown flag prints the same usage to
// stderr and exits 2, and `run --random-inputs` on a BERT-like model draws ids inside the
// embedding tables they index and says which sizes it chose for symbolic dims.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "model_builder.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;
using testing::ModelBuilder;

#ifdef ONYX_CLI

// Every command tools/main.cc dispatches.
const std::vector<std::string> kCommands = {"info",      "run",     "test",     "bench",    "profile-summary",
                                            "providers", "compare", "optimize", "quantize"};

struct Streams {
  int code = -1;
  std::string out, err;
};

std::string read_file(const fs::path& path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

// Runs `onyx ARGS` with stdout and stderr apart (in files of `dir`).
Streams run_apart(const std::string& args, const fs::path& dir) {
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const int status = std::system((std::string(ONYX_CLI) + " " + args + " >" + out.string() + " 2>" + err.string()).c_str());
  Streams s;
  s.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  s.out = read_file(out);
  s.err = read_file(err);
  return s;
}

TEST(CliCommand, HelpPrintsEachCommandsUsageToStdoutAndExitsZero) {
  const fs::path dir = testing::scratch_folder("cli_test", "help");
  for (const std::string top : {"--help", "-h", "help"}) {
    const Streams s = run_apart(top, dir);
    EXPECT_EQ(s.code, 0) << top << "\n" << s.err;
    EXPECT_EQ(s.err, "") << top;
    for (const std::string& c : kCommands) EXPECT_NE(s.out.find("onyx " + c + " "), std::string::npos) << c << "\n" << s.out;
    EXPECT_NE(s.out.find("onyx COMMAND --help"), std::string::npos) << s.out;
  }
  for (const std::string& c : kCommands) {
    const Streams help = run_apart(c + " --help", dir);
    EXPECT_EQ(help.code, 0) << c << "\n" << help.err;
    EXPECT_EQ(help.err, "") << c;
    EXPECT_EQ(help.out.rfind("usage: onyx " + c + " ", 0), 0u) << c << "\n" << help.out;
    // -h, `onyx help COMMAND`, and --help after other arguments give the same text.
    for (const std::string& args : {c + " -h", "help " + c, c + " some.onnx --help"}) {
      const Streams same = run_apart(args, dir);
      EXPECT_EQ(same.code, 0) << args << "\n" << same.err;
      EXPECT_EQ(same.out, help.out) << args;
    }
  }
  fs::remove_all(dir);
}

TEST(CliCommand, UnknownFlagPrintsTheSameUsageToStderrAndExitsTwo) {
  const fs::path dir = testing::scratch_folder("cli_test", "unknown");
  for (const std::string& c : kCommands) {
    const std::string usage = run_apart(c + " --help", dir).out;
    ASSERT_FALSE(usage.empty()) << c;
    const Streams s = run_apart(c + " --no-such-flag", dir);
    EXPECT_EQ(s.code, 2) << c << "\n" << s.err;
    EXPECT_EQ(s.out, "") << c;
    EXPECT_EQ(s.err.rfind("onyx " + c + ": unknown option '--no-such-flag'\n", 0), 0u) << c << "\n" << s.err;
    EXPECT_NE(s.err.find(usage), std::string::npos) << c << "\n" << s.err;  // one usage text, both ways
  }
  const Streams unknown = run_apart("no-such-command", dir);
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("onyx: unknown command 'no-such-command'"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("onyx COMMAND --help"), std::string::npos) << unknown.err;
  const Streams bare = run_apart("", dir);  // no command: the list, exit 2, as ever
  EXPECT_EQ(bare.code, 2);
  EXPECT_NE(bare.out.find("onyx COMMAND --help"), std::string::npos) << bare.out;
  fs::remove_all(dir);
}

// An int64 input of [batch, sequence] (dim_params by those names).
void bert_input(ModelBuilder& b, const std::string& name) {
  b.input(name, {-1, -1}, onnx::TensorProto::INT64);
  auto* shape = b.graph->mutable_input(b.graph->input_size() - 1)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->mutable_dim(0)->set_dim_param("batch");
  shape->mutable_dim(1)->set_dim_param("sequence");
}

// BERT's embeddings in small: y = (words[input_ids] + token_types[token_type_ids]) * scale,
// times attention_mask; a word table of 16 rows and a token-type table of 2 (ids of 2 or more
// are out of range there), and `scale`, a float input of fixed shape [1].
std::string bert_embeddings() {
  ModelBuilder b;
  bert_input(b, "input_ids");
  bert_input(b, "token_type_ids");
  bert_input(b, "attention_mask");
  b.input("scale", {1});
  b.output("y", {-1, -1, 4});
  std::vector<float> words(16 * 4), types(2 * 4);
  for (size_t i = 0; i < words.size(); ++i) words[i] = float(i);
  for (size_t i = 0; i < types.size(); ++i) types[i] = 100.f * float(i);
  b.initializer("words", {16, 4}, words);
  b.initializer("token_types", {2, 4}, types);
  b.node("Gather", {"words", "input_ids"}, {"w"});
  b.node("Gather", {"token_types", "token_type_ids"}, {"t"});
  b.node("Add", {"w", "t"}, {"e"});
  b.node("Mul", {"e", "scale"}, {"scaled"});
  auto* to = b.node("Cast", {"attention_mask"}, {"m"})->add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::INT);
  to->set_i(onnx::TensorProto::FLOAT);
  auto* axes = b.graph->add_initializer();
  axes->set_name("axes");
  axes->set_data_type(onnx::TensorProto::INT64);
  axes->add_dims(1);
  axes->add_int64_data(2);
  b.node("Unsqueeze", {"m", "axes"}, {"m3"});
  b.node("Mul", {"scaled", "m3"}, {"y"});
  return b.bytes();
}

TEST(RunCommand, RandomInputsIndexTheirTablesAndReportSymbolicShapes) {
  const fs::path dir = testing::scratch_folder("cli_test", "bert");
  const std::string model = (dir / "bert.onnx").string();
  std::ofstream(model, std::ios::binary) << bert_embeddings();

  // Symbolic dims left as they are: 1 each, said on stderr with how to choose them.
  Streams s = run_apart("run " + model + " --random-inputs", dir);
  ASSERT_EQ(s.code, 0) << s.out << s.err;
  for (const char* input : {"input_ids", "token_type_ids", "attention_mask"})
    EXPECT_NE(s.err.find("random input '" + std::string(input) + "': int64[1,1] (batch=1, sequence=1)\n"),
              std::string::npos)
        << s.err;
  EXPECT_NE(s.err.find("random inputs: a symbolic dim not given is 1; choose with --free-dim NAME=VALUE\n"),
            std::string::npos)
      << s.err;
  EXPECT_EQ(s.err.find("'scale'"), std::string::npos) << s.err;  // fixed shape: nothing to say
  EXPECT_EQ(s.out.find("random input"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("y: float32[1,1,4]"), std::string::npos) << s.out;

  // 64 token types per run: drawn from [0, 10) as they once were, some would be 2 or more
  // ("index 2 is out of range"); from the table's [0, 2), the run succeeds.
  s = run_apart("run " + model + " --random-inputs --free-dim sequence=64", dir);
  ASSERT_EQ(s.code, 0) << s.out << s.err;
  EXPECT_NE(s.err.find("random input 'token_type_ids': int64[1,64] (batch=1)\n"), std::string::npos) << s.err;
  EXPECT_NE(s.err.find("not given is 1"), std::string::npos) << s.err;  // batch still is
  EXPECT_NE(s.out.find("y: float32[1,64,4]"), std::string::npos) << s.out;
  fs::remove_all(dir);
}
#endif

}  // namespace
}  // namespace onyx
