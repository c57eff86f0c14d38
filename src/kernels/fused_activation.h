// The activation of the fused ops (FusedConv, NhwcFusedConv, FusedGemm-like ops): the
// `activation` string attribute ("Relu", "Clip", "LeakyRelu", "Sigmoid", "Tanh",
// "HardSigmoid"; empty or absent for none) with its `activation_params` floats (Clip: min,
// max; LeakyRelu: alpha; HardSigmoid: alpha, beta), as ORT's contrib ops define them.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/status.h"
#include "kernels/kernel.h"

namespace onyx {

struct FusedActivation {
  enum class Kind { kNone, kRelu, kClip, kLeakyRelu, kSigmoid, kTanh, kHardSigmoid };
  Kind kind = Kind::kNone;
  float alpha = 0.0f, beta = 0.0f;  // Clip: min, max; LeakyRelu: alpha; HardSigmoid: alpha, beta

  // The oneDNN eltwise algorithm for it (undef for none, and for HardSigmoid, which oneDNN
  // 2.6 lacks: apply() it afterwards).
  dnnl::algorithm onednn_algorithm() const {
    switch (kind) {
      case Kind::kRelu: case Kind::kLeakyRelu: return dnnl::algorithm::eltwise_relu;
      case Kind::kClip: return dnnl::algorithm::eltwise_clip;
      case Kind::kSigmoid: return dnnl::algorithm::eltwise_logistic;
      case Kind::kTanh: return dnnl::algorithm::eltwise_tanh;
      default: return dnnl::algorithm::undef;
    }
  }
  float onednn_alpha() const { return kind == Kind::kRelu ? 0.0f : alpha; }
  float onednn_beta() const { return beta; }
  bool needs_apply() const { return kind == Kind::kHardSigmoid; }
  // y[i] = activation(y[i]) for the activations oneDNN does not fuse.
  void apply(float* y, int64_t n) const {
    if (kind != Kind::kHardSigmoid) return;
    for (int64_t i = 0; i < n; ++i) y[i] = std::max(0.0f, std::min(1.0f, alpha * y[i] + beta));
  }
};

// Reads `activation` / `activation_params` (with `prefix` before both names: ops fusing several
// stages give each its own, "expand_activation"); INVALID_MODEL for an unknown activation or a
// wrong number of parameters.
inline Result<FusedActivation> parse_fused_activation(const KernelInfo& info, const std::string& prefix = "") {
  FusedActivation a;
  const std::string name = info.attr_string(prefix + "activation", "");
  const std::vector<float> params = info.attr_floats(prefix + "activation_params");
  auto want = [&](size_t n) -> Status {
    if (params.size() != n)
      return invalid_model("activation ", name, " takes ", n, " activation_params, got ", params.size());
    return Status::Ok();
  };
  if (name.empty()) return a;
  if (name == "Relu") {
    a.kind = FusedActivation::Kind::kRelu;
  } else if (name == "Sigmoid") {
    a.kind = FusedActivation::Kind::kSigmoid;
  } else if (name == "Tanh") {
    a.kind = FusedActivation::Kind::kTanh;
  } else if (name == "Clip") {
    ONYX_RETURN_IF_ERROR(want(2));
    a.kind = FusedActivation::Kind::kClip;
    a.alpha = std::min(params[0], params[1]);  // min > max: every element becomes max, as in Clip
    a.beta = params[1];
  } else if (name == "LeakyRelu") {
    ONYX_RETURN_IF_ERROR(want(1));
    a.kind = FusedActivation::Kind::kLeakyRelu;
    a.alpha = params[0];
  } else if (name == "HardSigmoid") {
    ONYX_RETURN_IF_ERROR(want(2));
    a.kind = FusedActivation::Kind::kHardSigmoid;
    a.alpha = params[0];
    a.beta = params[1];
  } else {
    return not_implemented("fused activation '", name, "'");
  }
  return a;
}

}  // namespace onyx
