// ai.onnx.ml DictVectorizer: a map (int64 or string keys) becomes Y [1, V] of the map's value
// type: Y[0, i] = the value of vocabulary[i] (int64_vocabulary or string_vocabulary, of the
// keys' type), 0 (or "") when the map lacks it; keys outside the vocabulary are ignored.
#include <cstring>
#include <unordered_map>

#include "kernels/kernel.h"

namespace onyx {
namespace {

class DictVectorizerKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    const std::vector<int64_t> ints = info.attr_ints("int64_vocabulary");
    const std::vector<std::string> strings = info.attr_strings("string_vocabulary");
    if (ints.empty() == strings.empty())
      return invalid_model("DictVectorizer needs exactly one of int64_vocabulary and string_vocabulary");
    for (size_t i = 0; i < ints.size(); ++i) int_index_.emplace(ints[i], int64_t(i));
    for (size_t i = 0; i < strings.size(); ++i) string_index_.emplace(strings[i], int64_t(i));
    size_ = int64_t(ints.size() + strings.size());
    string_keys_ = !strings.empty();
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Value& in = ctx.input_value(0);
    if (!in.is_map()) return invalid_argument("DictVectorizer: X must be a map, got ", in.describe());
    const Tensor& keys = in.map_keys();
    const Tensor& values = in.map_values();
    if ((keys.dtype() == DataType::kString) != string_keys_)
      return invalid_argument("DictVectorizer: X is ", in.describe(), " but the vocabulary holds ",
                              string_keys_ ? "strings" : "int64s");
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, values.dtype(), {1, size_}));
    const size_t item = values.itemsize();
    for (int64_t i = 0; i < keys.numel(); ++i) {
      int64_t at = -1;
      if (string_keys_) {
        auto it = string_index_.find(keys.data<std::string>()[i]);
        if (it != string_index_.end()) at = it->second;
      } else {
        auto it = int_index_.find(keys.get_int64(i));
        if (it != int_index_.end()) at = it->second;
      }
      if (at < 0) continue;
      if (values.dtype() == DataType::kString) y->data<std::string>()[at] = values.data<std::string>()[i];
      else std::memcpy(static_cast<char*>(y->raw_data()) + size_t(at) * item,
                       static_cast<const char*>(values.raw_data()) + size_t(i) * item, item);
    }
    return Status::Ok();
  }

 private:
  std::unordered_map<int64_t, int64_t> int_index_;
  std::unordered_map<std::string, int64_t> string_index_;
  int64_t size_ = 0;
  bool string_keys_ = false;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "DictVectorizer", 1, kLatestOpset, DictVectorizerKernel);

}  // namespace onyx
