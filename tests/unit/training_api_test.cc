// The C++ training API (training/artifacts.h, checkpoint.h, module.h) on y = x @ w + b with an
// MSE loss, where every gradient is known in closed form: artifacts, a Module step, SGD and
// AdamW updates, gradient accumulation and its reset, checkpoints round-tripping with
// properties and moments, and the errors for a damaged checkpoint or a mismatched model.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "cli_runner.h"
#include "model_builder.h"
#include "onnx/loader.h"
#include "training/artifacts.h"
#include "training/checkpoint.h"
#include "training/module.h"

namespace onyx {
namespace {

namespace fs = std::filesystem;
using testing::ModelBuilder;

class TrainingApi : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("onyx_training_api_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // y[4,2] = x[4,3] @ w[3,2] + b[2]
  static ir::Model linear(int64_t in = 3) {
    ModelBuilder b(17);
    b.input("x", {4, in}).output("y", {4, 2});
    std::vector<float> w;
    for (int64_t i = 0; i < in * 2; ++i) w.push_back(0.1f * float(i) - 0.25f);
    b.initializer("w", {in, 2}, w);
    b.initializer("b", {2}, {0.5f, -0.5f});
    b.node("MatMul", {"x", "w"}, {"xw"}, "mm");
    b.node("Add", {"xw", "b"}, {"y"}, "add");
    const std::string bytes = b.bytes();
    auto m = onnx_format::load_model_bytes(bytes.data(), bytes.size(), "");
    EXPECT_TRUE(m.ok()) << m.status().to_string();
    return std::move(*m);
  }

  training::ArtifactsSpec spec(training::OptimizerKind opt, const std::string& sub = "a") const {
    training::ArtifactsSpec s;
    s.loss = training::LossKind::kMSE;
    s.optimizer = opt;
    s.directory = (dir_ / sub).string();
    return s;
  }

  static Tensor filled(Shape shape, float start, float step) {
    Tensor t(DataType::kFloat, std::move(shape));
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = start + step * float(i);
    return t;
  }

  // dLoss/dw and dLoss/db of mean((x @ w + b - t)^2), computed here in double.
  static void expected_grads(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& t,
                             std::vector<double>& dw, std::vector<double>& db) {
    dw.assign(6, 0.0);
    db.assign(2, 0.0);
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 2; ++c) {
        double y = b.data<float>()[c];
        for (int k = 0; k < 3; ++k) y += double(x.data<float>()[r * 3 + k]) * w.data<float>()[k * 2 + c];
        const double dy = 2.0 * (y - t.data<float>()[r * 2 + c]) / 8.0;
        db[c] += dy;
        for (int k = 0; k < 3; ++k) dw[k * 2 + c] += dy * x.data<float>()[r * 3 + k];
      }
  }

  static std::shared_ptr<training::CheckpointState> load_shared(const fs::path& path) {
    auto r = training::load_checkpoint(path.string());
    EXPECT_TRUE(r.ok()) << r.status().to_string();
    return std::make_shared<training::CheckpointState>(r.ok() ? std::move(*r) : training::CheckpointState());
  }

  fs::path dir_;
};

TEST_F(TrainingApi, AnSgdStepFollowsTheClosedFormGradientAndAccumulatesUntilReset) {
  auto written = training::generate_artifacts(linear(), spec(training::OptimizerKind::kSGD));
  ASSERT_TRUE(written.ok()) << written.status().to_string();
  EXPECT_EQ(written->size(), 4u);  // training, eval, optimizer models and the checkpoint
  auto loaded = training::load_checkpoint((dir_ / "a" / "checkpoint").string());
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  auto state = std::make_shared<training::CheckpointState>(std::move(*loaded));
  ASSERT_EQ(state->parameters.size(), 2u);
  auto module = training::Module::create((dir_ / "a" / "training_model.onnx").string(), state,
                                         (dir_ / "a" / "eval_model.onnx").string());
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  EXPECT_EQ((*module)->input_names(), (std::vector<std::string>{"x", "target"}));
  auto optimizer = training::Optimizer::create((dir_ / "a" / "optimizer_model.onnx").string(), **module);
  ASSERT_TRUE(optimizer.ok()) << optimizer.status().to_string();
  (*optimizer)->set_learning_rate(0.1);

  const Tensor x = filled({4, 3}, -0.5f, 0.1f), t = filled({4, 2}, 0.3f, -0.05f);
  const Tensor w0 = state->find("w")->data.clone(), b0 = state->find("b")->data.clone();
  std::vector<double> dw, db;
  expected_grads(x, w0, b0, t, dw, db);
  // Two steps without a reset: the gradients add up, in the state's own gradient tensor.
  const void* grad_memory = state->find("w")->grad.raw_data();
  for (int step = 0; step < 2; ++step) {
    auto loss = (*module)->train_step({Value(x), Value(t)});
    ASSERT_TRUE(loss.ok()) << loss.status().to_string();
    ASSERT_EQ(loss->size(), 1u);
  }
  EXPECT_EQ(state->find("w")->grad.raw_data(), grad_memory);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(state->find("w")->grad.data<float>()[i], 2 * dw[i], 1e-5);
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(state->find("b")->grad.data<float>()[i], 2 * db[i], 1e-5);
  // After a reset the next step's gradient stands alone.
  (*module)->lazy_reset_grad();
  ASSERT_TRUE((*module)->train_step({Value(x), Value(t)}).ok());
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(state->find("w")->grad.data<float>()[i], dw[i], 1e-5);
  // SGD writes p - lr * g into the state's own tensor.
  const float* w_before = state->find("w")->data.data<float>();
  ASSERT_TRUE((*optimizer)->step().ok());
  EXPECT_EQ(state->find("w")->data.data<float>(), w_before) << "updated in place";
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(state->find("w")->data.data<float>()[i], w0.data<float>()[i] - 0.1 * dw[i], 1e-6);
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(state->find("b")->data.data<float>()[i], b0.data<float>()[i] - 0.1 * db[i], 1e-6);
  EXPECT_EQ(state->optimizer.step, 1);
  // The eval model sees the new parameters and changes nothing.
  auto eval = (*module)->eval_step({Value(x), Value(t)});
  ASSERT_TRUE(eval.ok()) << eval.status().to_string();
  EXPECT_EQ(state->optimizer.step, 1);
}

TEST_F(TrainingApi, AdamWMomentsAndPropertiesRoundTripThroughTheCheckpoint) {
  ASSERT_TRUE(training::generate_artifacts(linear(), spec(training::OptimizerKind::kAdamW)).ok());
  auto state = load_shared(dir_ / "a" / "checkpoint");
  EXPECT_EQ(state->optimizer.kind, "AdamW");
  EXPECT_DOUBLE_EQ(state->optimizer.config.at("epsilon"), 1e-6);
  auto module = training::Module::create((dir_ / "a" / "training_model.onnx").string(), state);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  auto optimizer = training::Optimizer::create((dir_ / "a" / "optimizer_model.onnx").string(), **module);
  ASSERT_TRUE(optimizer.ok()) << optimizer.status().to_string();
  const Tensor x = filled({4, 3}, 0.2f, -0.07f), t = filled({4, 2}, 0.0f, 0.1f);
  ASSERT_TRUE((*module)->train_step({Value(x), Value(t)}).ok());
  ASSERT_TRUE((*optimizer)->step().ok());
  // AdamW's first step moves every parameter with a nonzero gradient by about lr (1e-3).
  const Tensor& m = state->optimizer.exp_avg.at("w");
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(m.data<float>()[i], 0.1f * state->find("w")->grad.data<float>()[i], 1e-7);
  state->properties["epoch"] = int64_t(3);
  state->properties["best"] = 0.125;
  state->properties["name"] = std::string("a \"quoted\" run");
  const std::string path = (dir_ / "saved").string();
  ASSERT_TRUE(training::save_checkpoint(*state, path, true).ok());
  auto again = training::load_checkpoint(path);
  ASSERT_TRUE(again.ok()) << again.status().to_string();
  EXPECT_EQ(std::get<int64_t>(again->properties.at("epoch")), 3);
  EXPECT_DOUBLE_EQ(std::get<double>(again->properties.at("best")), 0.125);
  EXPECT_EQ(std::get<std::string>(again->properties.at("name")), "a \"quoted\" run");
  EXPECT_EQ(again->optimizer.step, 1);
  ASSERT_TRUE(again->optimizer.exp_avg.count("w"));
  EXPECT_EQ(std::memcmp(again->optimizer.exp_avg.at("w").raw_data(), m.raw_data(), m.nbytes()), 0);
  EXPECT_EQ(std::memcmp(again->find("w")->data.raw_data(), state->find("w")->data.raw_data(), 24), 0);
  // Without the optimizer state: no moments, step 0.
  ASSERT_TRUE(training::save_checkpoint(*state, path, false).ok());
  auto lean = training::load_checkpoint(path);
  ASSERT_TRUE(lean.ok());
  EXPECT_TRUE(lean->optimizer.exp_avg.empty());
  EXPECT_EQ(lean->optimizer.step, 0);
}

TEST_F(TrainingApi, DamagedCheckpointsAndMismatchedModelsAreClearErrors) {
  auto s = spec(training::OptimizerKind::kSGD);
  s.nominal_checkpoint = true;
  ASSERT_TRUE(training::generate_artifacts(linear(), s).ok());
  std::ifstream in(dir_ / "a" / "checkpoint", std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t cut : {size_t(0), good.size() / 3, good.size() - 1}) {
    auto r = training::parse_checkpoint(good.data(), cut, "cut");
    EXPECT_FALSE(r.ok()) << "cut at " << cut;
  }
  auto missing = training::load_checkpoint((dir_ / "nope").string());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  // A checkpoint of another model (w is 5x2 there) does not fit this training model.
  ASSERT_TRUE(training::generate_artifacts(linear(5), spec(training::OptimizerKind::kSGD, "other")).ok());
  auto other = load_shared(dir_ / "other" / "checkpoint");
  auto bad = training::Module::create((dir_ / "a" / "training_model.onnx").string(), other);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("shape"), std::string::npos) << bad.status().to_string();
  // A nominal checkpoint holds no values: steps are refused until they are loaded.
  auto nominal = training::load_checkpoint((dir_ / "a" / "nominal_checkpoint").string());
  ASSERT_TRUE(nominal.ok()) << nominal.status().to_string();
  EXPECT_TRUE(nominal->nominal);
  auto state = std::make_shared<training::CheckpointState>(std::move(*nominal));
  auto module = training::Module::create((dir_ / "a" / "training_model.onnx").string(), state);
  ASSERT_TRUE(module.ok()) << module.status().to_string();
  const Tensor x = filled({4, 3}, 0, 0.1f), t = filled({4, 2}, 0, 0.1f);
  EXPECT_FALSE((*module)->train_step({Value(x), Value(t)}).ok());
  ASSERT_TRUE((*module)->copy_buffer_to_parameters(filled({8}, 0.1f, 0.1f), false).ok());
  EXPECT_FALSE(state->nominal);
  EXPECT_TRUE((*module)->train_step({Value(x), Value(t)}).ok());
  // A checkpoint file whose parameter points at external data is refused, not followed.
  {
    ModelBuilder b(17);
    b.external_initializer("param/w", {2}, "weights.bin", 0, 8);
    for (const auto& [k, v] : {std::pair<std::string, std::string>{"format", "onyx.checkpoint.2"},
                               {"order", "[\"w\"]"}, {"requires_grad", "{\"w\":true}"}}) {
      auto* prop = b.model.add_metadata_props();
      prop->set_key(k);
      prop->set_value(v);
    }
    std::ofstream(dir_ / "weights.bin", std::ios::binary) << std::string(8, '\0');
    std::ofstream(dir_ / "external_ckpt", std::ios::binary) << b.bytes();
    auto r = training::load_checkpoint((dir_ / "external_ckpt").string());
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("refers to external data"), std::string::npos) << r.status().to_string();
  }
  // Bad artifacts requests write nothing.
  auto wrong = spec(training::OptimizerKind::kSGD, "wrong");
  wrong.requires_grad = std::vector<std::string>{"x"};
  EXPECT_FALSE(training::generate_artifacts(linear(), wrong).ok());
  EXPECT_FALSE(fs::exists(dir_ / "wrong"));
}

#ifdef ONYX_CLI
TEST_F(TrainingApi, TheCommandLineWritesTheSameArtifacts) {
  fs::create_directories(dir_);
  const std::string model = (dir_ / "m.onnx").string();
  ModelBuilder b(17);
  b.input("x", {4, 3}).output("y", {4, 2});
  b.initializer("w", {3, 2}, {1, 2, 3, 4, 5, 6});
  b.node("MatMul", {"x", "w"}, {"y"}, "mm");
  std::ofstream(model, std::ios::binary) << b.bytes();
  std::string text;
  const std::string out = (dir_ / "cli").string();
  ASSERT_EQ(testing::run_cli("train-artifacts " + model + " --loss L1Loss --optimizer AdamW -o " + out +
                                 " --prefix p_ --optimizer-config weight_decay=0.01",
                             &text),
            0)
      << text;
  for (const char* f : {"p_training_model.onnx", "p_eval_model.onnx", "p_optimizer_model.onnx", "p_checkpoint"})
    EXPECT_TRUE(fs::exists(dir_ / "cli" / f)) << f << "\n" << text;
  auto state = training::load_checkpoint((dir_ / "cli" / "p_checkpoint").string());
  ASSERT_TRUE(state.ok()) << state.status().to_string();
  EXPECT_DOUBLE_EQ(state->optimizer.config.at("weight_decay"), 0.01);
  EXPECT_TRUE(state->find("w") && state->find("w")->requires_grad);
  // Usage errors name the problem; a bad parameter name is an error and writes nothing.
  EXPECT_EQ(testing::run_cli("train-artifacts " + model + " --loss Hinge", &text), 2);
  EXPECT_NE(text.find("unknown loss 'Hinge'"), std::string::npos) << text;
  EXPECT_EQ(testing::run_cli("train-artifacts " + model + " --loss MSELoss --requires-grad nope -o " + out + "2", &text), 1);
  EXPECT_NE(text.find("'nope' is not an initializer"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(dir_ / "cli2"));
}
#endif

}  // namespace
}  // namespace onyx
