// Value: what flows along a graph edge. A tensor, a sequence of tensors, a map (ONNX-ML
// map<key, value>: parallel 1-D tensors of keys and values), or none (an absent optional, or
// an omitted optional input). An optional that holds something is just that value.
#pragma once
#include <memory>
#include <vector>

#include "core/tensor.h"

namespace onyx {

class Value {
 public:
  enum class Kind { kNone, kTensor, kSequence, kMap };

  Value() = default;
  Value(Tensor tensor) : kind_(Kind::kTensor), tensor_(std::move(tensor)) {}  // NOLINT
  // A sequence; elem_type is kept so that an empty sequence still knows its type.
  static Value sequence(std::vector<Tensor> items, DataType elem_type) {
    Value v;
    v.kind_ = Kind::kSequence;
    v.sequence_ = std::make_shared<const std::vector<Tensor>>(std::move(items));
    v.elem_type_ = elem_type;
    return v;
  }

  // A map from keys[i] to values[i]; both 1-D with the same length (checked).
  static Result<Value> map(Tensor keys, Tensor values) {
    if (keys.rank() != 1 || values.rank() != 1 || keys.numel() != values.numel())
      return invalid_argument("a map needs 1-D keys and values of one length, got ", keys.describe(), " and ",
                              values.describe());
    Value v;
    v.kind_ = Kind::kMap;
    v.tensor_ = std::move(keys);
    v.map_values_ = std::move(values);
    return v;
  }

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_tensor() const { return kind_ == Kind::kTensor; }
  bool is_sequence() const { return kind_ == Kind::kSequence; }
  bool is_map() const { return kind_ == Kind::kMap; }

  const Tensor& tensor() const { return tensor_; }
  Tensor& tensor() { return tensor_; }
  const std::vector<Tensor>& sequence_items() const { return *sequence_; }
  DataType sequence_elem_type() const { return elem_type_; }
  const Tensor& map_keys() const { return tensor_; }
  const Tensor& map_values() const { return map_values_; }
  // "float32[2,3]", "seq<float32>[4]", "none"
  std::string describe() const;

 private:
  Kind kind_ = Kind::kNone;
  Tensor tensor_;
  std::shared_ptr<const std::vector<Tensor>> sequence_;
  DataType elem_type_ = DataType::kUndefined;
  Tensor map_values_;
};

inline std::string Value::describe() const {
  switch (kind_) {
    case Kind::kNone: return "none";
    case Kind::kTensor: return tensor_.describe();
    case Kind::kSequence:
      return std::string("seq<") + data_type_name(elem_type_) + ">[" + std::to_string(sequence_->size()) + "]";
    case Kind::kMap:
      return std::string("map<") + data_type_name(tensor_.dtype()) + "," + data_type_name(map_values_.dtype()) + ">[" +
             std::to_string(tensor_.numel()) + "]";
  }
  return "?";
}

}  // namespace onyx
