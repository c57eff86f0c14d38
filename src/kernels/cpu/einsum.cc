// Einsum: numpy.einsum semantics. Terms use letters and at most one "..." each; repeated
// letters within a term take diagonals; dims of size 1 broadcast; without "->" the output is
// the broadcast "..." dims followed by the letters used exactly once, in ASCII order. A
// letter missing from an explicit output is summed over; so are "..." dims the output omits.
// Evaluation: per operand take diagonals and sum out private letters, then contract operands
// left to right with batched GEMMs. Integers wrap around like two's-complement hardware.
#include <algorithm>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/dispatch.h"
#include "kernels/gemm.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

constexpr int kEllipsisLabel = 128;  // "..." dims get labels 128, 129, ... (right-aligned)

struct Term {
  std::vector<int> letters;  // letters, with -1 where "..." stands
  bool has_ellipsis = false;
};

Result<Term> parse_term(const std::string& s) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.') {
      if (t.has_ellipsis || s.compare(i, 3, "...") != 0) return invalid_model("bad ellipsis in einsum term '", s, "'");
      t.has_ellipsis = true;
      t.letters.push_back(-1);
      i += 2;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      t.letters.push_back(c);
    } else {
      return invalid_model("bad character '", c, "' in einsum equation");
    }
  }
  return t;
}

// One operand during evaluation: a contiguous tensor whose dims carry labels.
template <typename C>
struct Operand {
  std::vector<int> labels;
  Shape dims;
  std::vector<C> data;
};

// Gathers src (read with `strides`) into a contiguous tensor of shape `dims`.
template <typename C>
std::vector<C> gather(const C* src, const Shape& dims, const std::vector<int64_t>& strides) {
  const int64_t n = shape_size(dims);
  std::vector<C> out(size_t(std::max<int64_t>(n, 0)));
  std::vector<int64_t> idx(dims.size(), 0);
  int64_t off = 0;
  for (int64_t i = 0; i < n; ++i) {
    out[size_t(i)] = src[off];
    for (size_t d = dims.size(); d-- > 0;) {
      if (++idx[d] < dims[d]) {
        off += strides[d];
        break;
      }
      off -= strides[d] * (dims[d] - 1);
      idx[d] = 0;
    }
  }
  return out;
}

// Reorders op's (distinct) labels to `order`, a permutation of them.
template <typename C>
void rearrange(Operand<C>& op, const std::vector<int>& order) {
  if (order == op.labels) return;
  const std::vector<int64_t> st = shape_strides(op.dims);
  Shape dims;
  std::vector<int64_t> strides;
  for (int l : order) {
    const size_t at = size_t(std::find(op.labels.begin(), op.labels.end(), l) - op.labels.begin());
    dims.push_back(op.dims[at]);
    strides.push_back(st[at]);
  }
  op.data = gather(op.data.data(), dims, strides);
  op.labels = order;
  op.dims = dims;
}

// Sums op over every label for which keep(label) is false.
template <typename C, typename Keep>
void sum_out(Operand<C>& op, Keep&& keep) {
  std::vector<int> kept, dropped;
  for (int l : op.labels) (keep(l) ? kept : dropped).push_back(l);
  if (dropped.empty()) return;
  std::vector<int> order = kept;
  order.insert(order.end(), dropped.begin(), dropped.end());
  rearrange(op, order);
  const int64_t block = shape_size(Shape(op.dims.begin() + int64_t(kept.size()), op.dims.end()));
  Shape dims(op.dims.begin(), op.dims.begin() + int64_t(kept.size()));
  std::vector<C> out(size_t(shape_size(dims)), C(0));
  for (size_t i = 0; i < out.size(); ++i)
    for (int64_t j = 0; j < block; ++j) out[i] += op.data[i * size_t(block) + size_t(j)];
  op = Operand<C>{kept, dims, std::move(out)};
}

// Contracts a with b; labels in `needed` survive, other shared labels are summed over.
template <typename C>
Operand<C> contract(Operand<C> a, Operand<C> b, const std::vector<bool>& needed) {
  auto in = [](const Operand<C>& op, int l) {
    return std::find(op.labels.begin(), op.labels.end(), l) != op.labels.end();
  };
  sum_out(a, [&](int l) { return needed[size_t(l)] || in(b, l); });
  sum_out(b, [&](int l) { return needed[size_t(l)] || in(a, l); });
  std::vector<int> batch, summed, a_only, b_only;
  for (int l : a.labels) (in(b, l) ? (needed[size_t(l)] ? batch : summed) : a_only).push_back(l);
  for (int l : b.labels)
    if (!in(a, l)) b_only.push_back(l);
  std::vector<int> a_order = batch, b_order = batch;
  a_order.insert(a_order.end(), a_only.begin(), a_only.end());
  a_order.insert(a_order.end(), summed.begin(), summed.end());
  b_order.insert(b_order.end(), summed.begin(), summed.end());
  b_order.insert(b_order.end(), b_only.begin(), b_only.end());
  rearrange(a, a_order);
  rearrange(b, b_order);
  auto size_of = [](const Operand<C>& op, size_t from, size_t count) {
    return shape_size(Shape(op.dims.begin() + int64_t(from), op.dims.begin() + int64_t(from + count)));
  };
  const int64_t nb = size_of(a, 0, batch.size()), m = size_of(a, batch.size(), a_only.size());
  const int64_t k = size_of(a, batch.size() + a_only.size(), summed.size());
  const int64_t n = size_of(b, batch.size() + summed.size(), b_only.size());
  Operand<C> r;
  r.labels = batch;
  r.labels.insert(r.labels.end(), a_only.begin(), a_only.end());
  r.labels.insert(r.labels.end(), b_only.begin(), b_only.end());
  r.dims.assign(a.dims.begin(), a.dims.begin() + int64_t(batch.size() + a_only.size()));
  r.dims.insert(r.dims.end(), b.dims.end() - int64_t(b_only.size()), b.dims.end());
  r.data.assign(size_t(nb * m * n), C(0));
  for (int64_t i = 0; i < nb; ++i)
    gemm<C>(false, false, m, n, k, C(1), a.data.data() + i * m * k, k, b.data.data() + i * k * n, n, C(0),
            r.data.data() + i * m * n, n);
  return r;
}

class EinsumKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    std::string eq;
    for (char c : info.attr_string("equation", ""))
      if (c != ' ') eq += c;
    const size_t arrow = eq.find("->");
    explicit_output_ = arrow != std::string::npos;
    const std::string lhs = eq.substr(0, arrow);
    for (size_t start = 0;;) {
      const size_t comma = lhs.find(',', start);
      ONYX_ASSIGN_OR_RETURN(Term t, parse_term(lhs.substr(start, comma == std::string::npos ? comma : comma - start)));
      inputs_.push_back(t);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (explicit_output_) {
      ONYX_ASSIGN_OR_RETURN(output_, parse_term(eq.substr(arrow + 2)));
      for (size_t i = 0; i < output_.letters.size(); ++i)
        for (size_t j = 0; j < i; ++j)
          if (output_.letters[i] == output_.letters[j]) return invalid_model("einsum output repeats a letter");
    }
    if (inputs_.size() != size_t(info.num_inputs()))
      return invalid_model("einsum equation has ", inputs_.size(), " terms for ", info.num_inputs(), " inputs");
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const DataType dtype = ctx.input(0).dtype();
    for (int i = 0; i < ctx.num_inputs(); ++i)
      if (ctx.input(i).dtype() != dtype) return invalid_argument("einsum inputs must share one type");
    return dispatch<ONYX_FLOAT_TYPES, ONYX_INT_TYPES>(dtype, [&]<typename T>() -> Status {
      using C = std::conditional_t<std::is_integral_v<T>, uint64_t, compute_t<T>>;
      return run<T, C>(ctx);
    });
  }

 private:
  template <typename T, typename C>
  Status run(KernelContext& ctx) const {
    // Expand "..." into labels and find each label's size.
    int64_t ell = 0;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const int64_t letters = int64_t(inputs_[i].letters.size()) - (inputs_[i].has_ellipsis ? 1 : 0);
      const int64_t rank = ctx.input(int(i)).rank();
      if (rank < letters || (!inputs_[i].has_ellipsis && rank != letters))
        return invalid_argument("input ", i, " ", ctx.input(int(i)).describe(), " does not match its einsum term");
      if (inputs_[i].has_ellipsis) ell = std::max(ell, rank - letters);
    }
    std::vector<int64_t> size(size_t(kEllipsisLabel + ell), -1);
    std::vector<int> count(size.size(), 0);
    std::vector<Operand<C>> ops;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      const Tensor& x = ctx.input(int(i));
      Operand<C> op;
      const int64_t e = x.rank() - (int64_t(inputs_[i].letters.size()) - (inputs_[i].has_ellipsis ? 1 : 0));
      for (int l : inputs_[i].letters) {
        if (l >= 0) {
          op.labels.push_back(l);
        } else {
          for (int64_t j = 0; j < e; ++j) op.labels.push_back(int(kEllipsisLabel + ell - e + j));
        }
      }
      op.dims = x.shape();
      for (size_t d = 0; d < op.labels.size(); ++d) {
        int64_t& s = size[size_t(op.labels[d])];
        if (s != -1 && s != 1 && op.dims[d] != 1 && op.dims[d] != s)
          return invalid_argument("einsum label sizes ", s, " and ", op.dims[d], " do not match");
        if (s == -1 || s == 1) s = op.dims[d];
      }
      // Diagonals of repeated labels, and size-1 dims dropped (they broadcast).
      std::vector<int64_t> st = shape_strides(op.dims), strides;
      std::vector<int> labels;
      Shape dims;
      for (size_t d = 0; d < op.labels.size(); ++d) {
        auto it = std::find(labels.begin(), labels.end(), op.labels[d]);
        if (it == labels.end()) {
          labels.push_back(op.labels[d]);
          dims.push_back(op.dims[d]);
          strides.push_back(st[d]);
        } else {
          const size_t at = size_t(it - labels.begin());
          if (dims[at] != op.dims[d]) return invalid_argument("einsum diagonal over dims of different sizes");
          strides[at] += st[d];
        }
      }
      op.labels.clear();
      op.dims.clear();
      std::vector<int64_t> kept_strides;
      for (size_t d = 0; d < labels.size(); ++d) {
        if (dims[d] == 1) continue;
        op.labels.push_back(labels[d]);
        op.dims.push_back(dims[d]);
        kept_strides.push_back(strides[d]);
        ++count[size_t(labels[d])];
      }
      std::vector<C> xbuf;
      const C* xc = as_compute_type<C>(x.data<T>(), x.numel(), xbuf);
      op.data = gather(xc, op.dims, kept_strides);
      ops.push_back(std::move(op));
    }
    // The output labels.
    std::vector<int> out_labels;
    const Term* out_term = explicit_output_ ? &output_ : nullptr;
    std::vector<int> uses(size.size(), 0);
    for (const Term& t : inputs_)
      for (int l : t.letters)
        if (l >= 0) ++uses[size_t(l)];
    if (out_term) {
      for (int l : out_term->letters) {
        if (l < 0) {
          for (int64_t j = 0; j < ell; ++j) out_labels.push_back(int(kEllipsisLabel + j));
        } else if (uses[size_t(l)] == 0) {
          return invalid_argument("einsum output letter '", char(l), "' is not in any input");
        } else {
          out_labels.push_back(l);
        }
      }
    } else {
      for (int64_t j = 0; j < ell; ++j) out_labels.push_back(int(kEllipsisLabel + j));
      for (int l = 0; l < kEllipsisLabel; ++l)
        if (uses[size_t(l)] == 1) out_labels.push_back(l);
    }
    std::vector<bool> in_output(size.size(), false);
    for (int l : out_labels) in_output[size_t(l)] = true;
    // Contract left to right; a label is needed while the output or a later operand has it.
    for (size_t i = 0; i < ops.size(); ++i) {
      for (int l : ops[i].labels) --count[size_t(l)];
      if (i == 0) {
        sum_out(ops[0], [&](int l) { return in_output[size_t(l)] || count[size_t(l)] > 0; });
        continue;
      }
      std::vector<bool> needed(size.size());
      for (size_t l = 0; l < size.size(); ++l) needed[l] = in_output[l] || count[l] > 0;
      ops[0] = contract(std::move(ops[0]), std::move(ops[i]), needed);
    }
    Operand<C>& r = ops[0];
    sum_out(r, [&](int l) { return in_output[size_t(l)]; });
    std::vector<int> order;
    for (int l : out_labels)
      if (std::find(r.labels.begin(), r.labels.end(), l) != r.labels.end()) order.push_back(l);
    rearrange(r, order);
    Shape y_shape;
    for (int l : out_labels) y_shape.push_back(std::max<int64_t>(size[size_t(l)], 0));
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, data_type_of<T>, y_shape));
    if (y->numel() != int64_t(r.data.size()))
      return error(StatusCode::kInternal, "einsum result has ", r.data.size(), " values for ",
                   shape_to_string(y_shape));
    T* out = y->data<T>();
    for (int64_t i = 0; i < y->numel(); ++i) out[i] = static_cast<T>(r.data[size_t(i)]);
    return Status::Ok();
  }

  std::vector<Term> inputs_;
  Term output_;
  bool explicit_output_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "Einsum", 12, kLatestOpset, EinsumKernel);

}  // namespace onyx
