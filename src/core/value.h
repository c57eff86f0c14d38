// Value: what flows along a graph edge. A tensor, a sequence of tensors, or none (an absent
// optional, or an omitted optional input). An optional that holds something is just that
// tensor or sequence.
#pragma once
#include <memory>
#include <vector>

#include "core/tensor.h"

namespace onyx {

class Value {
 public:
  enum class Kind { kNone, kTensor, kSequence };

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

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_tensor() const { return kind_ == Kind::kTensor; }
  bool is_sequence() const { return kind_ == Kind::kSequence; }

  const Tensor& tensor() const { return tensor_; }
  Tensor& tensor() { return tensor_; }
  const std::vector<Tensor>& sequence_items() const { return *sequence_; }
  DataType sequence_elem_type() const { return elem_type_; }
  // "float32[2,3]", "seq<float32>[4]", "none"
  std::string describe() const;

 private:
  Kind kind_ = Kind::kNone;
  Tensor tensor_;
  std::shared_ptr<const std::vector<Tensor>> sequence_;
  DataType elem_type_ = DataType::kUndefined;
};

inline std::string Value::describe() const {
  switch (kind_) {
    case Kind::kNone: return "none";
    case Kind::kTensor: return tensor_.describe();
    case Kind::kSequence:
      return std::string("seq<") + data_type_name(elem_type_) + ">[" + std::to_string(sequence_->size()) + "]";
  }
  return "?";
}

}  // namespace onyx
