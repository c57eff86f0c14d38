// ai.onnx.ml LabelEncoder: maps each element of X through a key -> value table; an element
// that is no key becomes the default. Y has X's shape and the values' type.
//   v1: classes_strings; string X -> int64 (its index there, else default_int64), int64 X ->
//       string (classes_strings[x], else default_string).
//   v2: keys_{floats,int64s,strings} -> values_{floats,int64s,strings}, exactly one of each,
//       of one length; defaults default_float (-0.0), default_int64 (-1), default_string
//       ("_Unused").
//   v4: also keys_tensor / values_tensor (string, int64, int32, int16, float, double), and
//       default_tensor (one element of the values' type; else "_Unused", -1 or -0.0).
// X's type must be the keys' type. A NaN key matches NaN elements.
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "kernels/kernel.h"

namespace onyx {
namespace {

// One key -> value table: keys held by kind, values as a tensor of the value type.
struct Table {
  DataType key_type = DataType::kUndefined;
  std::unordered_map<std::string, int64_t> string_keys;
  std::unordered_map<int64_t, int64_t> int_keys;
  std::unordered_map<double, int64_t> float_keys;
  int64_t nan_key = -1;
  Tensor values;   // [n]
  Tensor fallback; // one element, the value type

  // The index of element i of x among the keys, or -1.
  int64_t find(const Tensor& x, int64_t i) const {
    if (key_type == DataType::kString) {
      auto it = string_keys.find(x.data<std::string>()[i]);
      return it == string_keys.end() ? -1 : it->second;
    }
    if (key_type == DataType::kFloat || key_type == DataType::kDouble) {
      const double d = x.get_double(i);
      if (std::isnan(d)) return nan_key;
      auto it = float_keys.find(d);
      return it == float_keys.end() ? -1 : it->second;
    }
    auto it = int_keys.find(x.get_int64(i));
    return it == int_keys.end() ? -1 : it->second;
  }
};

// Keys from a tensor of any supported type; equal keys keep the first value.
Status add_keys(const Tensor& keys, Table* table) {
  table->key_type = keys.dtype();
  for (int64_t i = 0; i < keys.numel(); ++i) {
    switch (keys.dtype()) {
      case DataType::kString: table->string_keys.emplace(keys.data<std::string>()[i], i); break;
      case DataType::kFloat: case DataType::kDouble: {
        const double d = keys.get_double(i);
        if (std::isnan(d)) { if (table->nan_key < 0) table->nan_key = i; }
        else table->float_keys.emplace(d, i);
        break;
      }
      case DataType::kInt64: case DataType::kInt32: case DataType::kInt16: table->int_keys.emplace(keys.get_int64(i), i); break;
      default: return invalid_model("LabelEncoder: keys of type ", data_type_name(keys.dtype()));
    }
  }
  return Status::Ok();
}

Tensor strings_tensor(const std::vector<std::string>& v) {
  Tensor t(DataType::kString, {int64_t(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data<std::string>()[i] = v[i];
  return t;
}
template <typename T, typename S> Tensor vector_tensor(DataType type, const std::vector<S>& v) {
  Tensor t(type, {int64_t(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data<T>()[i] = T(v[i]);
  return t;
}

class LabelEncoderKernel final : public Kernel {
 public:
  Status prepare(const KernelInfo& info) override {
    default_string_ = info.attr_string("default_string", "_Unused");
    default_int_ = info.attr_int("default_int64", -1);
    default_float_ = info.attr_float("default_float", -0.0f);
    if (info.opset() < 2) return prepare_v1(info);
    std::vector<Tensor> keys, values;
    if (info.has_attr("keys_floats")) keys.push_back(vector_tensor<float>(DataType::kFloat, info.attr_floats("keys_floats")));
    if (info.has_attr("keys_int64s")) keys.push_back(vector_tensor<int64_t>(DataType::kInt64, info.attr_ints("keys_int64s")));
    if (info.has_attr("keys_strings")) keys.push_back(strings_tensor(info.attr_strings("keys_strings")));
    if (info.has_attr("values_floats")) values.push_back(vector_tensor<float>(DataType::kFloat, info.attr_floats("values_floats")));
    if (info.has_attr("values_int64s")) values.push_back(vector_tensor<int64_t>(DataType::kInt64, info.attr_ints("values_int64s")));
    if (info.has_attr("values_strings")) values.push_back(strings_tensor(info.attr_strings("values_strings")));
    if (info.opset() >= 4) {
      if (const Tensor* t = info.attr_tensor("keys_tensor")) keys.push_back(*t);
      if (const Tensor* t = info.attr_tensor("values_tensor")) values.push_back(*t);
    }
    if (keys.size() != 1 || values.size() != 1)
      return invalid_model("LabelEncoder needs exactly one keys_* and one values_* attribute, got ", keys.size(), " and ",
                           values.size());
    if (keys[0].numel() != values[0].numel())
      return invalid_model("LabelEncoder: ", keys[0].numel(), " keys for ", values[0].numel(), " values");
    Table& table = tables_.emplace_back();
    ONYX_RETURN_IF_ERROR(add_keys(keys[0], &table));
    const DataType vt = values[0].dtype();
    if (vt != DataType::kString && vt != DataType::kFloat && vt != DataType::kDouble && vt != DataType::kInt64 &&
        vt != DataType::kInt32 && vt != DataType::kInt16)
      return invalid_model("LabelEncoder: values of type ", data_type_name(vt));
    if (values[0].rank() == 1) {
      table.values = values[0];
    } else {
      ONYX_ASSIGN_OR_RETURN(table.values, values[0].reshaped({values[0].numel()}));
    }
    const Tensor* given = info.opset() >= 4 ? info.attr_tensor("default_tensor") : nullptr;
    if (given) {
      if (given->dtype() != vt || given->numel() != 1)
        return invalid_model("LabelEncoder: default_tensor must be one ", data_type_name(vt), ", got ", given->describe());
      table.fallback = *given;
    } else {
      table.fallback = Tensor(vt, {});
      switch (vt) {
        case DataType::kString: table.fallback.data<std::string>()[0] = default_string_; break;
        case DataType::kFloat: table.fallback.data<float>()[0] = default_float_; break;
        case DataType::kDouble: table.fallback.data<double>()[0] = default_float_; break;
        case DataType::kInt64: table.fallback.data<int64_t>()[0] = default_int_; break;
        case DataType::kInt32: table.fallback.data<int32_t>()[0] = int32_t(default_int_); break;
        default: table.fallback.data<int16_t>()[0] = int16_t(default_int_); break;
      }
    }
    return Status::Ok();
  }

  Status compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Table* table = nullptr;
    for (const Table& t : tables_)
      if (t.key_type == x.dtype()) table = &t;
    if (!table)
      return invalid_argument("LabelEncoder: X is ", x.describe(), " but its keys are ",
                              data_type_name(tables_.front().key_type));
    const DataType vt = table->values.dtype();
    ONYX_ASSIGN_OR_RETURN(Tensor * y, ctx.allocate_output(0, vt, x.shape()));
    const size_t item = data_type_size(vt);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const int64_t k = table->find(x, i);
      const Tensor& from = k < 0 ? table->fallback : table->values;
      const int64_t at = k < 0 ? 0 : k;
      if (vt == DataType::kString) y->data<std::string>()[i] = from.data<std::string>()[at];
      else std::memcpy(static_cast<char*>(y->raw_data()) + size_t(i) * item,
                       static_cast<const char*>(from.raw_data()) + size_t(at) * item, item);
    }
    return Status::Ok();
  }

 private:
  // v1: both directions of classes_strings, chosen by X's type at run time.
  Status prepare_v1(const KernelInfo& info) {
    const std::vector<std::string> classes = info.attr_strings("classes_strings");
    std::vector<int64_t> positions(classes.size());
    for (size_t i = 0; i < classes.size(); ++i) positions[i] = int64_t(i);
    Table& by_name = tables_.emplace_back();
    ONYX_RETURN_IF_ERROR(add_keys(strings_tensor(classes), &by_name));
    by_name.values = vector_tensor<int64_t>(DataType::kInt64, positions);
    by_name.fallback = Tensor::scalar<int64_t>(default_int_);
    Table& by_position = tables_.emplace_back();
    ONYX_RETURN_IF_ERROR(add_keys(vector_tensor<int64_t>(DataType::kInt64, positions), &by_position));
    by_position.values = strings_tensor(classes);
    by_position.fallback = Tensor(DataType::kString, {});
    by_position.fallback.data<std::string>()[0] = default_string_;
    return Status::Ok();
  }

  std::vector<Table> tables_;
  std::string default_string_;
  int64_t default_int_ = -1;
  float default_float_ = -0.0f;
};

}  // namespace

ONYX_REGISTER_KERNEL("ai.onnx.ml", "LabelEncoder", 1, kLatestOpset, LabelEncoderKernel);

}  // namespace onyx
