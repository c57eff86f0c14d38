// transpose_optimization: inverse pairs cancel, Transposes move below elementwise ops, global
// pools and Concat; shared values and graph outputs keep what they need. Then the whole
// layout level on small residual and MobileNet-like blocks: one Transpose in, one out.
#include <gtest/gtest.h>

#include "pass_test_util.h"

namespace onyx::testing {
namespace {

using Hist = std::map<std::string, int>;
constexpr double kRtol = 1e-4, kAtol = 1e-4;
const std::vector<int64_t> kToNhwc = {0, 2, 3, 1}, kToNchw = {0, 3, 1, 2};

void transpose(PassModel& m, const std::string& in, const std::string& out, std::vector<int64_t> perm) {
  attr_ints(m.node("Transpose", {in}, {out}), "perm", perm);
}

const ir::Node* find(const ir::Model& m, const std::string& op) {
  for (const auto& n : m.graph.nodes)
    if (n.op_type == op) return &n;
  return nullptr;
}

TEST(TransposeOptimization, InversePairsCancelForEveryReader) {
  PassModel m;
  m.input("x", {2, 3, 4, 5});
  transpose(m, "x", "a", kToNhwc);
  transpose(m, "a", "b1", kToNchw);
  transpose(m, "a", "b2", kToNchw);
  m.node("Relu", {"b1"}, {"y1"});
  m.node("Sigmoid", {"b2"}, {"y2"});
  m.output("y1").output("y2");
  ir::Model after = check_rewrite(m, {"transpose_optimization"}, {{"Relu", 1}, {"Sigmoid", 1}});
  EXPECT_EQ(find(after, "Relu")->inputs[0], "x");
}

TEST(TransposeOptimization, ChainsMergeAndIdentitiesGo) {
  PassModel m;
  m.input("x", {2, 3, 4, 5});
  transpose(m, "x", "a", {1, 0, 2, 3});
  transpose(m, "a", "b", {0, 1, 3, 2});
  transpose(m, "b", "c", {0, 1, 2, 3});
  m.node("Neg", {"c"}, {"y"});
  m.output("y");
  ir::Model after = check_rewrite(m, {"transpose_optimization"}, {{"Transpose", 1}, {"Neg", 1}});
  EXPECT_EQ(find(after, "Transpose")->attribute("perm")->ints, (std::vector<int64_t>{1, 0, 3, 2}));
}

TEST(TransposeOptimization, GraphOutputsKeepTheirNames) {
  PassModel out_b;  // the second Transpose writes a graph output that nothing else could write
  out_b.input("x", {2, 3, 4, 5});
  transpose(out_b, "x", "a", kToNhwc);
  transpose(out_b, "a", "y", kToNchw);
  out_b.output("y");
  check_rewrite(out_b, {"transpose_optimization"}, {{"Transpose", 2}});

  PassModel renamed;  // ... unless the node before the pair can write it
  renamed.input("x", {2, 3, 4, 5});
  renamed.node("Relu", {"x"}, {"r"});
  transpose(renamed, "r", "a", kToNhwc);
  transpose(renamed, "a", "y", kToNchw);
  renamed.output("y");
  ir::Model after = check_rewrite(renamed, {"transpose_optimization"}, {{"Relu", 1}});
  EXPECT_EQ(after.graph.nodes[0].outputs[0], "y");

  PassModel out_a;  // the first Transpose's output is a graph output: it stays, its reader goes
  out_a.input("x", {2, 3, 4, 5});
  transpose(out_a, "x", "a", kToNhwc);
  transpose(out_a, "a", "b", kToNchw);
  out_a.node("Relu", {"b"}, {"y"});
  out_a.output("a").output("y");
  check_rewrite(out_a, {"transpose_optimization"}, {{"Transpose", 1}, {"Relu", 1}});
}

TEST(TransposeOptimization, MovesBelowUnaryAndBinaryOps) {
  PassModel m;
  m.input("x1", {2, 4, 3, 3});
  m.input("x2", {2, 4, 3, 1});
  transpose(m, "x1", "t1", kToNchw);
  transpose(m, "x2", "t2", kToNchw);
  m.node("Add", {"t1", "t2"}, {"s"});  // broadcasts along the same (permuted) axis
  auto* clip = m.node("Clip", {"s", m.scalar("lo", -1.f), m.scalar("hi", 1.f)}, {"c"});
  (void)clip;
  m.node("Mul", {m.scalar("two", 2.f), "c"}, {"d"});
  m.node("Exp", {"d"}, {"e"});
  transpose(m, "e", "back", kToNhwc);
  m.node("Neg", {"back"}, {"y"});
  m.output("y");
  ir::Model after =
      check_rewrite(m, {"transpose_optimization"}, {{"Add", 1}, {"Clip", 1}, {"Mul", 1}, {"Exp", 1}, {"Neg", 1}});
  EXPECT_EQ(find(after, "Add")->inputs, (std::vector<std::string>{"x1", "x2"}));
}

TEST(TransposeOptimization, SharedOrMismatchedTransposesStay) {
  PassModel shared;  // the Transpose has two readers: moving it below one would add one
  shared.input("x", {2, 3, 4, 5});
  transpose(shared, "x", "t", kToNhwc);
  shared.node("Relu", {"t"}, {"r"});
  shared.node("Sigmoid", {"t"}, {"y2"});
  transpose(shared, "r", "y1", kToNchw);
  shared.output("y1").output("y2");
  check_rewrite(shared, {"transpose_optimization"}, {{"Transpose", 2}, {"Relu", 1}, {"Sigmoid", 1}});

  PassModel perms;  // two different perms into one Add
  perms.input("x1", {2, 3, 3, 3});
  perms.input("x2", {2, 3, 3, 3});
  transpose(perms, "x1", "t1", kToNhwc);
  transpose(perms, "x2", "t2", kToNchw);
  perms.node("Add", {"t1", "t2"}, {"y"});
  perms.output("y");
  check_rewrite(perms, {"transpose_optimization"}, {{"Transpose", 2}, {"Add", 1}});

  PassModel bias;  // a constant that is not one element would need transposing too
  bias.input("x", {2, 3, 4, 5});
  bias.init_random("b", {1, 1, 3});
  transpose(bias, "x", "t", kToNhwc);
  bias.node("Add", {"t", "b"}, {"y"});
  bias.output("y");
  check_rewrite(bias, {"transpose_optimization"}, {{"Transpose", 1}, {"Add", 1}});
}

TEST(TransposeOptimization, DuplicateTransposesMerge) {
  PassModel m;
  m.input("x", {2, 3, 4, 5});
  transpose(m, "x", "t1", kToNhwc);
  transpose(m, "x", "t2", kToNhwc);
  m.node("Relu", {"t1"}, {"y1"});
  m.node("Sigmoid", {"t2"}, {"y2"});
  m.output("y1").output("y2");
  check_rewrite(m, {"transpose_optimization"}, {{"Transpose", 1}, {"Relu", 1}, {"Sigmoid", 1}});
}

TEST(TransposeOptimization, GlobalPoolsBecomeReductions) {
  for (int64_t opset : {17, 18}) {
    for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
      SCOPED_TRACE(std::string(op) + " opset " + std::to_string(opset));
      PassModel m(opset);
      m.input("x", {2, 3, 4, 5});  // NHWC
      transpose(m, "x", "t", kToNchw);
      m.node(op, {"t"}, {"y"});
      m.output("y");
      const std::string reduce = std::string(op) == "GlobalAveragePool" ? "ReduceMean" : "ReduceMax";
      ir::Model after = check_rewrite(m, {"transpose_optimization"}, {{"Transpose", 1}, {reduce, 1}});
      const ir::Node* r = find(after, reduce);
      ASSERT_NE(r, nullptr);
      if (opset >= 18) {
        ASSERT_EQ(r->inputs.size(), 2u);
        const Tensor& axes = after.graph.initializers.at(r->inputs[1]);
        EXPECT_EQ(std::vector<int64_t>(axes.data<int64_t>(), axes.data<int64_t>() + axes.numel()),
                  (std::vector<int64_t>{1, 2}));
      } else {
        EXPECT_EQ(r->attribute("axes")->ints, (std::vector<int64_t>{1, 2}));
      }
    }
  }
}

TEST(TransposeOptimization, ConcatAxisFollowsThePerm) {
  PassModel m;
  m.input("x1", {2, 3, 4, 5});
  m.input("x2", {2, 3, 4, 6});
  transpose(m, "x1", "t1", kToNchw);
  transpose(m, "x2", "t2", kToNchw);
  attr_int(m.node("Concat", {"t1", "t2"}, {"c"}), "axis", -3);
  transpose(m, "c", "back", kToNhwc);
  m.node("Neg", {"back"}, {"y"});
  m.output("y");
  ir::Model after = check_rewrite(m, {"transpose_optimization"}, {{"Concat", 1}, {"Neg", 1}});
  EXPECT_EQ(find(after, "Concat")->attribute("axis")->i, 3);
}

// A small ResNet: stem conv + Relu, MaxPool, a basic block with an identity shortcut, a
// downsampling block with a conv shortcut, global pool, Flatten, Gemm.
PassModel small_resnet() {
  PassModel m;
  m.input("x", {-1, 3, 16, 16});
  auto conv = [&](const std::string& in, const std::string& out, int64_t cin, int64_t cout, int64_t k, int64_t stride) {
    m.init_random(out + "_w", {cout, cin, k, k}, 0.3f);
    m.init_random(out + "_b", {cout});
    auto* n = m.node("Conv", {in, out + "_w", out + "_b"}, {out});
    const int64_t pad = k / 2;
    attr_ints(n, "pads", {pad, pad, pad, pad});
    attr_ints(n, "strides", {stride, stride});
    attr_ints(n, "kernel_shape", {k, k});
  };
  conv("x", "stem", 3, 8, 3, 1);
  m.node("Relu", {"stem"}, {"stem_r"});
  auto* pool = m.node("MaxPool", {"stem_r"}, {"p"});
  attr_ints(pool, "kernel_shape", {3, 3});
  attr_ints(pool, "strides", {2, 2});
  attr_ints(pool, "pads", {1, 1, 1, 1});
  conv("p", "a1", 8, 8, 3, 1);
  m.node("Relu", {"a1"}, {"a1r"});
  conv("a1r", "a2", 8, 8, 3, 1);
  m.node("Add", {"a2", "p"}, {"as"});
  m.node("Relu", {"as"}, {"ao"});
  conv("ao", "b1", 8, 16, 3, 2);
  m.node("Relu", {"b1"}, {"b1r"});
  conv("b1r", "b2", 16, 16, 3, 1);
  conv("ao", "bd", 8, 16, 1, 2);
  m.node("Add", {"b2", "bd"}, {"bs"});
  m.node("Relu", {"bs"}, {"bo"});
  m.node("GlobalAveragePool", {"bo"}, {"g"});
  m.node("Flatten", {"g"}, {"f"});
  m.init_random("fc_w", {10, 16}, 0.3f);
  m.init_random("fc_b", {10});
  auto* gemm = m.node("Gemm", {"f", "fc_w", "fc_b"}, {"y"});
  attr_int(gemm, "transB", 1);
  m.output("y");
  return m;
}

TEST(LayoutLevel, SmallResNetKeepsOneTransposeAtEachEnd) {
  ir::Model after = check_rewrite(small_resnet(), {},
                                  {{"Transpose", 2},
                                   {"com.microsoft:NhwcFusedConv", 6},
                                   {"com.microsoft:NhwcMaxPool", 1},
                                   {"ReduceMean", 1},
                                   {"Flatten", 1},
                                   {"Gemm", 1}},
                                  kRtol, kAtol, /*level=*/99);
  EXPECT_EQ(after.graph.nodes.front().op_type, "Transpose");
  EXPECT_EQ(after.graph.nodes.front().inputs[0], "x");
}

TEST(LayoutLevel, MobileNetBlocksKeepOneTransposeAtEachEnd) {
  PassModel m;
  m.input("x", {1, 8, 8, 8});
  m.scalar("zero", 0.f);
  m.scalar("six", 6.f);
  // Two inverted residual blocks with identity shortcuts, then a concat of two branches.
  std::string in = "x";
  for (int b = 0; b < 2; ++b) {
    const std::string t = "b" + std::to_string(b);
    m.init_random(t + "we", {24, 8, 1, 1}, 0.3f);
    m.init_random(t + "wd", {24, 1, 3, 3}, 0.3f);
    m.init_random(t + "wp", {8, 24, 1, 1}, 0.3f);
    m.node("Conv", {in, t + "we"}, {t + "e"});
    m.node("Clip", {t + "e", "zero", "six"}, {t + "e6"});
    auto* dw = m.node("Conv", {t + "e6", t + "wd"}, {t + "d"});
    attr_int(dw, "group", 24);
    attr_ints(dw, "pads", {1, 1, 1, 1});
    m.node("Clip", {t + "d", "zero", "six"}, {t + "d6"});
    m.node("Conv", {t + "d6", t + "wp"}, {t + "p"});
    m.node("Add", {t + "p", in}, {t + "o"});
    in = t + "o";
  }
  m.init_random("wl", {4, 8, 1, 1}, 0.3f);
  m.init_random("wr", {4, 8, 1, 1}, 0.3f);
  m.node("Conv", {in, "wl"}, {"l"});
  m.node("Conv", {in, "wr"}, {"r"});
  attr_int(m.node("Concat", {"l", "r"}, {"cat"}), "axis", 1);
  m.node("Relu", {"cat"}, {"y"});
  m.output("y");
  check_rewrite(m, {},
                {{"Transpose", 2}, {"com.microsoft:NhwcFusedConv", 8}, {"Concat", 1}, {"Relu", 1}},
                kRtol, kAtol, /*level=*/99);
}

TEST(LayoutLevel, ValuesReadInBothLayoutsKeepTheirTransposes) {
  PassModel m;  // the conv output is also a graph output, and read by a non-layout op
  m.input("x", {1, 3, 8, 8});
  m.init_random("w1", {4, 3, 3, 3}, 0.3f);
  m.init_random("w2", {4, 4, 3, 3}, 0.3f);
  m.node("Conv", {"x", "w1"}, {"c1"});
  m.node("Conv", {"c1", "w2"}, {"c2"});
  m.node("Softmax", {"c1"}, {"s"});
  m.output("c1").output("c2").output("s");
  // x -> T -> conv1 -> T(c1) ; c1 -> T -> conv2: the pair cancels, c1's Transpose stays for
  // the graph output and the Softmax; conv2's output goes back through one Transpose.
  check_rewrite(m, {}, {{"Transpose", 3}, {"com.microsoft:NhwcFusedConv", 2}, {"Softmax", 1}}, kRtol, kAtol, 99);
}

}  // namespace
}  // namespace onyx::testing
