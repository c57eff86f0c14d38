// The CUDA kernels of the convolutional models (ResNet-50, MobileNetV2) and the other vision
// and reduction ops: Conv and FusedConv through cuDNN, the pools, BatchNormalization, Clip,
// the Reduce* family and Resize. Each model runs on the CPU and, where a device is usable, on
// CUDA with every node placed there, and the outputs must agree (cuda_test_support.h).
#include <gtest/gtest.h>

#include "cuda_test_support.h"
#ifdef ONYX_WITH_CUDNN
#include <cstdlib>

#include "kernels/cuda/cudnn_conv_plan.h"
#endif

namespace onyx {
namespace {

#ifdef ONYX_WITH_CUDA

using namespace cuda_test;

onnx::NodeProto* with_string(onnx::NodeProto* n, const char* name, const std::string& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
  return n;
}

// Strides, dilations and groups; pads that differ at the two ends (explicit, and SAME_UPPER
// with an even kernel), which the kernel applies by padding X first; 1-D and 3-D.
TEST(CudaVisionKernels, ConvolutionsMatchTheCpu) {
  {
    SCOPED_TRACE("2-D, groups, stride, dilation, bias");
    ModelBuilder b;
    b.input("x", {2, 4, 9, 8}).output("y", {-1, -1, -1, -1});
    b.initializer("w", {6, 2, 3, 3}, random_values(6 * 2 * 9, 31));
    b.initializer("b", {6}, random_values(6, 32));
    auto* c = b.node("Conv", {"x", "w", "b"}, {"y"});
    int_attribute(c, "group", 2);
    ints_attribute(c, "strides", {2, 1});
    ints_attribute(c, "dilations", {1, 2});
    ints_attribute(c, "pads", {1, 2, 1, 2});
    expect_cuda_matches_cpu(b, {{"x", {2, 4, 9, 8}}}, 1e-5);
  }
  {
    SCOPED_TRACE("asymmetric pads");
    ModelBuilder b;
    b.input("x", {1, 3, 7, 6}).input("w", {5, 3, 2, 3}).output("y", {-1, -1, -1, -1});
    ints_attribute(b.node("Conv", {"x", "w"}, {"y"}), "pads", {0, 2, 1, 0});
    expect_cuda_matches_cpu(b, {{"x", {1, 3, 7, 6}}, {"w", {5, 3, 2, 3}}}, 1e-5);
  }
  {
    SCOPED_TRACE("SAME_UPPER, even kernel, stride 2");
    ModelBuilder b;
    b.input("x", {1, 2, 7, 7}).input("w", {3, 2, 4, 4}).output("y", {-1, -1, -1, -1});
    auto* c = with_string(b.node("Conv", {"x", "w"}, {"y"}), "auto_pad", "SAME_UPPER");
    ints_attribute(c, "strides", {2, 2});
    expect_cuda_matches_cpu(b, {{"x", {1, 2, 7, 7}}, {"w", {3, 2, 4, 4}}}, 1e-5);
  }
  {
    SCOPED_TRACE("1-D and 3-D");
    ModelBuilder b;
    b.input("s", {2, 3, 11}).input("v", {1, 2, 4, 5, 6}).output("y1", {-1, -1, -1}).output("y3", {-1, -1, -1, -1, -1});
    b.initializer("w1", {4, 3, 3}, random_values(36, 33));
    b.initializer("w3", {3, 2, 2, 3, 2}, random_values(72, 34));
    ints_attribute(b.node("Conv", {"s", "w1"}, {"y1"}), "pads", {1, 1});
    ints_attribute(b.node("Conv", {"v", "w3"}, {"y3"}), "strides", {1, 2, 1});
    expect_cuda_matches_cpu(b, {{"s", {2, 3, 11}}, {"v", {1, 2, 4, 5, 6}}}, 1e-5);
  }
}

#ifdef ONYX_WITH_CUDNN
// Convolutions run through cuDNN graph plans made once per shape (cudnn_conv_plan.h), not the
// legacy call that rebuilds its engines on every call: one Conv node of one shape, one plan.
TEST(CudaVisionKernels, AConvolutionRunsThroughOnePlannedCudnnGraph) {
  const char* legacy = std::getenv("ONYX_CUDNN_LEGACY");
  if (legacy && *legacy && std::string(legacy) != "0") GTEST_SKIP() << "ONYX_CUDNN_LEGACY is set";
  ModelBuilder b;
  b.input("x", {2, 8, 10, 10}).output("y", {-1, -1, -1, -1});
  b.initializer("w", {16, 8, 3, 3}, random_values(16 * 8 * 9, 51));
  ints_attribute(b.node("Conv", {"x", "w"}, {"y"}), "pads", {1, 1, 1, 1});
  const int64_t before = CudnnConvPlan::plans_made();
  expect_cuda_matches_cpu(b, {{"x", {2, 8, 10, 10}}}, 1e-5);
  if (!have_device()) GTEST_SKIP() << "no CUDA device (the CPU half ran)";
  EXPECT_EQ(CudnnConvPlan::plans_made() - before, 1);
}
#endif

// FusedConv (com.microsoft) with each activation, and with the residual Z.
TEST(CudaVisionKernels, FusedConvolutionsMatchTheCpu) {
  const std::vector<std::pair<std::string, std::vector<float>>> activations = {
      {"Relu", {}}, {"Clip", {0.f, 6.f}}, {"LeakyRelu", {0.1f}}, {"Sigmoid", {}}, {"Tanh", {}}, {"HardSigmoid", {0.2f, 0.5f}}};
  for (const auto& [name, params] : activations) {
    for (bool residual : {false, true}) {
      SCOPED_TRACE(name + (residual ? " with Z" : ""));
      ModelBuilder b;
      auto* ms = b.model.add_opset_import();
      ms->set_domain("com.microsoft");
      ms->set_version(1);
      b.input("x", {2, 3, 6, 6}).output("y", {2, 4, 6, 6});
      b.initializer("w", {4, 3, 3, 3}, random_values(108, 41));
      b.initializer("b", {4}, random_values(4, 42));
      std::vector<std::string> ins = {"x", "w", "b"};
      if (residual) {
        b.input("z", {2, 4, 6, 6});
        ins.push_back("z");
      }
      auto* c = b.node("FusedConv", ins, {"y"});
      c->set_domain("com.microsoft");
      ints_attribute(c, "pads", {1, 1, 1, 1});
      with_string(c, "activation", name);
      if (!params.empty()) {
        auto* a = c->add_attribute();
        a->set_name("activation_params");
        a->set_type(onnx::AttributeProto::FLOATS);
        for (float p : params) a->add_floats(p);
      }
      std::vector<std::pair<std::string, Shape>> inputs = {{"x", {2, 3, 6, 6}}};
      if (residual) inputs.push_back({"z", {2, 4, 6, 6}});
      expect_cuda_matches_cpu(b, inputs, 1e-5);
    }
  }
}

// MaxPool with ceil_mode, pads and dilations; AveragePool with and without the padding in its
// divisor, in 2-D and 1-D; the global pools.
TEST(CudaVisionKernels, PoolsMatchTheCpu) {
  ModelBuilder b(19);
  b.input("x", {2, 3, 9, 10}).input("s", {2, 3, 12});
  for (const char* y : {"m", "a0", "a1", "a2", "g", "h"}) b.output(y, {-1, -1, -1, -1});
  b.output("a3", {-1, -1, -1});
  auto* m = b.node("MaxPool", {"x"}, {"m"});
  ints_attribute(m, "kernel_shape", {3, 3});
  ints_attribute(m, "strides", {2, 2});
  ints_attribute(m, "pads", {1, 0, 1, 1});
  ints_attribute(m, "dilations", {1, 2});
  int_attribute(m, "ceil_mode", 1);
  for (int include : {0, 1}) {
    auto* a = b.node("AveragePool", {"x"}, {include ? "a1" : "a0"});
    ints_attribute(a, "kernel_shape", {3, 2});
    ints_attribute(a, "strides", {2, 2});
    ints_attribute(a, "pads", {1, 1, 2, 0});
    int_attribute(a, "count_include_pad", include);
    int_attribute(a, "ceil_mode", 1);
  }
  auto* same = with_string(b.node("AveragePool", {"x"}, {"a2"}), "auto_pad", "SAME_LOWER");
  ints_attribute(same, "kernel_shape", {2, 4});
  auto* one_d = b.node("AveragePool", {"s"}, {"a3"});
  ints_attribute(one_d, "kernel_shape", {4});
  ints_attribute(one_d, "strides", {3});
  b.node("GlobalAveragePool", {"x"}, {"g"});
  b.node("GlobalMaxPool", {"x"}, {"h"});
  expect_cuda_matches_cpu(b, {{"x", {2, 3, 9, 10}}, {"s", {2, 3, 12}}}, 1e-5);
}

// BatchNormalization (inference) and Clip with bounds as inputs, then the opset-6 Clip.
TEST(CudaVisionKernels, BatchNormalizationAndClipMatchTheCpu) {
  ModelBuilder b;
  b.input("x", {2, 4, 3, 5}).output("y", {2, 4, 3, 5});
  b.initializer("scale", {4}, random_values(4, 51));
  b.initializer("bias", {4}, random_values(4, 52));
  b.initializer("mean", {4}, random_values(4, 53));
  b.initializer("var", {4}, {0.5f, 1.f, 2.f, 0.25f});
  b.initializer("lo", {}, {-0.5f});
  b.initializer("hi", {}, {0.75f});
  float_attribute(b.node("BatchNormalization", {"x", "scale", "bias", "mean", "var"}, {"n"}), "epsilon", 1e-3f);
  b.node("Clip", {"n", "lo", "hi"}, {"c"});
  b.node("Clip", {"c", "", "lo"}, {"y"});  // only a maximum
  expect_cuda_matches_cpu(b, {{"x", {2, 4, 3, 5}}}, 1e-5);
}

// Every Reduce* op over inner, outer and split axes, with and without keepdims; ReduceSum's
// axes as an input (opset 13+), an empty axes list with noop_with_empty_axes, and a long
// reduction that takes a block per output.
TEST(CudaVisionKernels, ReductionsMatchTheCpu) {
  ModelBuilder b;
  b.input("x", {3, 4, 5, 6}).input("long", {2, 5000});
  const std::vector<std::string> ops = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                                        "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"};
  const std::vector<std::vector<int64_t>> axes = {{3}, {0}, {1, 3}, {}};
  int64_initializer(b, "axes_13", {2}, {1, 3});
  b.node("Exp", {"x"}, {"positive"});  // the log reductions take positive inputs
  int k = 0;
  for (const std::string& op : ops) {
    for (size_t a = 0; a < axes.size(); ++a) {
      const std::string out = op + std::to_string(a);
      b.output(out, {-1});
      const std::string in = op == "ReduceLogSum" ? "positive" : "x";
      onnx::NodeProto* n = nullptr;
      if (op == "ReduceSum") {
        const std::string name = "axes_sum" + std::to_string(a);
        int64_initializer(b, name, {int64_t(axes[a].size())}, axes[a]);
        n = b.node(op, {in, name}, {out});
      } else {
        n = b.node(op, {in}, {out});
        if (!axes[a].empty()) ints_attribute(n, "axes", axes[a]);
      }
      int_attribute(n, "keepdims", (k++) % 2);
    }
  }
  b.output("noop", {-1}).output("long_sum", {-1}).output("long_max", {-1});
  auto* noop = b.node("ReduceSum", {"x", ""}, {"noop"});
  int_attribute(noop, "noop_with_empty_axes", 1);
  int64_initializer(b, "axis1", {1}, {1});
  b.node("ReduceSum", {"long", "axis1"}, {"long_sum"});
  ints_attribute(b.node("ReduceMax", {"long"}, {"long_max"}), "axes", {1});
  expect_cuda_matches_cpu(b, {{"x", {3, 4, 5, 6}}, {"long", {2, 5000}}}, 1e-4);
}

// Resize: linear by scales (half_pixel), nearest to sizes (asymmetric, floor), cubic
// (align_corners), tf_crop_and_resize with a roi that reaches outside (extrapolation).
TEST(CudaVisionKernels, ResizeMatchesTheCpu) {
  ModelBuilder b(13);
  b.input("x", {1, 2, 5, 6});
  for (const char* y : {"lin", "near", "cub", "crop"}) b.output(y, {-1, -1, -1, -1});
  b.initializer("no_roi", {0}, {});
  b.initializer("scales", {4}, {1.f, 1.f, 2.f, 1.5f});
  b.initializer("down", {4}, {1.f, 1.f, 0.6f, 0.5f});
  int64_initializer(b, "sizes", {4}, {1, 2, 8, 4});
  b.initializer("roi", {8}, {0.f, 0.f, -0.2f, 0.1f, 1.f, 1.f, 0.9f, 1.3f});
  with_string(b.node("Resize", {"x", "no_roi", "scales"}, {"lin"}), "mode", "linear");
  auto* near = with_string(b.node("Resize", {"x", "no_roi", "", "sizes"}, {"near"}), "coordinate_transformation_mode",
                           "asymmetric");
  with_string(near, "nearest_mode", "floor");
  auto* cub = with_string(b.node("Resize", {"x", "no_roi", "down"}, {"cub"}), "mode", "cubic");
  with_string(cub, "coordinate_transformation_mode", "align_corners");
  auto* crop = with_string(b.node("Resize", {"x", "roi", "", "sizes"}, {"crop"}), "mode", "linear");
  with_string(crop, "coordinate_transformation_mode", "tf_crop_and_resize");
  float_attribute(crop, "extrapolation_value", -7.f);
  expect_cuda_matches_cpu(b, {{"x", {1, 2, 5, 6}}}, 1e-5);
}

// A small ResNet block and a MobileNetV2 block at optimisation level 2, as the benchmark
// models reach the provider: Conv + BatchNormalization + Relu / Clip fused into FusedConv,
// the residual Add into FusedConv's Z, then MaxPool, GlobalAveragePool, Flatten and Gemm.
TEST(CudaVisionKernels, FusedResNetAndMobileNetBlocksRunWhollyOnTheGpu) {
  ModelBuilder b;
  b.input("x", {2, 3, 16, 16}).output("y", {2, 10});
  auto conv_bn = [&](const std::string& in, const std::string& out, int64_t c_in, int64_t c_out, int64_t k,
                     int64_t group, uint32_t seed) {
    b.initializer(out + "_w", {c_out, c_in / group, k, k}, random_values(size_t(c_out * c_in / group * k * k), seed));
    auto* c = b.node("Conv", {in, out + "_w"}, {out + "_c"});
    ints_attribute(c, "pads", {k / 2, k / 2, k / 2, k / 2});
    int_attribute(c, "group", group);
    b.initializer(out + "_s", {c_out}, random_values(size_t(c_out), seed + 1));
    b.initializer(out + "_b", {c_out}, random_values(size_t(c_out), seed + 2));
    b.initializer(out + "_m", {c_out}, random_values(size_t(c_out), seed + 3));
    std::vector<float> var = random_values(size_t(c_out), seed + 4);
    for (float& v : var) v = std::abs(v) + 0.5f;
    b.initializer(out + "_v", {c_out}, var);
    b.node("BatchNormalization", {out + "_c", out + "_s", out + "_b", out + "_m", out + "_v"}, {out});
  };
  conv_bn("x", "stem", 3, 8, 3, 1, 100);
  b.node("Relu", {"stem"}, {"stem_r"});
  auto* pool = b.node("MaxPool", {"stem_r"}, {"p"});
  ints_attribute(pool, "kernel_shape", {3, 3});
  ints_attribute(pool, "strides", {2, 2});
  ints_attribute(pool, "pads", {1, 1, 1, 1});
  conv_bn("p", "r1", 8, 8, 3, 1, 110);
  b.node("Relu", {"r1"}, {"r1_r"});
  conv_bn("r1_r", "r2", 8, 8, 3, 1, 120);
  b.node("Add", {"r2", "p"}, {"sum"});
  b.node("Relu", {"sum"}, {"res"});
  conv_bn("res", "dw", 8, 8, 3, 8, 130);  // depthwise, as MobileNetV2
  b.initializer("zero", {}, {0.f});
  b.initializer("six", {}, {6.f});
  b.node("Clip", {"dw", "zero", "six"}, {"dw_r"});
  conv_bn("dw_r", "pw", 8, 16, 1, 1, 140);
  b.node("GlobalAveragePool", {"pw"}, {"g"});
  b.node("Flatten", {"g"}, {"f"});
  b.initializer("fc_w", {10, 16}, random_values(160, 150));
  b.initializer("fc_b", {10}, random_values(10, 151));
  int_attribute(b.node("Gemm", {"f", "fc_w", "fc_b"}, {"y"}), "transB", 1);
  expect_cuda_matches_cpu(b, {{"x", {2, 3, 16, 16}}}, 1e-4, /*optimization_level=*/2);
}

#endif  // ONYX_WITH_CUDA

}  // namespace
}  // namespace onyx
