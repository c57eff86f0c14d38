// onnx_attention_fusion: ai.onnx Attention-23 between the head-split Reshape/Transposes (the
// form torch's dynamo exporter writes for scaled_dot_product_attention) becomes one
// com.microsoft MultiHeadAttention; the forms it cannot express stay.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "pass_test_util.h"

namespace onyx::testing {
namespace {

using Hist = std::map<std::string, int>;
constexpr int64_t kHeads = 2, kHead = 4, kWidth = kHeads * kHead;

struct OnnxAttentionForm {
  bool causal = false;
  bool scale_attr = false;   // scale = 0.3 (else the default 1/sqrt(H))
  bool dynamic = false;      // reshape shapes computed from Shape/Gather/Unsqueeze/Concat
  bool split = false;        // q, k, v the three outputs of Split(x [B, S, 3 * width], axis 2)
  std::vector<int64_t> mask;          // a float attn_mask input of these dims (empty: none); -1: the query / key length
  bool bool_mask = false;             // the mask boolean: stays
  bool constant_mask = true;          // the mask an initializer (a graph input stays)
  bool masked_row = false;            // its first row all -inf: stays
  float softcap = 0.f;       // non-zero: stays
  int64_t key_length = -2;   // -2: the query's length; else the keys' (and values') static length
  int64_t key_heads = kHeads;
  bool shape_of_ctx = false;  // dynamic: the merged shape computed from Shape(ctx_t): stays
};

// The shape [x.dim0, x.dim1, tail...], constant (zeros copy) or computed from Shape(x).
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

PassModel onnx_attention_model(const OnnxAttentionForm& f, std::vector<int64_t> dims = {2, 4}) {
  PassModel m(23);
  const int64_t key_len = f.key_length == -2 ? dims[1] : f.key_length;
  if (f.split) {
    m.input("x", {dims[0], dims[1], 3 * kWidth});
    onnx::NodeProto* split = m.node("Split", {"x"}, {"q", "k", "v"});
    attr_int(split, "axis", 2);
    attr_int(split, "num_outputs", 3);
  } else {
    m.input("q", {dims[0], dims[1], kWidth});
    for (const char* name : {"k", "v"}) m.input(name, {dims[0], key_len, f.key_heads * kHead});
  }
  for (const char* name : {"q", "k", "v"}) {
    const std::string n = name;
    const int64_t heads = n == "q" ? kHeads : f.key_heads;
    m.node("Reshape", {n, shape_for(m, n, {heads, kHead}, f.dynamic, n)}, {n + "4"});
    attr_ints(m.node("Transpose", {n + "4"}, {n + "t"}), "perm", {0, 2, 1, 3});
  }
  std::vector<std::string> ins = {"qt", "kt", "vt"};
  if (!f.mask.empty()) {
    std::vector<int64_t> mask_dims = f.mask;
    const size_t r = mask_dims.size();
    if (mask_dims[r - 1] == -1) mask_dims[r - 1] = key_len;
    if (mask_dims[r - 2] == -1) mask_dims[r - 2] = dims[1];
    if (f.constant_mask) {
      int64_t n = 1;
      for (int64_t d : mask_dims) n *= d;
      std::vector<float> values(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) values[size_t(i)] = i % 3 == 1 ? -1e4f : 0.25f * float(i % 5);
      if (f.masked_row) std::fill(values.begin(), values.begin() + mask_dims.back(), -INFINITY);
      m.init("mask", mask_dims, values);
    } else {
      m.input("mask", mask_dims, f.bool_mask ? onnx::TensorProto::BOOL : onnx::TensorProto::FLOAT);
    }
    ins.push_back("mask");
  }
  onnx::NodeProto* at = m.node("Attention", ins, {"ctx"});
  if (f.causal) attr_int(at, "is_causal", 1);
  if (f.scale_attr) attr_float(at, "scale", 0.3f);
  if (f.softcap != 0.f) attr_float(at, "softcap", f.softcap);
  attr_ints(m.node("Transpose", {"ctx"}, {"ctx_t"}), "perm", {0, 2, 1, 3});
  // The merged shape from q's dims, as torch's export computes it (from the block's input): a
  // Shape reader of ctx_t would keep the Transpose alive, and the pattern then stays.
  m.node("Reshape", {"ctx_t", shape_for(m, f.shape_of_ctx ? "ctx_t" : "q", {kWidth}, f.dynamic, "merge")}, {"y"});
  m.output("y");
  return m;
}

const std::vector<std::string> kPasses = {"onnx_attention_fusion", "dead_node_elimination"};
const Hist kFused = {{"com.microsoft:MultiHeadAttention", 1}};
const Hist kFusedAfterSplit = {{"Split", 1}, {"com.microsoft:MultiHeadAttention", 1}};
const Hist kUnfused = {{"Attention", 1}, {"Reshape", 4}, {"Transpose", 4}};

TEST(OnnxAttentionFusion, ConstantShapes) {
  for (bool causal : {false, true})
    for (bool scale_attr : {false, true}) {
      OnnxAttentionForm f;
      f.causal = causal;
      f.scale_attr = scale_attr;
      SCOPED_TRACE("causal " + std::to_string(causal) + " scale_attr " + std::to_string(scale_attr));
      ir::Model after = check_rewrite(onnx_attention_model(f), kPasses, kFused, 1e-4, 1e-5);
      const ir::Node& n = after.graph.nodes[0];
      EXPECT_EQ(n.inputs, (std::vector<std::string>{"q", "k", "v"}));
      EXPECT_EQ(n.outputs, (std::vector<std::string>{"y"}));
      EXPECT_EQ(n.attribute("num_heads")->i, kHeads);
      EXPECT_FLOAT_EQ(n.attribute("scale")->f, scale_attr ? 0.3f : 0.5f);
      EXPECT_EQ(n.attribute("unidirectional") != nullptr, causal);
    }
}

// A constant float attn_mask is added to the scores, as MultiHeadAttention's attention_bias is:
// ranks 2 and 3 get leading dims of 1 through an Unsqueeze, rank 4 is read as it is.
TEST(OnnxAttentionFusion, FloatMaskBecomesTheAttentionBias) {
  const std::vector<std::vector<int64_t>> masks = {{-1, -1}, {kHeads, -1, -1}, {1, -1, -1}, {2, 1, -1, -1},
                                                   {1, kHeads, 1, -1}};
  for (const auto& mask : masks)
    for (bool causal : {false, true}) {
      OnnxAttentionForm f;
      f.mask = mask;
      f.causal = causal;
      SCOPED_TRACE("mask rank " + std::to_string(mask.size()) + " causal " + std::to_string(causal));
      Hist want = kFused;
      if (mask.size() < 4) want["Unsqueeze"] = 1;
      ir::Model after = check_rewrite(onnx_attention_model(f), kPasses, want, 1e-4, 1e-5);
      std::string bias = "mask";
      for (const ir::Node& n : after.graph.nodes)
        if (n.op_type == "Unsqueeze") bias = n.outputs[0];
      for (const ir::Node& n : after.graph.nodes) {
        if (n.op_type != "MultiHeadAttention") continue;
        ASSERT_EQ(n.inputs.size(), 6u);
        EXPECT_EQ(n.inputs[5], bias);
        EXPECT_TRUE(n.inputs[3].empty() && n.inputs[4].empty());
        EXPECT_EQ(n.attribute("unidirectional") != nullptr, causal);
      }
    }
}

TEST(OnnxAttentionFusion, CrossAttentionWithOtherKeyLength) {
  OnnxAttentionForm f;
  f.key_length = 6;
  check_rewrite(onnx_attention_model(f), kPasses, kFused, 1e-4, 1e-5);
}

// torch's export: q, k, v split from one projection, shapes computed, batch and sequence symbolic.
TEST(OnnxAttentionFusion, DynamoFormSplitWithComputedShapes) {
  OnnxAttentionForm f;
  f.split = true;
  f.dynamic = true;
  f.causal = true;
  check_rewrite(onnx_attention_model(f, {-1, -1}), kPasses, kFusedAfterSplit, 1e-4, 1e-5);
  check_rewrite(onnx_attention_model(f, {-1, -1}), {}, kFusedAfterSplit, 1e-4, 1e-5, 2);
}

TEST(OnnxAttentionFusion, FormsMultiHeadAttentionCannotTakeStay) {
  {
    OnnxAttentionForm f;  // fed at run time, the mask could mask a row whole: zeros from Attention, NaN from MHA
    f.mask = {-1, -1};
    f.constant_mask = false;
    SCOPED_TRACE("attn_mask input");
    check_rewrite(onnx_attention_model(f), kPasses, {{"Attention", 1}, {"Reshape", 4}, {"Transpose", 4}});
  }
  {
    OnnxAttentionForm f;
    f.mask = {-1, -1};
    f.masked_row = true;
    SCOPED_TRACE("constant attn_mask with a row all -inf");
    check_rewrite(onnx_attention_model(f), kPasses, {{"Attention", 1}, {"Reshape", 4}, {"Transpose", 4}});
  }
  {
    OnnxAttentionForm f;
    f.mask = {-1, -1};
    f.bool_mask = true;
    f.constant_mask = false;
    SCOPED_TRACE("boolean attn_mask");
    check_rewrite(onnx_attention_model(f), kPasses, {{"Attention", 1}, {"Reshape", 4}, {"Transpose", 4}});
  }
  {
    OnnxAttentionForm f;  // a mask row shorter than the keys would not broadcast as the bias does
    f.mask = {-1, 1};
    SCOPED_TRACE("attn_mask [S, 1]");
    check_rewrite(onnx_attention_model(f), kPasses, {{"Attention", 1}, {"Reshape", 4}, {"Transpose", 4}});
  }
  {
    OnnxAttentionForm f;
    f.softcap = 2.f;
    SCOPED_TRACE("softcap");
    check_rewrite(onnx_attention_model(f), kPasses, kUnfused);
  }
  {
    OnnxAttentionForm f;  // top-left causal alignment differs from MultiHeadAttention's for S != L
    f.causal = true;
    f.key_length = 6;
    SCOPED_TRACE("causal, other key length");
    check_rewrite(onnx_attention_model(f), kPasses, kUnfused);
  }
  {
    OnnxAttentionForm f;  // the transposed context read by a Shape node too
    f.dynamic = true;
    f.shape_of_ctx = true;
    SCOPED_TRACE("Shape(ctx_t)");
    check_rewrite(onnx_attention_model(f), {"onnx_attention_fusion"},
                  {{"Attention", 1}, {"Reshape", 4}, {"Transpose", 4}, {"Shape", 4}, {"Gather", 8}, {"Unsqueeze", 8},
                   {"Concat", 4}});
  }
  {
    OnnxAttentionForm f;  // grouped heads: one key/value head for two query heads
    f.key_heads = 1;
    SCOPED_TRACE("grouped heads");
    check_rewrite(onnx_attention_model(f), kPasses, kUnfused);
  }
}

}  // namespace
}  // namespace onyx::testing
