// A structure-aware mutator for the model targets (load_fuzzer, run_fuzzer): it parses the
// input as a ModelProto, changes one field found through protobuf reflection, and serializes
// it again, so that most mutants are valid protobuf that reach the checker, the optimiser
// and the kernels instead of dying in the parser. Byte-level mutation (libFuzzer's own) is
// still used for a quarter of the mutants and for inputs that do not parse.
//
// What one mutation does, on a field picked at random from the whole message tree:
//   numbers: 0, +-1, a small step, a power of two, the type's extremes; floats also NaN and
//            infinities; enums any declared value (or an undeclared one, rarely)
//   strings: another string of the same model (so names rewire the graph), an op type onyx
//            has a kernel for, or a cut/extended copy; bytes (raw_data) resized
//   repeated fields: an element removed, duplicated or changed
//   messages: an unset sub-message set to its defaults
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <onnx/onnx_pb.h>

#include "kernels/kernel.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace onyx::fuzz {

class ModelMutator {
 public:
  explicit ModelMutator(unsigned seed) : rng_(seed) {}

  // Mutates the model in data[0, size) in place; returns the new size (at most max_size).
  size_t mutate(uint8_t* data, size_t size, size_t max_size) {
    onnx::ModelProto model;
    if (pick(4) == 0 || !model.ParseFromArray(data, int(size))) return LLVMFuzzerMutate(data, size, max_size);
    collect(model, 0);
    if (slots_.empty()) return LLVMFuzzerMutate(data, size, max_size);
    const int rounds = 1 + int(pick(3));
    for (int r = 0; r < rounds; ++r) {
      Slot slot = slots_[pick(slots_.size())];
      change(slot);
      slots_.clear();
      collect(model, 0);  // the change may have added or removed fields
      if (slots_.empty()) break;
    }
    std::string out;
    if (!model.SerializeToString(&out) || out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
    std::copy(out.begin(), out.end(), data);
    return out.size();
  }

 private:
  using Message = google::protobuf::Message;
  using Field = google::protobuf::FieldDescriptor;
  struct Slot {
    Message* message;
    const Field* field;
  };

  size_t pick(size_t n) { return n ? size_t(rng_() % n) : 0; }

  // Every field of every message reachable from `m` (set or not), and the model's strings.
  void collect(Message& m, int depth) {
    if (depth > 24) return;
    const auto* desc = m.GetDescriptor();
    const auto* refl = m.GetReflection();
    for (int i = 0; i < desc->field_count(); ++i) {
      const Field* f = desc->field(i);
      slots_.push_back({&m, f});
      if (f->cpp_type() == Field::CPPTYPE_MESSAGE) {
        if (f->is_repeated()) {
          for (int k = 0; k < refl->FieldSize(m, f); ++k) collect(*refl->MutableRepeatedMessage(&m, f, k), depth + 1);
        } else if (refl->HasField(m, f)) {
          collect(*refl->MutableMessage(&m, f), depth + 1);
        }
      } else if (f->cpp_type() == Field::CPPTYPE_STRING && f->type() == Field::TYPE_STRING && strings_.size() < 4096) {
        if (f->is_repeated()) {
          for (int k = 0; k < refl->FieldSize(m, f); ++k) strings_.push_back(refl->GetRepeatedString(m, f, k));
        } else if (refl->HasField(m, f)) {
          strings_.push_back(refl->GetString(m, f));
        }
      }
    }
  }

  template <typename T>
  T integer(T old) {
    using U = std::make_unsigned_t<T>;  // wrapping arithmetic: no overflow in the mutator itself
    switch (pick(9)) {
      case 0: return 0;
      case 1: return T(1);
      case 2: return T(-1);
      case 3: return T(U(old) + U(pick(5)) - U(2));
      case 4: return T(U(1) << pick(sizeof(T) * 8 - 1));
      case 5: return std::numeric_limits<T>::max();
      case 6: return std::numeric_limits<T>::min();
      case 7: return T(U(old) * U(2));
      default: return T(U(rng_()));
    }
  }
  template <typename T>
  T real(T old) {
    switch (pick(8)) {
      case 0: return 0;
      case 1: return T(-old);
      case 2: return std::numeric_limits<T>::quiet_NaN();
      case 3: return std::numeric_limits<T>::infinity();
      case 4: return -std::numeric_limits<T>::infinity();
      case 5: return old * 2;
      case 6: return std::numeric_limits<T>::denorm_min();
      default: return T(int64_t(pick(17)) - 8) / 4;
    }
  }
  std::string text(const std::string& old, bool bytes) {
    if (bytes) {  // raw_data and the like: resized, keeping what fits
      std::string s = old;
      s.resize(pick(2) ? pick(old.size() * 2 + 16) : old.size() + (pick(2) ? 4 : 0), '\0');
      return s;
    }
    switch (pick(5)) {
      case 0:
      case 1: return strings_.empty() ? old : strings_[pick(strings_.size())];
      case 2: {
        const auto& defs = KernelRegistry::global().all();
        return defs.empty() ? old : defs[pick(defs.size())].op;
      }
      case 3: return old.substr(0, pick(old.size() + 1));
      default: return old + old;
    }
  }

  // One value of `f` as a mutation of `m`'s current one (repeated: element k).
  void change_value(Message& m, const Field* f, int k) {
    const auto* refl = m.GetReflection();
    const bool rep = f->is_repeated();
#define ONYX_MUTATE_SCALAR(CPP, NAME, FN)                                        \
  {                                                                              \
    CPP v = rep ? refl->GetRepeated##NAME(m, f, k) : refl->Get##NAME(m, f);     \
    v = FN(v);                                                                   \
    rep ? refl->SetRepeated##NAME(&m, f, k, v) : refl->Set##NAME(&m, f, v);     \
    break;                                                                       \
  }
    switch (f->cpp_type()) {
      case Field::CPPTYPE_INT32: ONYX_MUTATE_SCALAR(int32_t, Int32, integer<int32_t>)
      case Field::CPPTYPE_INT64: ONYX_MUTATE_SCALAR(int64_t, Int64, integer<int64_t>)
      case Field::CPPTYPE_UINT32: ONYX_MUTATE_SCALAR(uint32_t, UInt32, integer<uint32_t>)
      case Field::CPPTYPE_UINT64: ONYX_MUTATE_SCALAR(uint64_t, UInt64, integer<uint64_t>)
      case Field::CPPTYPE_FLOAT: ONYX_MUTATE_SCALAR(float, Float, real<float>)
      case Field::CPPTYPE_DOUBLE: ONYX_MUTATE_SCALAR(double, Double, real<double>)
      case Field::CPPTYPE_BOOL: ONYX_MUTATE_SCALAR(bool, Bool, !)
      case Field::CPPTYPE_ENUM: {
        const auto* e = f->enum_type();
        const int v = pick(16) == 0 ? int(integer<int32_t>(0)) : e->value(int(pick(size_t(e->value_count()))))->number();
        rep ? refl->SetRepeatedEnumValue(&m, f, k, v) : refl->SetEnumValue(&m, f, v);
        break;
      }
      case Field::CPPTYPE_STRING: {
        const bool bytes = f->type() == Field::TYPE_BYTES;
        const std::string v = text(rep ? refl->GetRepeatedString(m, f, k) : refl->GetString(m, f), bytes);
        rep ? refl->SetRepeatedString(&m, f, k, v) : refl->SetString(&m, f, v);
        break;
      }
      case Field::CPPTYPE_MESSAGE: break;  // sub-messages are mutated through their own fields
    }
#undef ONYX_MUTATE_SCALAR
  }

  void change(const Slot& slot) {
    Message& m = *slot.message;
    const Field* f = slot.field;
    const auto* refl = m.GetReflection();
    if (!f->is_repeated()) {
      if (f->cpp_type() == Field::CPPTYPE_MESSAGE) {
        if (refl->HasField(m, f) && pick(4) == 0) refl->ClearField(&m, f);
        else refl->MutableMessage(&m, f);
        return;
      }
      if (pick(8) == 0) {
        refl->ClearField(&m, f);
        return;
      }
      change_value(m, f, 0);
      return;
    }
    const int n = refl->FieldSize(m, f);
    const size_t what = pick(4);
    if (n == 0 || what == 0) {  // add an element: a copy of one, or a default
      if (f->cpp_type() == Field::CPPTYPE_MESSAGE) {
        Message* added = refl->AddMessage(&m, f);
        if (n > 0) added->CopyFrom(refl->GetRepeatedMessage(m, f, int(pick(size_t(n)))));
        return;
      }
      switch (f->cpp_type()) {
        case Field::CPPTYPE_INT32: refl->AddInt32(&m, f, n ? refl->GetRepeatedInt32(m, f, 0) : 1); break;
        case Field::CPPTYPE_INT64: refl->AddInt64(&m, f, n ? refl->GetRepeatedInt64(m, f, 0) : 1); break;
        case Field::CPPTYPE_UINT32: refl->AddUInt32(&m, f, 1); break;
        case Field::CPPTYPE_UINT64: refl->AddUInt64(&m, f, 1); break;
        case Field::CPPTYPE_FLOAT: refl->AddFloat(&m, f, 1); break;
        case Field::CPPTYPE_DOUBLE: refl->AddDouble(&m, f, 1); break;
        case Field::CPPTYPE_BOOL: refl->AddBool(&m, f, true); break;
        case Field::CPPTYPE_ENUM: refl->AddEnumValue(&m, f, f->enum_type()->value(0)->number()); break;
        case Field::CPPTYPE_STRING: refl->AddString(&m, f, strings_.empty() ? "" : strings_[pick(strings_.size())]); break;
        default: break;
      }
      return;
    }
    if (what == 1) {  // remove the last element after swapping a random one there
      refl->SwapElements(&m, f, int(pick(size_t(n))), n - 1);
      refl->RemoveLast(&m, f);
      return;
    }
    if (what == 2 && n > 1) {
      refl->SwapElements(&m, f, int(pick(size_t(n))), int(pick(size_t(n))));
      return;
    }
    if (f->cpp_type() != Field::CPPTYPE_MESSAGE) change_value(m, f, int(pick(size_t(n))));
  }

  std::mt19937 rng_;
  std::vector<Slot> slots_;
  std::vector<std::string> strings_;
};

}  // namespace onyx::fuzz
