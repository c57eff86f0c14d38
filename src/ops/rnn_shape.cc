#include "ops/rnn_shape.h"

namespace onyx::ops {

Status infer_recurrent(InferenceContext& ctx, int64_t gates) {
  const DataType elem = ctx.input_elem_type(0);
  const SymbolicShape x = ctx.input_shape(0), w = ctx.input_shape(1), r = ctx.input_shape(2);
  const int64_t layout = ctx.opset() >= 14 ? ctx.attr_int("layout", 0) : 0;
  Dim seq, batch, dirs, hidden;
  if (x.has_rank && x.dims.size() == 3) {
    seq = x.dims[layout == 0 ? 0 : 1];
    batch = x.dims[layout == 0 ? 1 : 0];
  }
  dirs.value = ctx.attr_string("direction", "forward") == "bidirectional" ? 2 : 1;
  if (ctx.has_attr("hidden_size")) {
    hidden.value = ctx.attr_int("hidden_size", 0);
  } else if (r.has_rank && r.dims.size() == 3) {
    hidden = r.dims[2];
  } else if (w.has_rank && w.dims.size() == 3 && w.dims[1].value && *w.dims[1].value % gates == 0) {
    hidden.value = *w.dims[1].value / gates;
  }
  SymbolicShape y, state;
  y.has_rank = state.has_rank = true;
  y.dims = layout == 0 ? std::vector<Dim>{seq, dirs, batch, hidden} : std::vector<Dim>{batch, seq, dirs, hidden};
  state.dims = layout == 0 ? std::vector<Dim>{dirs, batch, hidden} : std::vector<Dim>{batch, dirs, hidden};
  ctx.set_output(0, elem, std::move(y));
  for (int i = 1; i < ctx.num_outputs(); ++i) ctx.set_output(i, elem, state);  // Y_h, and LSTM's Y_c
  return Status::Ok();
}

Status infer_recurrent_gradient(InferenceContext& ctx, const std::vector<int>& sources) {
  for (int k = 0; k < ctx.num_outputs() && k < int(sources.size()); ++k) {
    const int from = sources[size_t(k)];
    ctx.set_output(k, ctx.input_elem_type(0), ctx.has_input(from) ? ctx.input_shape(from) : SymbolicShape{});
  }
  return Status::Ok();
}

}  // namespace onyx::ops
