// TfIdfVectorizer: counts the pool's n-grams (min_gram_length..max_gram_length items, taken
// with 0..max_skip_count items skipped between consecutive items) in each row of a [C] or
// [N, C] int32/int64/string input, and writes them as TF (counts), IDF (presence times
// weight) or TFIDF (counts times weight) at the coordinates given by ngram_indexes.
// Unigrams are counted once, whatever the skip count.
#include <algorithm>
#include <unordered_map>

#include "core/parallel.h"
#include "kernels/kernel.h"

namespace onyx {
namespace {

struct PairHash {
  size_t operator()(const std::pair<int64_t, int64_t>& p) const {
    const uint64_t h = uint64_t(p.first) * 0x9E3779B97F4A7C15ull ^ (uint64_t(p.second) + 0x632BE59BD9B4E019ull);
    return size_t(h ^ (h >> 29));
  }
};

class TfIdfVectorizerKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const std::string mode = info.attr_string("mode", "");
    if (mode == "TF") mode_ = Mode::kTf;
    else if (mode == "IDF") mode_ = Mode::kIdf;
    else if (mode == "TFIDF") mode_ = Mode::kTfIdf;
    else return invalid_model("mode must be TF, IDF or TFIDF, got '", mode, "'");
    min_gram_ = info.attr_int("min_gram_length", 0);
    max_gram_ = info.attr_int("max_gram_length", 0);
    max_skip_ = info.attr_int("max_skip_count", 0);
    if (min_gram_ < 1 || max_gram_ < min_gram_ || max_skip_ < 0)
      return invalid_model("need 1 <= min_gram_length <= max_gram_length and max_skip_count >= 0");

    const std::vector<int64_t> counts = info.attr_ints("ngram_counts");
    indexes_ = info.attr_ints("ngram_indexes");
    weights_ = info.attr_floats("weights");
    std::vector<int64_t> pool = info.attr_ints("pool_int64s");
    const std::vector<std::string> strings = info.attr_strings("pool_strings");
    if (!pool.empty() && !strings.empty()) return invalid_model("only one of pool_int64s and pool_strings may be set");
    strings_ = !strings.empty();
    if (strings_) {
      // Tokens become ids; equal strings share one.
      for (const std::string& s : strings)
        pool.push_back(string_ids_.emplace(s, int64_t(string_ids_.size())).first->second);
    }
    if (!weights_.empty() && weights_.size() != indexes_.size())
      return invalid_model("weights has ", weights_.size(), " entries, ngram_indexes ", indexes_.size());

    // Insert each level's n-grams into the trie; node_ordinal_ marks where an n-gram ends.
    const int64_t pool_size = int64_t(pool.size());
    int64_t ordinal = 0;
    node_ordinal_.assign(1, -1);
    for (size_t level = 0; level < counts.size(); ++level) {
      const int64_t n = int64_t(level) + 1;
      const int64_t begin = counts[level];
      const int64_t end = level + 1 < counts.size() ? counts[level + 1] : pool_size;
      if (begin < 0 || begin > end || end > pool_size || (end - begin) % n != 0)
        return invalid_model("ngram_counts ", begin, " does not delimit whole ", n, "-grams in a pool of ", pool_size);
      for (int64_t start = begin; start < end; start += n, ++ordinal) {
        int64_t node = 0;
        for (int64_t k = 0; k < n; ++k) {
          const std::pair<int64_t, int64_t> edge(node, pool[size_t(start + k)]);
          auto [it, inserted] = children_.emplace(edge, int64_t(node_ordinal_.size()));
          if (inserted) node_ordinal_.push_back(-1);
          node = it->second;
        }
        if (node_ordinal_[size_t(node)] < 0) node_ordinal_[size_t(node)] = ordinal;
      }
    }
    if (ordinal != int64_t(indexes_.size()))
      return invalid_model("the pool holds ", ordinal, " n-grams but ngram_indexes has ", indexes_.size());
    output_size_ = 0;
    for (int64_t idx : indexes_) {
      if (idx < 0) return invalid_model("ngram_indexes must be non-negative, got ", idx);
      // The output has max(ngram_indexes) + 1 columns: an index past any real tensor is refused.
      if (idx >= int64_t(1) << 40) return invalid_model("ngram index ", idx, " is too large");
      output_size_ = std::max(output_size_, idx + 1);
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    if (!x.defined() || (x.rank() != 1 && x.rank() != 2))
      return invalid_argument("TfIdfVectorizer input must be [C] or [N, C], got ", x.describe());
    const bool is_string = x.dtype() == DataType::kString;
    if (is_string != strings_ || (!is_string && x.dtype() != DataType::kInt32 && x.dtype() != DataType::kInt64))
      return invalid_argument("input type ", data_type_name(x.dtype()), " does not match the ",
                              strings_ ? "string" : "integer", " pool");
    const int64_t rows = x.rank() == 2 ? x.dim(0) : 1;
    const int64_t cols = x.dim(x.rank() - 1);
    const Shape out_shape = x.rank() == 2 ? Shape{rows, output_size_} : Shape{output_size_};
    ONYX_ASSIGN_OR_RETURN(Tensor* y, ctx.allocate_output(0, DataType::kFloat, out_shape));
    float* out = y->data<float>();
    parallel_for(rows, 1, [&](int64_t begin, int64_t end) {
      std::vector<int64_t> tokens(static_cast<size_t>(cols));
      std::vector<int64_t> freq(indexes_.size());
      for (int64_t row = begin; row < end; ++row) {
        for (int64_t c = 0; c < cols; ++c) tokens[size_t(c)] = token(x, row * cols + c);
        std::fill(freq.begin(), freq.end(), 0);
        count_row(tokens, freq);
        float* dst = out + row * output_size_;
        for (size_t i = 0; i < freq.size(); ++i) {
          if (freq[i] == 0) continue;
          const float w = weights_.empty() ? 1.f : weights_[i];
          dst[indexes_[i]] += mode_ == Mode::kTf ? float(freq[i]) : mode_ == Mode::kIdf ? w : float(freq[i]) * w;
        }
      }
    });
    return Status::Ok();
  }

 private:
  enum class Mode { kTf, kIdf, kTfIdf };

  // Element i as a token id: the integer itself, or the string's pool id (-1 if absent).
  int64_t token(const Tensor& x, int64_t i) const {
    switch (x.dtype()) {
      case DataType::kInt32: return x.data<int32_t>()[i];
      case DataType::kInt64: return x.data<int64_t>()[i];
      default: {
        auto it = string_ids_.find(x.data<std::string>()[i]);
        return it == string_ids_.end() ? -1 : it->second;
      }
    }
  }

  // Adds the pool n-grams found in one row to freq (indexed by n-gram ordinal).
  void count_row(const std::vector<int64_t>& tokens, std::vector<int64_t>& freq) const {
    const int64_t len = int64_t(tokens.size());
    for (int64_t start = 0; start < len; ++start) {
      for (int64_t skip = 0; skip <= max_skip_; ++skip) {
        int64_t node = 0;
        for (int64_t n = 1, pos = start; n <= max_gram_ && pos < len; ++n, pos += skip + 1) {
          auto it = children_.find({node, tokens[size_t(pos)]});
          if (it == children_.end()) break;
          node = it->second;
          const int64_t ordinal = node_ordinal_[size_t(node)];
          if (ordinal >= 0 && n >= min_gram_ && (n > 1 || skip == 0)) ++freq[size_t(ordinal)];
        }
        if (start + skip + 1 >= len) break;  // longer skips reach no second item
      }
    }
  }

  Mode mode_ = Mode::kTf;
  int64_t min_gram_ = 1, max_gram_ = 1, max_skip_ = 0;
  std::vector<int64_t> indexes_;
  std::vector<float> weights_;
  bool strings_ = false;
  std::unordered_map<std::string, int64_t> string_ids_;
  std::unordered_map<std::pair<int64_t, int64_t>, int64_t, PairHash> children_;  // (node, token) -> child
  std::vector<int64_t> node_ordinal_;  // node -> n-gram ordinal, or -1
  int64_t output_size_ = 0;
};

}  // namespace

ONYX_REGISTER_KERNEL("", "TfIdfVectorizer", 9, kLatestOpset, TfIdfVectorizerKernel);

}  // namespace onyx
