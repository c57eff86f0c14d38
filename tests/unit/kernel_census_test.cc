// The kernel census: every kernel file registered itself (none dropped by the linker), and no
// two kernels claim the same (provider, domain, op) at overlapping opsets.
#include <gtest/gtest.h>

#include <set>

#include "kernels/kernel.h"

namespace onyx {
namespace {

TEST(KernelCensus, EveryOpOfTheBackendSuiteIsRegistered) {
  std::set<std::string> ops;
  for (const KernelDef& def : KernelRegistry::global().all()) ops.insert(def.domain + ":" + def.op);
  // 174 ops appear in the ONNX 1.12 backend suite; Gradient (training domain) is not run.
  EXPECT_GE(ops.size(), 170u);
  for (const char* op : {":Conv", ":Loop", ":If", ":Scan", ":Resize", ":LSTM", ":SequenceMap", ":StringNormalizer",
                         "ai.onnx.preview.training:Adam", ":Einsum", ":QLinearConv"})
    EXPECT_TRUE(ops.count(op)) << op << " has no kernel";
}

TEST(KernelCensus, NoOverlappingRegistrations) {
  const auto& defs = KernelRegistry::global().all();
  for (size_t i = 0; i < defs.size(); ++i)
    for (size_t j = i + 1; j < defs.size(); ++j) {
      const KernelDef &a = defs[i], &b = defs[j];
      if (a.provider == b.provider && a.domain == b.domain && a.op == b.op)
        EXPECT_TRUE(a.until_opset < b.since_opset || b.until_opset < a.since_opset)
            << a.op << " is registered twice for overlapping opsets";
    }
}

TEST(KernelCensus, DeviceKernelsAndAnyDeviceKernelsAreRegistered) {
  const KernelRegistry& r = KernelRegistry::global();
  // Relabelling kernels serve every provider, on its device.
  for (const char* op : {"Reshape", "Squeeze", "Unsqueeze", "Flatten", "Identity"})
    EXPECT_TRUE(r.find("SOME_DEVICE", "", op, 17) && r.find("SOME_DEVICE", "", op, 17)->any_device) << op;
  EXPECT_EQ(r.find("SOME_DEVICE", "", "Conv", 17), nullptr);  // a computing CPU kernel does not
#ifdef ONYX_WITH_CUDA
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "Relu", "Sigmoid", "Tanh", "Erf", "MatMul", "Gemm",
                         "Softmax", "LayerNormalization", "Transpose", "Cast", "Gather", "Where", "Concat", "Split", "Slice",
                         "Expand"}) {
    const KernelDef* def = r.find("CUDA", "", op, 17);
    ASSERT_TRUE(def) << op << " has no CUDA kernel";
    EXPECT_EQ(def->provider, "CUDA") << op;
    EXPECT_TRUE(def->refuses) << op << ": a CUDA kernel says which types it cannot take";
  }
  for (const char* op : {"Gelu", "FastGelu", "BiasGelu", "QuickGelu", "SkipLayerNormalization", "MultiHeadAttention"}) {
    const KernelDef* def = r.find("CUDA", "com.microsoft", op, 1);
    ASSERT_TRUE(def) << "com.microsoft:" << op << " has no CUDA kernel";
    EXPECT_EQ(def->provider, "CUDA") << op;
  }
  ASSERT_TRUE(r.find("CUDA", "", "Gelu", 20));
  // The convolutional models' ops, and the reductions and Resize.
  for (const char* op : {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "BatchNormalization", "Clip",
                         "Resize", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare",
                         "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"}) {
    const KernelDef* def = r.find("CUDA", "", op, 18);
    ASSERT_TRUE(def) << op << " has no CUDA kernel";
    EXPECT_EQ(def->provider, "CUDA") << op;
    EXPECT_TRUE(def->refuses) << op;
  }
#ifdef ONYX_WITH_CUDNN
  ASSERT_TRUE(r.find("CUDA", "", "Conv", 17));
  EXPECT_EQ(r.find("CUDA", "", "Conv", 17)->provider, "CUDA");
  ASSERT_TRUE(r.find("CUDA", "com.microsoft", "FusedConv", 1));
  EXPECT_EQ(r.find("CUDA", "com.microsoft", "FusedConv", 1)->provider, "CUDA");
#endif
  // Reductions read their axes, Clip its bounds and Resize its roi, scales and sizes on the host.
  EXPECT_EQ(r.find("CUDA", "", "ReduceSum", 18)->host_inputs, std::vector<int>{1});
  EXPECT_EQ(r.find("CUDA", "", "Clip", 18)->host_inputs, (std::vector<int>{1, 2}));
  EXPECT_EQ(r.find("CUDA", "", "Resize", 18)->host_inputs, (std::vector<int>{1, 2, 3}));
  // Slice and Expand read their bounds and shape on the host; Gather reads its indices on the
  // device (so ids bound on the GPU need no copy back, and a run with them can be recorded).
  EXPECT_TRUE(r.find("CUDA", "", "Gather", 17)->host_inputs.empty());
  // Shape and Size read only the dims of their input, wherever it is.
  EXPECT_EQ(r.find("CPU", "", "Shape", 17)->shape_only_inputs, std::vector<int>{0});
  EXPECT_EQ(r.find("CPU", "", "Size", 17)->shape_only_inputs, std::vector<int>{0});
  EXPECT_EQ(r.find("CUDA", "", "Slice", 17)->host_inputs, (std::vector<int>{1, 2, 3, 4}));
#endif
}

}  // namespace
}  // namespace onyx
