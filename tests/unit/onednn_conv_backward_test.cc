// The oneDNN convolution backward passes (onednn_conv_backward_data, _weights) against a
// float64 loop written from the definition of convolution, on 1-D, 2-D and 3-D geometries
// with strides, dilations, uneven pads, groups and trailing input positions no window reaches
// (ConvTranspose's output_padding); and the ConvTranspose and ConvWeightGrad kernels, whose
// float32 inputs take the oneDNN path, against their float64 inputs, which take the GEMM
// path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/onednn_conv_backward_data.h"
#include "kernels/onednn_conv_backward_weights.h"
#include "kernels/spatial.h"
#include "model_builder.h"
#include "session/session.h"

namespace onyx {
namespace {

struct Case {
  std::string name;
  int64_t n, c, m, group;
  std::vector<int64_t> in, kernel, strides, dilations, pad_begin, pad_end;
};

WindowGeometry geometry(const Case& k) {
  WindowGeometry g;
  g.in = k.in;
  g.kernel = k.kernel;
  g.strides = k.strides;
  g.dilations = k.dilations;
  g.pad_begin = k.pad_begin;
  g.pad_end = k.pad_end;
  for (size_t d = 0; d < k.in.size(); ++d)
    g.out.push_back((k.in[d] + k.pad_begin[d] + k.pad_end[d] - ((k.kernel[d] - 1) * k.dilations[d] + 1)) /
                        k.strides[d] +
                    1);
  return g;
}

std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

// Calls visit(x_index, w_index, y_index) for every (input, tap, output) triple that the
// forward convolution multiplies together: y[n, m, o] += x[n, c, i] * w[m, c % cg, t].
template <typename Visit>
void for_each_tap(const Case& k, const WindowGeometry& g, Visit&& visit) {
  // Pad the geometry to 3 spatial dims (size 1, kernel 1, stride 1, no pads).
  auto pad3 = [](std::vector<int64_t> v, int64_t fill) {
    v.insert(v.begin(), 3 - v.size(), fill);
    return v;
  };
  const auto in = pad3(g.in, 1), ks = pad3(g.kernel, 1), s = pad3(g.strides, 1), dil = pad3(g.dilations, 1),
             pb = pad3(g.pad_begin, 0), out = pad3(g.out, 1);
  const int64_t cg = k.c / k.group, mg = k.m / k.group;
  const int64_t in_size = in[0] * in[1] * in[2], out_size = out[0] * out[1] * out[2], k_size = ks[0] * ks[1] * ks[2];
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t m = 0; m < k.m; ++m)
      for (int64_t cl = 0; cl < cg; ++cl) {
        const int64_t c = (m / mg) * cg + cl;
        for (int64_t o0 = 0; o0 < out[0]; ++o0)
          for (int64_t o1 = 0; o1 < out[1]; ++o1)
            for (int64_t o2 = 0; o2 < out[2]; ++o2)
              for (int64_t t0 = 0; t0 < ks[0]; ++t0)
                for (int64_t t1 = 0; t1 < ks[1]; ++t1)
                  for (int64_t t2 = 0; t2 < ks[2]; ++t2) {
                    const int64_t i0 = o0 * s[0] - pb[0] + t0 * dil[0], i1 = o1 * s[1] - pb[1] + t1 * dil[1],
                                  i2 = o2 * s[2] - pb[2] + t2 * dil[2];
                    if (i0 < 0 || i0 >= in[0] || i1 < 0 || i1 >= in[1] || i2 < 0 || i2 >= in[2]) continue;
                    visit(size_t((n * k.c + c) * in_size + (i0 * in[1] + i1) * in[2] + i2),
                          size_t((m * cg + cl) * k_size + (t0 * ks[1] + t1) * ks[2] + t2),
                          size_t((n * k.m + m) * out_size + (o0 * out[1] + o1) * out[2] + o2));
                  }
      }
}

// max |got - want| / max |want|
double normalised_error(const std::vector<float>& got, const std::vector<double>& want) {
  double err = 0, scale = 1e-30;
  for (size_t i = 0; i < want.size(); ++i) {
    err = std::max(err, std::abs(double(got[i]) - want[i]));
    scale = std::max(scale, std::abs(want[i]));
  }
  return err / scale;
}

std::vector<Case> cases() {
  return {
      {"2d_plain", 2, 8, 16, 1, {9, 9}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
      {"2d_stride2_resnet_like", 2, 16, 32, 1, {16, 16}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}},
      {"2d_1x1_stride2", 3, 16, 8, 1, {10, 10}, {1, 1}, {2, 2}, {1, 1}, {0, 0}, {0, 0}},
      {"2d_7x7_stride2_pad3", 1, 3, 16, 1, {20, 20}, {7, 7}, {2, 2}, {1, 1}, {3, 3}, {3, 3}},
      {"2d_uneven_pads_leftover", 2, 4, 6, 1, {11, 8}, {3, 2}, {3, 2}, {1, 1}, {2, 0}, {0, 1}},
      {"2d_dilated", 1, 6, 4, 1, {12, 13}, {3, 3}, {1, 2}, {2, 3}, {2, 1}, {1, 2}},
      {"2d_groups", 2, 8, 12, 4, {7, 9}, {3, 3}, {2, 1}, {1, 1}, {1, 1}, {1, 1}},
      {"2d_depthwise", 2, 16, 16, 16, {10, 10}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}},
      {"2d_depthwise_multiplier", 1, 4, 8, 4, {9, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {0, 0}},
      {"1d", 3, 5, 7, 1, {17}, {4}, {3}, {1}, {1}, {2}},
      {"1d_groups_dilated", 2, 6, 9, 3, {20}, {3}, {2}, {2}, {0}, {1}},
      {"3d", 2, 3, 4, 1, {5, 6, 7}, {3, 2, 3}, {1, 2, 2}, {1, 1, 1}, {1, 0, 1}, {1, 1, 0}},
      {"3d_groups_dilated", 1, 4, 6, 2, {6, 7, 6}, {2, 3, 2}, {2, 1, 1}, {2, 1, 2}, {0, 1, 1}, {1, 1, 0}},
  };
}

TEST(OnednnConvBackward, DataMatchesTheDefinition) {
  onednn::ConvBackwardData bwd;
  for (const Case& k : cases()) {
    SCOPED_TRACE(k.name);
    const WindowGeometry g = geometry(k);
    std::vector<int64_t> x_shape{k.n, k.c}, w_shape{k.m, k.c / k.group}, y_shape{k.n, k.m};
    x_shape.insert(x_shape.end(), k.in.begin(), k.in.end());
    w_shape.insert(w_shape.end(), k.kernel.begin(), k.kernel.end());
    y_shape.insert(y_shape.end(), g.out.begin(), g.out.end());
    ASSERT_TRUE(onednn::ConvBackwardData::supports(x_shape, w_shape, k.group, g));
    const auto dy = random_values(size_t(shape_size(y_shape)), 1);
    const auto w = random_values(size_t(shape_size(w_shape)), 2);
    std::vector<double> want(size_t(shape_size(x_shape)), 0.0);
    for_each_tap(k, g, [&](size_t xi, size_t wi, size_t yi) { want[xi] += double(dy[yi]) * double(w[wi]); });
    std::vector<float> got(want.size(), 1e30f);  // run() must write every element
    const Status s = bwd.run(x_shape, w_shape, k.group, g, dy.data(), w.data(), got.data());
    ASSERT_TRUE(s.ok()) << s.to_string();
    EXPECT_LT(normalised_error(got, want), 1e-5);
    // A second run takes the cached primitive.
    std::fill(got.begin(), got.end(), 1e30f);
    ASSERT_TRUE(bwd.run(x_shape, w_shape, k.group, g, dy.data(), w.data(), got.data()).ok());
    EXPECT_LT(normalised_error(got, want), 1e-5);
  }
}

TEST(OnednnConvBackward, WeightsAndBiasMatchTheDefinition) {
  onednn::ConvBackwardWeights bwd;
  for (const Case& k : cases()) {
    SCOPED_TRACE(k.name);
    const WindowGeometry g = geometry(k);
    std::vector<int64_t> x_shape{k.n, k.c}, w_shape{k.m, k.c / k.group}, y_shape{k.n, k.m};
    x_shape.insert(x_shape.end(), k.in.begin(), k.in.end());
    w_shape.insert(w_shape.end(), k.kernel.begin(), k.kernel.end());
    y_shape.insert(y_shape.end(), g.out.begin(), g.out.end());
    ASSERT_TRUE(onednn::ConvBackwardWeights::supports(x_shape, w_shape, k.group, g));
    const auto x = random_values(size_t(shape_size(x_shape)), 3);
    const auto dy = random_values(size_t(shape_size(y_shape)), 4);
    std::vector<double> want_w(size_t(shape_size(w_shape)), 0.0), want_b(size_t(k.m), 0.0);
    for_each_tap(k, g, [&](size_t xi, size_t wi, size_t yi) { want_w[wi] += double(dy[yi]) * double(x[xi]); });
    const int64_t plane = shape_size(g.out);
    for (int64_t i = 0; i < k.n * k.m * plane; ++i) want_b[size_t((i / plane) % k.m)] += dy[size_t(i)];
    std::vector<float> dw(want_w.size(), 1e30f), db(want_b.size(), 1e30f);
    Status s = bwd.run(x_shape, w_shape, k.group, g, x.data(), dy.data(), dw.data(), db.data());
    ASSERT_TRUE(s.ok()) << s.to_string();
    EXPECT_LT(normalised_error(dw, want_w), 1e-5);
    EXPECT_LT(normalised_error(db, want_b), 1e-5);
    std::fill(dw.begin(), dw.end(), 1e30f);
    s = bwd.run(x_shape, w_shape, k.group, g, x.data(), dy.data(), dw.data(), nullptr);
    ASSERT_TRUE(s.ok()) << s.to_string();
    EXPECT_LT(normalised_error(dw, want_w), 1e-5);
  }
}

TEST(OnednnConvBackward, RefusesWhatItCannotTake) {
  Case k{"", 1, 4, 4, 1, {8, 8}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}};
  WindowGeometry g = geometry(k);
  const std::vector<int64_t> x_shape{1, 4, 8, 8}, w_shape{4, 4, 3, 3};
  EXPECT_TRUE(onednn::ConvBackwardData::supports(x_shape, w_shape, 1, g));
  WindowGeometry negative_pad = g;
  negative_pad.pad_end = {-1, 1};
  EXPECT_FALSE(onednn::ConvBackwardData::supports(x_shape, w_shape, 1, negative_pad));
  WindowGeometry too_many_outputs = g;  // more outputs than the forward convolution has
  too_many_outputs.out[0] += 1;
  EXPECT_FALSE(onednn::ConvBackwardWeights::supports(x_shape, w_shape, 1, too_many_outputs));
  EXPECT_FALSE(onednn::ConvBackwardData::supports({0, 4, 8, 8}, w_shape, 1, g));  // empty batch
  EXPECT_FALSE(onednn::ConvBackwardData::supports(x_shape, {4, 2, 3, 3}, 1, g));  // w does not fit
  std::vector<float> dx(256), dy(64), w(144);
  EXPECT_FALSE(onednn::ConvBackwardData().run(x_shape, w_shape, 1, negative_pad, dy.data(), w.data(), dx.data()).ok());
}

// ---- the kernels: float32 (oneDNN where it takes the geometry) against float64 (GEMM) ----

void add_ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  if (v.empty()) return;
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

struct NodeCase {
  std::string name;
  std::vector<int64_t> a_shape, b_shape;  // the node's two inputs
  int64_t group;
  std::vector<std::pair<std::string, std::vector<int64_t>>> ints;
};

// Runs one node (op in `domain`) on inputs a, b in `elem` (FLOAT or DOUBLE), returning its
// output as float64.
std::vector<double> run_node(const std::string& domain, const std::string& op, const NodeCase& k, int elem,
                             const std::vector<float>& a, const std::vector<float>& b) {
  testing::ModelBuilder mb(17);
  if (!domain.empty()) {
    auto* imp = mb.model.add_opset_import();
    imp->set_domain(domain);
    imp->set_version(1);
  }
  std::vector<int64_t> unknown(k.a_shape.size(), -1);
  mb.input("a", k.a_shape, elem).input("b", k.b_shape, elem).output("y", unknown, elem);
  auto* n = mb.node(op, {"a", "b"}, {"y"});
  n->set_domain(domain);
  for (const auto& [name, v] : k.ints) add_ints(n, name, v);
  auto* gr = n->add_attribute();
  gr->set_name("group");
  gr->set_type(onnx::AttributeProto::INT);
  gr->set_i(k.group);
  const std::string bytes = mb.bytes();
  auto s = Session::load_bytes(bytes.data(), bytes.size());
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  if (!s.ok()) return {};
  const DataType dt = elem == onnx::TensorProto::FLOAT ? DataType::kFloat : DataType::kDouble;
  Tensor ta(dt, k.a_shape), tb(dt, k.b_shape);
  for (size_t i = 0; i < a.size(); ++i) {
    if (dt == DataType::kFloat) ta.data<float>()[i] = a[i];
    else ta.data<double>()[i] = a[i];
  }
  for (size_t i = 0; i < b.size(); ++i) {
    if (dt == DataType::kFloat) tb.data<float>()[i] = b[i];
    else tb.data<double>()[i] = b[i];
  }
  auto out = (*s)->run({{"a", Value(ta)}, {"b", Value(tb)}});
  EXPECT_TRUE(out.ok()) << out.status().to_string();
  if (!out.ok()) return {};
  const Tensor& y = (*out)[0].tensor();
  std::vector<double> r(size_t(y.numel()));
  for (size_t i = 0; i < r.size(); ++i) r[i] = dt == DataType::kFloat ? y.data<float>()[i] : y.data<double>()[i];
  return r;
}

void expect_float_matches_double(const std::string& domain, const std::string& op, const NodeCase& k) {
  SCOPED_TRACE(op + " " + k.name);
  const auto a = random_values(size_t(shape_size(k.a_shape)), 5);
  const auto b = random_values(size_t(shape_size(k.b_shape)), 6);
  const auto got = run_node(domain, op, k, onnx::TensorProto::FLOAT, a, b);
  const auto want = run_node(domain, op, k, onnx::TensorProto::DOUBLE, a, b);
  ASSERT_EQ(got.size(), want.size());
  ASSERT_FALSE(want.empty());
  std::vector<float> gotf(got.begin(), got.end());
  EXPECT_LT(normalised_error(gotf, want), 1e-5);
}

TEST(OnednnConvBackward, ConvTransposeFloat32MatchesItsGemmPath) {
  const std::vector<NodeCase> cases = {
      {"2d_stride2_output_padding", {2, 8, 5, 6}, {8, 4, 3, 3}, 1,
       {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"output_padding", {1, 0}}}},
      {"2d_groups_dilated", {1, 6, 7, 7}, {6, 2, 3, 3}, 3,
       {{"strides", {2, 1}}, {"dilations", {1, 2}}, {"pads", {0, 1, 1, 0}}, {"output_padding", {1, 0}}}},
      {"1d", {3, 4, 9}, {4, 5, 4}, 1, {{"strides", {3}}, {"pads", {1, 2}}, {"output_padding", {2}}}},
      {"3d_groups", {1, 4, 3, 4, 3}, {4, 3, 2, 3, 2}, 2, {{"strides", {2, 1, 2}}, {"pads", {0, 1, 0, 1, 0, 1}}}},
      // output_padding at or past the stride (dilation 2): not oneDNN's, the GEMM path's
      {"2d_output_padding_past_stride", {1, 3, 5, 5}, {3, 2, 3, 3}, 1,
       {{"dilations", {2, 2}}, {"output_padding", {1, 1}}}},
      // output_shape larger than the full output: negative end pads, the GEMM path's
      {"2d_output_shape", {1, 2, 4, 4}, {2, 3, 3, 3}, 1, {{"strides", {2, 2}}, {"output_shape", {11, 10}}}},
  };
  for (const auto& k : cases) expect_float_matches_double("", "ConvTranspose", k);
}

TEST(OnednnConvBackward, ConvWeightGradFloat32MatchesItsGemmPath) {
  const std::vector<NodeCase> cases = {
      {"2d_stride2", {2, 8, 9, 9}, {2, 16, 5, 5}, 1,
       {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}},
      {"2d_groups_dilated", {2, 6, 10, 9}, {2, 9, 6, 4}, 3,
       {{"kernel_shape", {3, 3}}, {"dilations", {2, 1}}, {"pads", {0, 1, 0, 0}}, {"strides", {1, 2}}}},
      {"1d", {3, 4, 17}, {3, 5, 5}, 1, {{"kernel_shape", {4}}, {"strides", {3}}, {"pads", {1, 0}}}},
      {"3d", {1, 2, 5, 6, 4}, {1, 4, 4, 3, 4}, 2, {{"kernel_shape", {2, 2, 1}}, {"strides", {1, 2, 1}}}},
      // weights 16x the activations or more: one GEMM over the batch (conv_batched_gemm.h)
      {"2d_weights_dominate_groups", {2, 32, 2, 2}, {2, 64, 2, 2}, 2, {{"kernel_shape", {3, 3}}, {"pads", {1, 1, 1, 1}}}},
      {"1d_weights_dominate", {1, 32, 2}, {1, 64, 2}, 1, {{"kernel_shape", {3}}, {"pads", {1, 1}}}},
      {"2d_weights_dominate_strided", {3, 64, 3, 3}, {3, 96, 2, 2}, 1,
       {{"kernel_shape", {3, 3}}, {"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}},
  };
  for (const auto& k : cases) expect_float_matches_double("ai.onyx.training", "ConvWeightGrad", k);
}

// Conv with its weights an input (training's forward): oneDNN with the weights reordered every
// run, or one GEMM over the batch where they far outnumber the activations.
TEST(OnednnConvBackward, ConvWithInputWeightsFloat32MatchesItsGemmPath) {
  const std::vector<NodeCase> cases = {
      {"2d_stride2", {2, 16, 9, 9}, {32, 16, 3, 3}, 1, {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}},
      {"2d_groups", {2, 8, 7, 6}, {12, 2, 3, 3}, 4, {{"pads", {1, 0, 1, 1}}, {"dilations", {1, 2}}}},
      {"2d_weights_dominate_groups", {2, 32, 2, 2}, {64, 16, 3, 3}, 2, {{"pads", {1, 1, 1, 1}}}},
      {"1d_weights_dominate", {1, 32, 2}, {64, 32, 3}, 1, {{"pads", {1, 1}}}},
      {"2d_weights_dominate_strided", {3, 64, 3, 3}, {96, 64, 3, 3}, 1, {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}},
  };
  for (const auto& k : cases) expect_float_matches_double("", "Conv", k);
}

}  // namespace
}  // namespace onyx
