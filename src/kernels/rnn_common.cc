#include "kernels/rnn_common.h"

#include <cctype>

namespace onyx::rnn {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct ActivationInfo {
  const char* name;
  Activation::Kind kind;
  bool has_alpha, has_beta;
  float alpha, beta;  // defaults
};

constexpr ActivationInfo kActivations[] = {
    {"relu", Activation::Kind::kRelu, false, false, 0.f, 0.f},
    {"tanh", Activation::Kind::kTanh, false, false, 0.f, 0.f},
    {"sigmoid", Activation::Kind::kSigmoid, false, false, 0.f, 0.f},
    {"affine", Activation::Kind::kAffine, true, true, 1.f, 0.f},
    {"leakyrelu", Activation::Kind::kLeakyRelu, true, false, 0.01f, 0.f},
    {"thresholdedrelu", Activation::Kind::kThresholdedRelu, true, false, 1.f, 0.f},
    {"scaledtanh", Activation::Kind::kScaledTanh, true, true, 1.f, 1.f},
    {"hardsigmoid", Activation::Kind::kHardSigmoid, true, true, 0.2f, 0.5f},
    {"elu", Activation::Kind::kElu, true, false, 1.f, 0.f},
    {"softsign", Activation::Kind::kSoftsign, false, false, 0.f, 0.f},
    {"softplus", Activation::Kind::kSoftplus, false, false, 0.f, 0.f},
};

// Checks that `t` has the expected shape; `what` names the input in the message.
Status expect_shape(const Tensor& t, const Shape& expected, const char* what) {
  if (t.shape() != expected)
    return invalid_argument("input ", what, " has shape ", shape_to_string(t.shape()), ", expected ",
                            shape_to_string(expected));
  return Status::Ok();
}

}  // namespace

Status parse_attributes(const KernelInfo& info, const std::vector<std::string>& defaults, Attributes* out) {
  const std::string direction = info.attr_string("direction", "forward");
  if (direction == "forward") {
    out->forward = true;
  } else if (direction == "reverse") {
    out->forward = false;
  } else if (direction == "bidirectional") {
    out->forward = true;
    out->bidirectional = true;
  } else {
    return invalid_model("direction must be forward, reverse or bidirectional, got '", direction, "'");
  }
  out->num_directions = out->bidirectional ? 2 : 1;

  if (info.has_attr("hidden_size")) {
    out->hidden_size = info.attr_int("hidden_size", 0);
    if (out->hidden_size <= 0) return invalid_model("hidden_size must be positive, got ", out->hidden_size);
  }
  if (info.has_attr("clip")) {
    out->clip = info.attr_float("clip", 0.f);
    if (!(out->clip > 0.f)) return invalid_model("clip must be positive, got ", out->clip);
  }
  out->layout = info.attr_int("layout", 0);
  if (out->layout != 0 && out->layout != 1) return invalid_model("layout must be 0 or 1, got ", out->layout);

  const size_t per_direction = defaults.size();
  std::vector<std::string> names = info.attr_strings("activations");
  if (names.empty()) {
    for (int64_t d = 0; d < out->num_directions; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  } else if (names.size() == per_direction && out->bidirectional) {
    names.insert(names.end(), names.begin(), names.end());  // one set given for both directions
  } else if (names.size() != per_direction * size_t(out->num_directions)) {
    return invalid_model("activations has ", names.size(), " entries, expected ",
                         per_direction * size_t(out->num_directions));
  }
  const std::vector<float> alphas = info.attr_floats("activation_alpha");
  const std::vector<float> betas = info.attr_floats("activation_beta");
  size_t next_alpha = 0, next_beta = 0;
  out->activations.clear();
  for (const std::string& name : names) {
    const std::string key = lower(name);
    const ActivationInfo* found = nullptr;
    for (const ActivationInfo& a : kActivations)
      if (key == a.name) found = &a;
    if (!found) return invalid_model("unsupported activation function '", name, "'");
    Activation act;
    act.kind = found->kind;
    act.alpha = found->alpha;
    act.beta = found->beta;
    if (found->has_alpha && next_alpha < alphas.size()) act.alpha = alphas[next_alpha++];
    if (found->has_beta && next_beta < betas.size()) act.beta = betas[next_beta++];
    out->activations.push_back(act);
  }
  return Status::Ok();
}

Status check_shapes(const KernelContext& ctx, const Attributes& attrs, int64_t gates, bool lstm,
                    int64_t* seq, int64_t* batch, int64_t* input, int64_t* hidden) {
  const Tensor& x = ctx.input(0);
  const Tensor& w = ctx.input(1);
  const Tensor& r = ctx.input(2);
  if (!x.defined() || !w.defined() || !r.defined()) return invalid_argument("inputs X, W and R are required");
  if (x.rank() != 3) return invalid_argument("input X must have rank 3, got ", x.describe());
  if (w.dtype() != x.dtype() || r.dtype() != x.dtype())
    return invalid_argument("W and R must have the type of X (", data_type_name(x.dtype()), ")");
  if (r.rank() != 3) return invalid_argument("input R must have rank 3, got ", r.describe());
  const int64_t dirs = attrs.num_directions;
  *seq = attrs.layout == 0 ? x.dim(0) : x.dim(1);
  *batch = attrs.layout == 0 ? x.dim(1) : x.dim(0);
  *input = x.dim(2);
  *hidden = r.dim(2);
  const int64_t h = *hidden;
  if (h <= 0) return invalid_argument("hidden size must be positive, R has shape ", shape_to_string(r.shape()));
  if (attrs.hidden_size > 0 && attrs.hidden_size != h)
    return invalid_argument("hidden_size is ", attrs.hidden_size, " but R has shape ", shape_to_string(r.shape()));
  // The kernels keep seq*batch*gates*hidden values per direction: refuse what no tensor could hold.
  const int64_t work = h > (int64_t(1) << 40) ? -1 : shape_size({*seq, *batch, dirs, gates * h});
  if (work < 0 || work > (int64_t(1) << 40))
    return invalid_argument("X ", x.describe(), " with hidden size ", h, " is too large");
  ONYX_RETURN_IF_ERROR(expect_shape(w, {dirs, gates * h, *input}, "W"));
  ONYX_RETURN_IF_ERROR(expect_shape(r, {dirs, gates * h, h}, "R"));
  const Shape state = attrs.layout == 0 ? Shape{dirs, *batch, h} : Shape{*batch, dirs, h};
  const char* state_names[] = {"initial_h", "initial_c"};
  // The op's own inputs are checked wherever they stand; the ones after them (a gradient
  // kernel's dY, dY_h, dY_c) are the caller's, and nothing may come after those.
  const int own = lstm ? 8 : 6;
  if (ctx.num_inputs() > own + attrs.trailing_inputs)
    return invalid_argument("unexpected input ", own + attrs.trailing_inputs, " (", ctx.num_inputs(), " inputs)");
  for (int i = 3; i < std::min(ctx.num_inputs(), own); ++i) {
    if (!ctx.has_input(i)) continue;
    const Tensor& t = ctx.input(i);
    if (!t.defined()) return invalid_argument("input ", i, " must be a tensor");
    if (i == 4) {
      if (t.dtype() != DataType::kInt32 && t.dtype() != DataType::kInt64)
        return invalid_argument("sequence_lens must be int32, got ", data_type_name(t.dtype()));
      ONYX_RETURN_IF_ERROR(expect_shape(t, {*batch}, "sequence_lens"));
      continue;
    }
    if (t.dtype() != x.dtype()) return invalid_argument("input ", i, " must have the type of X");
    if (i == 3) {
      ONYX_RETURN_IF_ERROR(expect_shape(t, {dirs, 2 * gates * h}, "B"));
    } else if (i == 5 || (lstm && i == 6)) {
      ONYX_RETURN_IF_ERROR(expect_shape(t, state, state_names[i - 5]));
    } else if (lstm && i == 7) {
      ONYX_RETURN_IF_ERROR(expect_shape(t, {dirs, 3 * h}, "P"));
    } else {
      return invalid_argument("unexpected input ", i);
    }
  }
  return Status::Ok();
}

}  // namespace onyx::rnn
