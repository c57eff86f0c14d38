// Value: what flows along a graph edge. A tensor, a sequence of tensors, a map (ONNX-ML
// map<key, value>: parallel 1-D tensors of keys and values), or none (an absent optional, or
// an omitted optional input), or a sequence of maps (what ai.onnx.ml's ZipMap makes: one map
// per row). An optional that holds something is just that value.
#pragma once
#include <memory>
#include <vector>

#include "core/tensor.h"

namespace onyx {

class Value {
 public:
  enum class Kind { kNone, kTensor, kSequence, kMap, kMapSequence };

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

  // A sequence of maps, each made by Value::map with these key and value types (checked).
  static Result<Value> map_sequence(std::vector<Value> maps, DataType key_type, DataType value_type) {
    for (const Value& m : maps)
      if (!m.is_map() || m.map_keys().dtype() != key_type || m.map_values().dtype() != value_type)
        return invalid_argument("a sequence of map<", data_type_name(key_type), ",", data_type_name(value_type),
                                "> cannot hold ", m.describe());
    Value v;
    v.kind_ = Kind::kMapSequence;
    v.maps_ = std::make_shared<const std::vector<Value>>(std::move(maps));
    v.elem_type_ = key_type;
    v.map_value_type_ = value_type;
    return v;
  }

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_tensor() const { return kind_ == Kind::kTensor; }
  bool is_sequence() const { return kind_ == Kind::kSequence; }
  bool is_map() const { return kind_ == Kind::kMap; }
  bool is_map_sequence() const { return kind_ == Kind::kMapSequence; }

  const Tensor& tensor() const { return tensor_; }
  Tensor& tensor() { return tensor_; }
  const std::vector<Tensor>& sequence_items() const { return *sequence_; }
  DataType sequence_elem_type() const { return elem_type_; }
  const Tensor& map_keys() const { return tensor_; }
  const Tensor& map_values() const { return map_values_; }
  // For a sequence of maps: its maps, and the key and value types they all have.
  const std::vector<Value>& map_sequence_items() const { return *maps_; }
  DataType map_sequence_key_type() const { return elem_type_; }
  DataType map_sequence_value_type() const { return map_value_type_; }
  // "float32[2,3]", "seq<float32>[4]", "map<int64,float32>[3]", "seq<map<string,float32>>[2]", "none"
  std::string describe() const;

 private:
  Kind kind_ = Kind::kNone;
  Tensor tensor_;
  std::shared_ptr<const std::vector<Tensor>> sequence_;
  DataType elem_type_ = DataType::kUndefined;
  Tensor map_values_;
  std::shared_ptr<const std::vector<Value>> maps_;
  DataType map_value_type_ = DataType::kUndefined;
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
    case Kind::kMapSequence:
      return std::string("seq<map<") + data_type_name(elem_type_) + "," + data_type_name(map_value_type_) + ">>[" +
             std::to_string(maps_->size()) + "]";
  }
  return "?";
}

}  // namespace onyx
