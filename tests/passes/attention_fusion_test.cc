// attention_fusion: the BERT attention core (Reshape/Transpose of Q, K, V, the scaled and
// masked scores, Softmax, the product with V, Transpose/Reshape back) becomes one
// com.microsoft MultiHeadAttention, with constant or computed (dynamic) reshape shapes.
#include <gtest/gtest.h>

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
  for (const char* name : {"q", "k", "v"}) m.input(name, {dims[0], dims[1], kWidth});
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

}  // namespace
}  // namespace onyx::testing
