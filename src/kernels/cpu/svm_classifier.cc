// ai.onnx.ml SVMClassifier over class_count = len(classlabels) classes.
// Linear mode (no vectors_per_class): score_j = x . coefficients_j + rho_j (rho: one per
// class, or one for all); Z = the post-transformed scores, label = the highest.
// SVC mode: vectors_per_class[i] consecutive support vectors per class; for each class pair
// i < j (in order), d = rho[p] + sum over i's vectors of coefficients[j-1][v] K(x, v)
// + sum over j's vectors of coefficients[i][v] K(x, v), a vote for i when d > 0, else j; the
// label is the class with most votes (the first on ties). Without prob_a / prob_b, Z holds the
// post-transformed pair scores d; for two classes [-d, d] (or its LOGISTIC, SOFTMAX,
// SOFTMAX_ZERO transform; PROBIT is refused), and the label is the second class when every
// coefficient is >= 0, as ONNX Runtime does. With prob_a / prob_b (Platt scaling): each pair's
// probability r_ij = 1 / (1 + exp(d A_p + B_p)), clamped to [1e-7, 1 - 1e-7], r_ji = 1 - r_ij,
// coupled into class probabilities by Wu, Lin and Weng's method (libsvm's), then
// post-transformed: Z [N, class_count]. Kernel values and the pair sums d are float32 products
// (kernels/ml_products.h), as ONNX Runtime computes them, in blocks of rows; votes,
// probabilities and post-transforms run in double.
#include <algorithm>
#include <cmath>

#include "core/parallel.h"
#include "kernels/kernel.h"
#include "kernels/ml_common.h"
#include "kernels/ml_products.h"
#include "kernels/svm_common.h"

namespace onyx {
namespace {

// Class probabilities p (k of them) from pairwise ones r (k x k, r[i][j] = P(i | i or j)):
// minimises sum_i sum_{j != i} (r[j][i] p_i - r[i][j] p_j)^2 with sum p = 1, iteratively.
void couple_pairwise(int64_t k, const std::vector<double>& r, double* p) {
  std::vector<double> q(size_t(k * k)), qp(static_cast<size_t>(k));
  for (int64_t t = 0; t < k; ++t) {
    p[t] = 1.0 / double(k);
    double diag = 0;
    for (int64_t j = 0; j < k; ++j) {
      if (j == t) continue;
      diag += r[size_t(j * k + t)] * r[size_t(j * k + t)];
      q[size_t(t * k + j)] = -r[size_t(j * k + t)] * r[size_t(t * k + j)];
    }
    q[size_t(t * k + t)] = diag;
  }
  const int64_t max_iter = std::max<int64_t>(100, k);
  const double eps = 0.005 / double(k);
  for (int64_t iter = 0; iter < max_iter; ++iter) {
    double pqp = 0;
    for (int64_t t = 0; t < k; ++t) {
      qp[size_t(t)] = 0;
      for (int64_t j = 0; j < k; ++j) qp[size_t(t)] += q[size_t(t * k + j)] * p[j];
      pqp += p[t] * qp[size_t(t)];
    }
    double max_error = 0;
    for (int64_t t = 0; t < k; ++t) max_error = std::max(max_error, std::fabs(qp[size_t(t)] - pqp));
    if (max_error < eps) break;
    for (int64_t t = 0; t < k; ++t) {
      const double qtt = q[size_t(t * k + t)];
      if (qtt == 0) continue;
      const double diff = (pqp - qp[size_t(t)]) / qtt;
      p[t] += diff;
      pqp = (pqp + diff * (diff * qtt + 2 * qp[size_t(t)])) / ((1 + diff) * (1 + diff));
      for (int64_t j = 0; j < k; ++j) {
        qp[size_t(j)] = (qp[size_t(j)] + diff * q[size_t(t * k + j)]) / (1 + diff);
        p[j] /= 1 + diff;
      }
    }
  }
}

class SvmClassifierKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    ONYX_ASSIGN_OR_RETURN(labels_, ml::ClassLabels::parse(info, "classlabels_ints", "classlabels_strings", "SVMClassifier"));
    ONYX_ASSIGN_OR_RETURN(transform_, ml::parse_post_transform(info.attr_string("post_transform", "NONE"), "SVMClassifier"));
    ONYX_ASSIGN_OR_RETURN(kernel_, ml::SvmKernel::parse(info.attr_string("kernel_type", "LINEAR"),
                                                        info.attr_floats("kernel_params"), "SVMClassifier"));
    classes_ = labels_.size();
    if (classes_ < 2) return invalid_model("SVMClassifier needs at least 2 class labels, got ", classes_);
    coefficients_ = info.attr_floats("coefficients");
    support_vectors_ = info.attr_floats("support_vectors");
    rho_ = info.attr_floats("rho");
    prob_a_ = info.attr_floats("prob_a");
    prob_b_ = info.attr_floats("prob_b");
    per_class_ = info.attr_ints("vectors_per_class");
    vectors_ = 0;
    for (int64_t v : per_class_) {
      if (v < 0 || v > (int64_t(1) << 40)) return invalid_model("SVMClassifier: bad vectors_per_class entry ", v);
      starts_.push_back(vectors_);
      vectors_ += v;
    }
    pairs_ = classes_ * (classes_ - 1) / 2;
    if (vectors_ == 0) {  // linear
      if (coefficients_.empty() || int64_t(coefficients_.size()) % classes_ != 0)
        return invalid_model("SVMClassifier: ", coefficients_.size(), " coefficients do not make ", classes_, " rows");
      if (rho_.size() != 1 && int64_t(rho_.size()) != classes_)
        return invalid_model("SVMClassifier: rho needs 1 or ", classes_, " values, got ", rho_.size());
      features_ = int64_t(coefficients_.size()) / classes_;
      return pair_sums_.init(coefficients_, classes_, features_, rho_);
    }
    if (int64_t(per_class_.size()) != classes_)
      return invalid_model("SVMClassifier: vectors_per_class has ", per_class_.size(), " entries for ", classes_, " classes");
    if (int64_t(coefficients_.size()) != (classes_ - 1) * vectors_)
      return invalid_model("SVMClassifier: ", coefficients_.size(), " coefficients, expected (classes - 1) * vectors = ",
                           (classes_ - 1) * vectors_);
    if (support_vectors_.empty() || int64_t(support_vectors_.size()) % vectors_ != 0)
      return invalid_model("SVMClassifier: ", support_vectors_.size(), " support_vectors values do not make ", vectors_,
                           " vectors");
    if (int64_t(rho_.size()) != pairs_)
      return invalid_model("SVMClassifier: rho has ", rho_.size(), " values for ", pairs_, " class pairs");
    if (prob_a_.size() != prob_b_.size() || (!prob_a_.empty() && int64_t(prob_a_.size()) != pairs_))
      return invalid_model("SVMClassifier: prob_a and prob_b need one value per class pair (", pairs_, "), got ",
                           prob_a_.size(), " and ", prob_b_.size());
    if (prob_a_.empty() && pairs_ == 1 && transform_ == ml::PostTransform::kProbit)
      return not_implemented("SVMClassifier: two classes without probabilities and post_transform PROBIT");
    features_ = int64_t(support_vectors_.size()) / vectors_;
    all_positive_ = *std::min_element(coefficients_.begin(), coefficients_.end()) >= 0;
    ONYX_RETURN_IF_ERROR(kernel_matrix_.init(kernel_, support_vectors_, vectors_, features_));
    // d_p = rho_p + sum_v pair_coefficients[p][v] K(x, v): class i's vectors weighted by
    // coefficients row j - 1, class j's by row i, every other vector by 0.
    std::vector<float> pair_coefficients(size_t(pairs_ * vectors_), 0.0f);
    int64_t p = 0;
    for (int64_t i = 0; i < classes_; ++i) {
      for (int64_t j = i + 1; j < classes_; ++j, ++p) {
        float* row = &pair_coefficients[size_t(p * vectors_)];
        for (int64_t v = starts_[size_t(i)]; v < starts_[size_t(i)] + per_class_[size_t(i)]; ++v)
          row[v] = coefficients_[size_t((j - 1) * vectors_ + v)];
        for (int64_t v = starts_[size_t(j)]; v < starts_[size_t(j)] + per_class_[size_t(j)]; ++v)
          row[v] = coefficients_[size_t(i * vectors_ + v)];
      }
    }
    return pair_sums_.init(std::move(pair_coefficients), pairs_, vectors_, rho_);
  }

  Status compute(KernelContext& ctx) const override {
    ONYX_ASSIGN_OR_RETURN(ml::FloatRows x, ml::read_float_rows(ctx, 0, "SVMClassifier"));
    const int64_t n = x.rows, c = x.cols;
    if (c != features_) return invalid_argument("SVMClassifier: X has ", c, " features, the model ", features_);
    const bool svc = vectors_ > 0, proba = svc && !prob_a_.empty();
    const int64_t width = !svc || proba ? classes_ : pairs_ == 1 ? 2 : pairs_;
    const int64_t sums = svc ? pairs_ : classes_;  // values per row of the last product
    ONYX_ASSIGN_OR_RETURN(Tensor * z, ctx.allocate_output_uninitialized(1, DataType::kFloat, {n, width}));
    std::vector<int64_t> chosen(static_cast<size_t>(n));
    const int64_t block = std::min(n, ml::rows_per_block(svc ? vectors_ : sums));
    ONYX_ASSIGN_OR_RETURN(Tensor d, ctx.allocate_scratch(DataType::kFloat, {std::max<int64_t>(block, 1), sums}));
    Tensor k;
    if (svc) {
      ONYX_ASSIGN_OR_RETURN(k, ctx.allocate_scratch(DataType::kFloat, {std::max<int64_t>(block, 1), vectors_}));
    }
    for (int64_t r0 = 0; r0 < n; r0 += block) {
      const int64_t rows = std::min(block, n - r0);
      if (svc) {
        ONYX_RETURN_IF_ERROR(kernel_matrix_.run(x.data + r0 * c, rows, k.data<float>()));
        ONYX_RETURN_IF_ERROR(pair_sums_.run(k.data<float>(), rows, d.data<float>()));
      } else {
        ONYX_RETURN_IF_ERROR(pair_sums_.run(x.data + r0 * c, rows, d.data<float>()));
      }
      parallel_for(rows, 64, [&](int64_t begin, int64_t end) {
        std::vector<double> scores(size_t(std::max(width, sums)));
        std::vector<double> votes(static_cast<size_t>(classes_)), pairwise(size_t(classes_ * classes_));
        for (int64_t r = begin; r < end; ++r) {
          for (int64_t e = 0; e < sums; ++e) scores[size_t(e)] = d.data<float>()[r * sums + e];
          chosen[size_t(r0 + r)] = finish_row(scores, votes, pairwise);
          for (int64_t e = 0; e < width; ++e) z->data<float>()[(r0 + r) * width + e] = float(scores[size_t(e)]);
        }
      });
    }
    return labels_.write(ctx, 0, chosen);
  }

  // From a row's sums (class scores in the linear form, pair values d otherwise) to Z's row
  // in `scores` and the chosen class, which it returns.
  int64_t finish_row(std::vector<double>& scores, std::vector<double>& votes, std::vector<double>& pairwise) const {
    int64_t best = 0;
    if (vectors_ == 0) {
      ml::post_transform_row(transform_, scores.data(), classes_);
      for (int64_t j = 1; j < classes_; ++j)
        if (scores[size_t(j)] > scores[size_t(best)]) best = j;
      return best;
    }
    std::fill(votes.begin(), votes.end(), 0.0);
    int64_t p = 0;
    for (int64_t i = 0; i < classes_; ++i)
      for (int64_t j = i + 1; j < classes_; ++j, ++p) votes[size_t(scores[size_t(p)] > 0 ? i : j)] += 1;
    for (int64_t j = 1; j < classes_; ++j)
      if (votes[size_t(j)] > votes[size_t(best)]) best = j;
    if (!prob_a_.empty()) {
      p = 0;
      for (int64_t i = 0; i < classes_; ++i) {
        for (int64_t j = i + 1; j < classes_; ++j, ++p) {
          const double v = std::clamp(1.0 / (1.0 + std::exp(scores[size_t(p)] * prob_a_[size_t(p)] + prob_b_[size_t(p)])),
                                      1e-7, 1 - 1e-7);
          pairwise[size_t(i * classes_ + j)] = v;
          pairwise[size_t(j * classes_ + i)] = 1 - v;
        }
      }
      couple_pairwise(classes_, pairwise, scores.data());
      ml::post_transform_row(transform_, scores.data(), classes_);
    } else if (pairs_ == 1) {
      const double dv = scores[0];
      scores[0] = -dv;
      scores[1] = dv;
      ml::post_transform_row(transform_, scores.data(), 2);
      if (all_positive_) best = 1;
    } else {
      ml::post_transform_row(transform_, scores.data(), pairs_);
    }
    return best;
  }

 private:
  ml::ClassLabels labels_;
  ml::PostTransform transform_ = ml::PostTransform::kNone;
  ml::SvmKernel kernel_;
  std::vector<float> coefficients_, support_vectors_, rho_, prob_a_, prob_b_;
  std::vector<int64_t> per_class_, starts_;
  int64_t classes_ = 0, vectors_ = 0, pairs_ = 0, features_ = 0;
  bool all_positive_ = false;
  ml::SvmKernelMatrix kernel_matrix_;  // K(x, support vector v), in SVC mode
  ml::RowProducts pair_sums_;          // d per class pair (SVC) or class scores (linear), with rho
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "SVMClassifier", 1, kLatestOpset, SvmClassifierKernel);

}  // namespace onyx
