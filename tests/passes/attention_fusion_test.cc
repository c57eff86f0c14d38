// attention_fusion: the BERT attention core (Reshape/Transpose of Q, K, V, the scaled and
// masked scores, Softmax, the product with V, Transpose/Reshape back) becomes one
// com.microsoft MultiHeadAttention, with constant or computed (dynamic) reshape shapes.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "pass_test_util.h"

namespace onyx::testing {
namespace {

using Hist = std::map<std::string, int>;
constexpr int64_t kHeads = 2, kHead = 4, kWidth = kHeads * kHead;

struct AttentionForm {
  bool dynamic = false;        // reshape shapes computed from Shape/Gather/Unsqueeze/Concat
  bool key_two_steps = false;  // K transposed [0,2,1,3] then [0,1,3,2]
  int scale = 0;               // 0 Div by 2, 1 Mul by 0.5, 2 none
  bool mask = true;
  bool mask_first = false;     // Add(mask, scores)
  bool projections = false;    // q, k, v are MatMul + bias Add of one input x
  bool narrow_value = false;   // with projections: v = Add(x_narrow [.., 1], bias [width])
};

// The shape [x.dim0, x.dim1, tail...], constant or computed from Shape(x).
std::string shape_for(PassModel& m, const std::string& x, std::vector<int64_t> tail, bool dynamic,
                      const std::string& tag) {
  if (!dynamic) {
    std::vector<int64_t> dims = {0, 0};
    dims.insert(dims.end(), tail.begin(), tail.end());
    m.init_i64(tag + "_shape", {int64_t(dims.size())}, dims);
    return tag + "_shape";
  }
  m.node("Shape", {x}, {tag + "_s"});
  m.init_i64(tag + "_i0", {}, {0});
  m.init_i64(tag + "_i1", {}, {1});
  m.init_i64(tag + "_ax", {1}, {0});
  m.node("Gather", {tag + "_s", tag + "_i0"}, {tag + "_g0"});
  m.node("Gather", {tag + "_s", tag + "_i1"}, {tag + "_g1"});
  m.node("Unsqueeze", {tag + "_g0", tag + "_ax"}, {tag + "_u0"});
  m.node("Unsqueeze", {tag + "_g1", tag + "_ax"}, {tag + "_u1"});
  m.init_i64(tag + "_tail", {int64_t(tail.size())}, tail);
  attr_int(m.node("Concat", {tag + "_u0", tag + "_u1", tag + "_tail"}, {tag + "_shape"}), "axis", 0);
  return tag + "_shape";
}

PassModel attention_model(const AttentionForm& f, std::vector<int64_t> dims = {2, 4}) {
  PassModel m;
  if (!f.projections) {
    for (const char* name : {"q", "k", "v"}) m.input(name, {dims[0], dims[1], kWidth});
  } else {
    m.input("x", {dims[0], dims[1], kWidth});
    if (f.narrow_value) m.input("x_narrow", {dims[0], dims[1], 1});
    for (const char* name : {"q", "k", "v"}) {
      const std::string n = name;
      m.init_random(n + "_w", {kWidth, kWidth}, 0.3f);
      m.init_random(n + "_b", {kWidth}, 0.5f);
      std::string projected = n + "_mm";
      if (n == "v" && f.narrow_value) projected = "x_narrow";
      else m.node("MatMul", {"x", n + "_w"}, {projected});
      // The bias first for k: the Add's operands may come in either order.
      m.node("Add", n == "k" ? std::vector<std::string>{n + "_b", projected} : std::vector<std::string>{projected, n + "_b"},
             {n});
    }
  }
  if (f.mask) m.input("mask", {dims[0], 1, 1, dims[1]});
  for (const char* name : {"q", "k", "v"}) {
    const std::string n = name;
    m.node("Reshape", {n, shape_for(m, n, {kHeads, kHead}, f.dynamic, n)}, {n + "4"});
  }
  attr_ints(m.node("Transpose", {"q4"}, {"qt"}), "perm", {0, 2, 1, 3});
  if (f.key_two_steps) {
    attr_ints(m.node("Transpose", {"k4"}, {"kh"}), "perm", {0, 2, 1, 3});
    attr_ints(m.node("Transpose", {"kh"}, {"kt"}), "perm", {0, 1, 3, 2});
  } else {
    attr_ints(m.node("Transpose", {"k4"}, {"kt"}), "perm", {0, 2, 3, 1});
  }
  attr_ints(m.node("Transpose", {"v4"}, {"vt"}), "perm", {0, 2, 1, 3});
  m.node("MatMul", {"qt", "kt"}, {"scores"});
  std::string scaled = "scores";
  if (f.scale == 0) m.node("Div", {"scores", m.scalar("two", 2.f)}, {scaled = "scaled"});
  if (f.scale == 1) m.node("Mul", {m.scalar("half", 0.5f), "scores"}, {scaled = "scaled"});
  std::string logits = scaled;
  if (f.mask) m.node("Add", f.mask_first ? std::vector<std::string>{"mask", scaled} : std::vector<std::string>{scaled, "mask"}, {logits = "masked"});
  attr_int(m.node("Softmax", {logits}, {"probs"}), "axis", -1);
  m.node("MatMul", {"probs", "vt"}, {"ctx"});
  attr_ints(m.node("Transpose", {"ctx"}, {"ctx_t"}), "perm", {0, 2, 1, 3});
  m.node("Reshape", {"ctx_t", shape_for(m, "ctx_t", {kWidth}, f.dynamic, "merge")}, {"y"});
  m.output("y");
  return m;
}

const Hist kFused = {{"com.microsoft:MultiHeadAttention", 1}};

TEST(AttentionFusion, ConstantShapes) {
  check_rewrite(attention_model({}), {}, kFused, 1e-4, 1e-5, 2);
}

TEST(AttentionFusion, ComputedShapesWithSymbolicDims) {
  AttentionForm f;
  f.dynamic = true;
  ir::Model after = check_rewrite(attention_model(f, {-1, -1}), {}, kFused, 1e-4, 1e-5, 2);
  const ir::Node& n = after.graph.nodes[0];
  EXPECT_EQ(n.inputs, (std::vector<std::string>{"q", "k", "v", "", "", "mask"}));
  EXPECT_EQ(n.attribute("num_heads")->i, kHeads);
  EXPECT_FLOAT_EQ(n.attribute("scale")->f, 0.5f);
}

TEST(AttentionFusion, Variants) {
  for (int scale : {0, 1, 2})
    for (bool two_steps : {false, true})
      for (bool mask : {false, true}) {
        AttentionForm f;
        f.scale = scale;
        f.key_two_steps = two_steps;
        f.mask = mask;
        f.mask_first = two_steps;
        SCOPED_TRACE("scale " + std::to_string(scale) + " two_steps " + std::to_string(two_steps) + " mask " +
                     std::to_string(mask));
        check_rewrite(attention_model(f), {"attention_fusion"}, kFused, 1e-4, 1e-5);
      }
}

TEST(AttentionFusion, ReshapeThatMovesDimsStays) {
  PassModel m = attention_model({});
  // q's split shape [4, 2, 2, 4] puts the sequence first: not a head split of [2, 4, 8].
  for (auto& t : *m.graph->mutable_initializer())
    if (t.name() == "q_shape") {
      t.clear_int64_data();
      for (int64_t d : {4, 2, 2, 4}) t.add_int64_data(d);
    }
  ir::Model after = load(m);
  ASSERT_TRUE(apply_passes(after, {"attention_fusion"}).ok());
  EXPECT_EQ(histogram(after.graph).count("com.microsoft:MultiHeadAttention"), 0u);
}

TEST(AttentionFusion, ScoresReadElsewhereStay) {
  PassModel m = attention_model({});
  m.output("probs");
  ir::Model after = load(m);
  ASSERT_TRUE(apply_passes(after, {"attention_fusion"}).ok());
  EXPECT_EQ(histogram(after.graph).count("com.microsoft:MultiHeadAttention"), 0u);
}

// GPT-2's attention as torch exports it: Q, K, V split from one projection, the scale
// computed as sqrt(Shape(VT)[-1]), the causal mask sliced out of a constant lower triangle by
// bounds computed from Shape(QT) and Shape(KH) (KH: another view of K4 read only by Shape),
// a Where with finfo.min, Softmax, the product with V and the merge.
struct CausalForm {
  bool dynamic = true;
  bool triangle = true;  // false: the mask constant is all true (not causal)
};

PassModel causal_model(const CausalForm& f) {
  PassModel m;
  const std::vector<int64_t> dims = f.dynamic ? std::vector<int64_t>{-1, -1} : std::vector<int64_t>{2, 4};
  m.input("x", {dims[0], dims[1], 3 * kWidth});
  m.init_i64("split", {3}, {kWidth, kWidth, kWidth});
  attr_int(m.node("Split", {"x", "split"}, {"q", "k", "v"}), "axis", 2);
  for (const char* name : {"q", "k", "v"}) {
    const std::string n = name;
    m.node("Reshape", {n, shape_for(m, n, {kHeads, kHead}, f.dynamic, n)}, {n + "4"});
  }
  attr_ints(m.node("Transpose", {"q4"}, {"qt"}), "perm", {0, 2, 1, 3});
  attr_ints(m.node("Transpose", {"k4"}, {"kh"}), "perm", {0, 2, 1, 3});
  attr_ints(m.node("Transpose", {"k4"}, {"kt"}), "perm", {0, 2, 3, 1});
  attr_ints(m.node("Transpose", {"v4"}, {"vt"}), "perm", {0, 2, 1, 3});
  m.node("MatMul", {"qt", "kt"}, {"scores"});
  m.init_i64("ax0", {1}, {0});
  m.init_i64("last_start", {1}, {-1});
  m.init_i64("last_end", {1}, {INT64_MAX});
  m.init_i64("row_start", {1}, {-2});
  m.init_i64("row_end", {1}, {-1});
  // scale: sqrt(Shape(vt)[-1]) as Pow(Cast(Squeeze(Slice(Shape(vt), -1, max))), 0.5)
  m.node("Shape", {"vt"}, {"vt_shape"});
  m.node("Slice", {"vt_shape", "last_start", "last_end", "ax0"}, {"v_last"});
  m.node("Squeeze", {"v_last", "ax0"}, {"v_last_s"});
  attr_int(m.node("Cast", {"v_last_s"}, {"v_last_f"}), "to", onnx::TensorProto::FLOAT);
  m.node("Pow", {"v_last_f", m.scalar("half", 0.5f)}, {"root"});
  m.node("Div", {"scores", "root"}, {"scaled"});
  // S and L, then rows [L - S, L) and columns [0, L) of the triangle.
  for (const auto& [t, tag] : {std::pair<std::string, std::string>{"qt", "q_len"}, {"kh", "k_len"}}) {
    m.node("Shape", {t}, {tag + "_shape"});
    m.node("Slice", {tag + "_shape", "row_start", "row_end", "ax0"}, {tag + "_sliced"});
    m.node("Squeeze", {tag + "_sliced", "ax0"}, {tag});
  }
  m.node("Sub", {"k_len", "q_len"}, {"past"});
  m.node("Unsqueeze", {"past", "ax0"}, {"rows_from"});
  m.node("Unsqueeze", {"k_len", "ax0"}, {"rows_to"});
  constexpr int64_t n = 6;
  auto* tri = m.graph->add_initializer();
  tri->set_name("triangle");
  tri->set_data_type(onnx::TensorProto::BOOL);
  for (int64_t d : {int64_t(1), int64_t(1), n, n}) tri->add_dims(d);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) tri->add_int32_data(f.triangle ? j <= i : 1);
  m.init_i64("ax2", {1}, {2});
  m.init_i64("ax3", {1}, {3});
  m.init_i64("one", {1}, {1});
  m.node("Slice", {"triangle", "rows_from", "rows_to", "ax2", "one"}, {"rows"});
  m.node("Slice", {"rows", "ax0", "rows_to", "ax3", "one"}, {"causal"});
  m.node("Where", {"causal", "scaled", m.scalar("fill", -3.4028235e38f)}, {"masked"});
  attr_int(m.node("Softmax", {"masked"}, {"probs"}), "axis", -1);
  m.node("MatMul", {"probs", "vt"}, {"ctx"});
  attr_ints(m.node("Transpose", {"ctx"}, {"ctx_t"}), "perm", {0, 2, 1, 3});
  m.node("Reshape", {"ctx_t", shape_for(m, "ctx_t", {kWidth}, f.dynamic, "merge")}, {"y"});
  m.output("y");
  return m;
}

TEST(AttentionFusion, Gpt2CausalForm) {
  for (bool dynamic : {true, false}) {
    SCOPED_TRACE(dynamic ? "computed shapes" : "constant shapes");
    CausalForm f;
    f.dynamic = dynamic;
    ir::Model after = check_rewrite(causal_model(f), {}, {{"com.microsoft:MultiHeadAttention", 1}, {"Split", 1}}, 1e-4,
                                    1e-5, 2);
    for (const ir::Node& node : after.graph.nodes) {
      if (node.op_type != "MultiHeadAttention") continue;
      EXPECT_EQ(node.inputs, (std::vector<std::string>{"q", "k", "v"}));
      ASSERT_NE(node.attribute("unidirectional"), nullptr);
      EXPECT_EQ(node.attribute("unidirectional")->i, 1);
      EXPECT_FLOAT_EQ(node.attribute("scale")->f, 0.5f);  // 1 / sqrt(kHead)
    }
  }
}

TEST(AttentionFusion, MaskThatIsNotATriangleStays) {
  CausalForm f;
  f.triangle = false;
  ir::Model after = load(causal_model(f));
  ASSERT_TRUE(apply_level(after, 2).ok());
  EXPECT_EQ(histogram(after.graph).count("com.microsoft:MultiHeadAttention"), 0u);
}

const Hist kFusedWithBias = {{"com.microsoft:MultiHeadAttention", 1}, {"MatMul", 3}};

TEST(AttentionBiasFusion, ProjectionBiasesMoveIntoTheAttention) {
  for (bool dynamic : {false, true}) {
    AttentionForm f;
    f.projections = true;
    f.dynamic = dynamic;
    SCOPED_TRACE(dynamic ? "computed shapes" : "constant shapes");
    ir::Model after = check_rewrite(attention_model(f, dynamic ? std::vector<int64_t>{-1, -1} : std::vector<int64_t>{2, 4}),
                                    {}, kFusedWithBias, 1e-4, 1e-5, 2);
    for (const ir::Node& n : after.graph.nodes) {
      if (n.op_type != "MultiHeadAttention") continue;
      ASSERT_GE(n.inputs.size(), 6u);
      EXPECT_EQ(n.inputs[0], "q_mm");
      EXPECT_EQ(n.inputs[1], "k_mm");
      EXPECT_EQ(n.inputs[2], "v_mm");
      EXPECT_EQ(n.inputs[5], "mask");
      const Tensor* bias = nullptr;
      for (const auto& [name, t] : after.graph.initializers)
        if (name == n.inputs[3]) bias = &t;
      ASSERT_NE(bias, nullptr);
      EXPECT_EQ(bias->shape(), (Shape{3 * kWidth}));
    }
  }
}

TEST(AttentionBiasFusion, BiasAddThatWidensStays) {
  AttentionForm f;
  f.projections = true;
  f.narrow_value = true;  // v's Add broadcasts [2, 4, 1] to [2, 4, 8]: x_narrow cannot be the value
  check_rewrite(attention_model(f), {}, {{"com.microsoft:MultiHeadAttention", 1}, {"MatMul", 2}, {"Add", 3}}, 1e-4,
                1e-5, 2);
}

TEST(AttentionBiasFusion, BiasedProjectionReadElsewhereStays) {
  AttentionForm f;
  f.projections = true;
  PassModel m = attention_model(f);
  m.output("k");
  check_rewrite(m, {}, {{"com.microsoft:MultiHeadAttention", 1}, {"MatMul", 3}, {"Add", 3}}, 1e-4, 1e-5, 2);
}

}  // namespace
}  // namespace onyx::testing
