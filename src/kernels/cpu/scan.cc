// Scan: iterates 'body' over slices of the scan inputs, carrying state variables.
//   body(st_1..st_N, si_1..si_M) -> (st_1..st_N, so_1..so_K)
//
// Opset 9+: inputs (init_1..init_N, scan_1..scan_M), M = num_scan_inputs. Iteration t reads
// slice t (or L-1-t when reversed by scan_input_directions) of each scan input along its
// scan_input_axes entry; all scan inputs share the length L. Outputs: the final states, then
// each so_k stacked over the iterations along its scan_output_axes entry (prepended instead of
// appended when scan_output_directions says 1). Negative axes count from the back.
//
// Opset 8: inputs (sequence_lens?, init_1..init_N, scan_1..scan_M), all batched on axis 0, the
// scan axis is 1, and 'directions' reverses scan inputs. Batch b runs sequence_lens[b] (default
// L) iterations from init_i[b]; states are returned stacked as [B, ...] and scan outputs as
// [B, L, ...], zero-padded past each batch's length.
#include <algorithm>

#include "kernels/control_flow_common.h"
#include "kernels/kernel.h"
#include "session/graph_plan.h"

namespace onyx {
namespace {

// Checks an optional per-input attribute: `count` entries, each passing `valid`.
template <typename F>
Result<std::vector<int64_t>> per_input_attr(const KernelInfo& info, const char* name, int count, F&& valid) {
  std::vector<int64_t> v = info.attr_ints(name, std::vector<int64_t>(size_t(count), 0));
  if (int(v.size()) != count)
    return invalid_model("Scan: attribute '", name, "' has ", v.size(), " entries, expected ", count);
  for (int64_t x : v)
    if (!valid(x)) return invalid_model("Scan: attribute '", name, "' has the invalid value ", x);
  return v;
}

bool is_direction(int64_t d) { return d == 0 || d == 1; }
bool is_axis(int64_t a) { return a > -(int64_t(1) << 31) && a < (int64_t(1) << 31); }

// The body, checked against N states and M scan inputs; returns K, the number of scan outputs.
Result<int> check_body(const KernelInfo& info, const SubgraphPlan& body, int num_states, int num_scan_inputs) {
  if (num_states < 0 || num_scan_inputs < 1)
    return invalid_model("Scan: num_scan_inputs = ", num_scan_inputs, " does not fit the node's inputs");
  if (body.num_inputs() != num_states + num_scan_inputs)
    return invalid_model("Scan: the body takes ", body.num_inputs(), " inputs, expected ", num_states + num_scan_inputs);
  const int num_scan_outputs = body.num_outputs() - num_states;
  if (num_scan_outputs < 0)
    return invalid_model("Scan: the body returns ", body.num_outputs(), " outputs, fewer than its ", num_states, " states");
  if (info.num_outputs() > body.num_outputs())
    return invalid_model("Scan: the node has ", info.num_outputs(), " outputs, the body gives ", body.num_outputs());
  return num_scan_outputs;
}

// Runs the body once and splits its outputs into the new states and the scan-output elements.
Status run_step(KernelContext& ctx, const SubgraphPlan& body, std::vector<Value>& states,
                std::vector<Value> scan_elems, std::vector<Tensor>& outs) {
  std::vector<Value> inputs = states;
  for (Value& v : scan_elems) inputs.push_back(std::move(v));
  ONYX_ASSIGN_OR_RETURN(std::vector<Value> results, ctx.run_subgraph(body, std::move(inputs)));
  for (size_t i = 0; i < states.size(); ++i) states[i] = std::move(results[i]);
  outs.clear();
  for (size_t k = states.size(); k < results.size(); ++k) {
    if (!results[k].is_tensor())
      return invalid_argument("Scan: body output ", k, " must be a tensor, got ", results[k].describe());
    outs.push_back(std::move(results[k].tensor()));
  }
  return Status::Ok();
}

class ScanKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(body_, info.subgraph("body"));
    num_scan_inputs_ = int(info.attr_int("num_scan_inputs", 0));
    num_states_ = info.num_inputs() - num_scan_inputs_;
    ONYX_ASSIGN_OR_RETURN(num_scan_outputs_, check_body(info, *body_, num_states_, num_scan_inputs_));
    ONYX_ASSIGN_OR_RETURN(input_axes_, per_input_attr(info, "scan_input_axes", num_scan_inputs_, is_axis));
    ONYX_ASSIGN_OR_RETURN(input_dirs_, per_input_attr(info, "scan_input_directions", num_scan_inputs_, is_direction));
    ONYX_ASSIGN_OR_RETURN(output_axes_, per_input_attr(info, "scan_output_axes", num_scan_outputs_, is_axis));
    ONYX_ASSIGN_OR_RETURN(output_dirs_, per_input_attr(info, "scan_output_directions", num_scan_outputs_, is_direction));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    std::vector<Value> states;
    for (int i = 0; i < num_states_; ++i) states.push_back(ctx.input_value(i));
    std::vector<const Tensor*> scans;
    std::vector<int64_t> axes;
    int64_t length = -1;
    for (int j = 0; j < num_scan_inputs_; ++j) {
      const Value& v = ctx.input_value(num_states_ + j);
      if (!v.is_tensor() || v.tensor().rank() < 1)
        return invalid_argument("Scan: scan input ", j, " must be a tensor of rank >= 1, got ", v.describe());
      const Tensor& t = v.tensor();
      int64_t axis = input_axes_[size_t(j)];
      if (axis < -t.rank() || axis >= t.rank())
        return invalid_argument("Scan: scan_input_axes[", j, "] = ", axis, " is out of range for ", t.describe());
      if (axis < 0) axis += t.rank();
      if (length >= 0 && t.dim(axis) != length)
        return invalid_argument("Scan: scan inputs differ in length: ", t.dim(axis), " and ", length);
      length = t.dim(axis);
      scans.push_back(&t);
      axes.push_back(axis);
    }

    std::vector<std::vector<Tensor>> collected(static_cast<size_t>(num_scan_outputs_));
    std::vector<Tensor> outs;
    for (int64_t t = 0; t < length; ++t) {
      std::vector<Value> elems;
      for (int j = 0; j < num_scan_inputs_; ++j) {
        const int64_t index = input_dirs_[size_t(j)] ? length - 1 - t : t;
        ONYX_ASSIGN_OR_RETURN(Tensor e, select_axis(*scans[size_t(j)], axes[size_t(j)], index));
        elems.emplace_back(std::move(e));
      }
      Status st = run_step(ctx, *body_, states, std::move(elems), outs);
      if (!st.ok()) return std::move(st).with_context("in Scan iteration " + std::to_string(t));
      for (int k = 0; k < num_scan_outputs_; ++k) collected[size_t(k)].push_back(std::move(outs[size_t(k)]));
    }

    for (int i = 0; i < num_states_ && i < ctx.num_outputs(); ++i) ctx.set_output(i, std::move(states[size_t(i)]));
    for (int k = 0; k < num_scan_outputs_ && num_states_ + k < ctx.num_outputs(); ++k) {
      if (!ctx.output_requested(num_states_ + k)) continue;
      std::vector<Tensor>& parts = collected[size_t(k)];
      if (output_dirs_[size_t(k)]) std::reverse(parts.begin(), parts.end());
      const ir::TypeInfo& declared = body_->graph().outputs[size_t(num_states_ + k)].type;
      ONYX_ASSIGN_OR_RETURN(Tensor out, stack_scan_output(parts, output_axes_[size_t(k)], declared));
      ctx.set_output(num_states_ + k, Value(std::move(out)));
    }
    return Status::Ok();
  }

 private:
  std::shared_ptr<const SubgraphPlan> body_;
  int num_states_ = 0, num_scan_inputs_ = 0, num_scan_outputs_ = 0;
  std::vector<int64_t> input_axes_, input_dirs_, output_axes_, output_dirs_;
};

class Scan8Kernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(body_, info.subgraph("body"));
    num_scan_inputs_ = int(info.attr_int("num_scan_inputs", 0));
    num_states_ = info.num_inputs() - 1 - num_scan_inputs_;
    ONYX_ASSIGN_OR_RETURN(num_scan_outputs_, check_body(info, *body_, num_states_, num_scan_inputs_));
    ONYX_ASSIGN_OR_RETURN(dirs_, per_input_attr(info, "directions", num_scan_inputs_, is_direction));
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    // Shapes: scan inputs [B, L, ...], initial states [B, ...].
    int64_t batch = -1, length = -1;
    for (int j = 0; j < num_scan_inputs_; ++j) {
      const Value& v = ctx.input_value(1 + num_states_ + j);
      if (!v.is_tensor() || v.tensor().rank() < 2)
        return invalid_argument("Scan: scan input ", j, " must be a tensor of rank >= 2, got ", v.describe());
      const Tensor& t = v.tensor();
      if (batch >= 0 && (t.dim(0) != batch || t.dim(1) != length))
        return invalid_argument("Scan: scan inputs differ in batch or sequence length: ", t.describe());
      batch = t.dim(0);
      length = t.dim(1);
    }
    for (int i = 0; i < num_states_; ++i) {
      const Value& v = ctx.input_value(1 + i);
      if (!v.is_tensor() || v.tensor().rank() < 1 || v.tensor().dim(0) != batch)
        return invalid_argument("Scan: initial state ", i, " must be a tensor with batch size ", batch, ", got ",
                                v.describe());
    }
    if (batch > 0 && length > (int64_t(1) << 32) / batch)
      return invalid_argument("Scan: ", batch, " batches of ", length, " steps are too many");
    std::vector<int64_t> lens(size_t(batch), length);
    if (ctx.has_input(0)) {
      const Value& v = ctx.input_value(0);
      if (!v.is_tensor() || !is_integer_type(v.tensor().dtype()) || v.tensor().numel() != batch)
        return invalid_argument("Scan: sequence_lens must hold ", batch, " integers, got ", v.describe());
      lens = v.tensor().to_int64_vector();
      for (int64_t n : lens)
        if (n < 0 || n > length) return invalid_argument("Scan: sequence length ", n, " is out of range [0, ", length, "]");
    }

    // final_states[i][b]; pieces[k][b * length + t] (undefined where padded).
    std::vector<std::vector<Tensor>> final_states(static_cast<size_t>(num_states_));
    std::vector<std::vector<Tensor>> pieces(static_cast<size_t>(num_scan_outputs_),
                                            std::vector<Tensor>(size_t(batch * length)));
    std::vector<Tensor> outs;
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<Value> states;
      for (int i = 0; i < num_states_; ++i) {
        ONYX_ASSIGN_OR_RETURN(Tensor s, select_axis(ctx.input(1 + i), 0, b));
        states.emplace_back(std::move(s));
      }
      std::vector<Tensor> rows;
      for (int j = 0; j < num_scan_inputs_; ++j) {
        ONYX_ASSIGN_OR_RETURN(Tensor r, select_axis(ctx.input(1 + num_states_ + j), 0, b));
        rows.push_back(std::move(r));
      }
      const int64_t n = lens[size_t(b)];
      for (int64_t t = 0; t < n; ++t) {
        std::vector<Value> elems;
        for (int j = 0; j < num_scan_inputs_; ++j) {
          ONYX_ASSIGN_OR_RETURN(Tensor e, select_axis(rows[size_t(j)], 0, dirs_[size_t(j)] ? n - 1 - t : t));
          elems.emplace_back(std::move(e));
        }
        Status st = run_step(ctx, *body_, states, std::move(elems), outs);
        if (!st.ok()) return std::move(st).with_context("in Scan batch " + std::to_string(b) + " iteration " + std::to_string(t));
        for (int k = 0; k < num_scan_outputs_; ++k) pieces[size_t(k)][size_t(b * length + t)] = std::move(outs[size_t(k)]);
      }
      for (int i = 0; i < num_states_; ++i) {
        if (!states[size_t(i)].is_tensor())
          return invalid_argument("Scan: state ", i, " must be a tensor, got ", states[size_t(i)].describe());
        final_states[size_t(i)].push_back(states[size_t(i)].tensor());
      }
    }

    for (int i = 0; i < num_states_ && i < ctx.num_outputs(); ++i) {
      if (!ctx.output_requested(i)) continue;
      ONYX_ASSIGN_OR_RETURN(Tensor out, stack_scan_output(final_states[size_t(i)], 0, body_->graph().outputs[size_t(i)].type));
      ctx.set_output(i, Value(std::move(out)));
    }
    for (int k = 0; k < num_scan_outputs_ && num_states_ + k < ctx.num_outputs(); ++k) {
      if (!ctx.output_requested(num_states_ + k)) continue;
      ONYX_ASSIGN_OR_RETURN(Tensor out, assemble_padded(pieces[size_t(k)], batch, length,
                                                        body_->graph().outputs[size_t(num_states_ + k)].type));
      ctx.set_output(num_states_ + k, Value(std::move(out)));
    }
    return Status::Ok();
  }

 private:
  // Places pieces[b * length + t] at [b, t] of a zero-filled [batch, length, ...] tensor.
  static Result<Tensor> assemble_padded(const std::vector<Tensor>& pieces, int64_t batch, int64_t length,
                                        const ir::TypeInfo& declared) {
    const Tensor* model = nullptr;
    for (const Tensor& p : pieces)
      if (p.defined()) { model = &p; break; }
    const DeclaredTensor d = declared_tensor(declared);
    DataType dtype = model ? model->dtype() : (d.dtype == DataType::kUndefined ? DataType::kFloat : d.dtype);
    Shape elem = model ? model->shape() : d.shape;
    Shape shape = {batch, length};
    shape.insert(shape.end(), elem.begin(), elem.end());
    ONYX_ASSIGN_OR_RETURN(Tensor out, Tensor::create(dtype, shape));
    const int64_t elem_numel = shape_size(elem);
    for (size_t i = 0; i < pieces.size(); ++i) {
      const Tensor& p = pieces[i];
      if (!p.defined()) continue;
      if (p.dtype() != dtype || p.shape() != elem)
        return invalid_argument("Scan: scan output elements differ: ", p.describe(), " and ", model->describe());
      copy_elements(p, 0, out, int64_t(i) * elem_numel, elem_numel);
    }
    return out;
  }

  std::shared_ptr<const SubgraphPlan> body_;
  int num_states_ = 0, num_scan_inputs_ = 0, num_scan_outputs_ = 0;
  std::vector<int64_t> dirs_;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Scan", 8, 8, Scan8Kernel);
ONYX_REGISTER_KERNEL("", "Scan", 9, kLatestOpset, ScanKernel);

}  // namespace onyx
