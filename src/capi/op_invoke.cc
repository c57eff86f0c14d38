// "A custom op calls a built-in op": operator attributes (OrtOpAttr: CreateOpAttr, ReadOpAttr,
// ReleaseOpAttr) and operators made from them (OrtOp: CreateOp, InvokeOp, ReleaseOp).
//
// Contracts:
// - CreateOpAttr(name, data, len, type): INT reads one int64_t and FLOAT one float from `data`
//   (len is not read for them, as in ONNX Runtime); INTS reads `len` int64_t, FLOATS `len`
//   floats; STRING reads exactly `len` bytes (no NUL needed; data may be null when len is 0),
//   as ONNX Runtime 1.30 does; STRINGS reads `len` pointers to NUL-terminated strings. A null
//   name or out, a null data where something is to be read, a negative len or a null string:
//   INVALID_ARGUMENT. GRAPH and TENSOR attributes: NOT_IMPLEMENTED (ORT makes neither here);
//   any other type value: INVALID_ARGUMENT. The type is read as an int (a C caller may pass
//   any value).
// - ReadOpAttr(attr, type, data, len, out): *out is always set to the bytes the value takes:
//   FLOAT 4, INT 8 (an int64_t), FLOATS 4 and INTS 8 per element, STRING its bytes and no NUL
//   (ONNX Runtime 1.30 neither counts nor writes one), STRINGS each string followed by a NUL,
//   back to back (ONNX Runtime's layouts). `len` below that (a size query with null data and
//   len 0 included) is INVALID_ARGUMENT with *out set, as ORT answers it; an empty list or
//   string needs 0 bytes and succeeds. Asking for another type than the attribute's is
//   INVALID_ARGUMENT (ORT would read an unset field).
// - CreateOp(info, op, domain, version, type constraints, attributes, input_count,
//   output_count): an operator of onyx's CPU kernels. `version` is used as the opset of
//   `domain` ("" or "ai.onnx" for ONNX's ops); INVALID_ARGUMENT when onyx has no CPU kernel
//   for the op at that opset, for a version below 1, negative input or output counts (at
//   least one output), a null or repeated attribute, or a bad type constraint. The type
//   constraints are checked (a name and a known element type each) and kept, but do not
//   choose the kernel: onyx's kernels dispatch on the types of the inputs InvokeOp is given.
//   The attributes are copied: the OrtOpAttrs may be released at once.
// - InvokeOp(context, op, inputs, input_count, outputs, output_count): runs the op on the CPU
//   as a one-node model (a Session of onyx's), made on the first call with the inputs'
//   element types and ranks and kept for the next calls with the same ones (up to
//   kMaxSessions per op, the oldest going first). Counts must equal CreateOp's; a null input
//   is an omitted optional input; inputs are host tensors (other values: INVALID_ARGUMENT,
//   device tensors: NOT_IMPLEMENTED). Each output slot must be a caller's OrtValue: a tensor
//   there (KernelContext_GetOutput's, say) is written in place and must have the dtype and
//   shape the op produces (else INVALID_ARGUMENT, nothing written past it); an OrtValue that
//   holds nothing takes the result. A null slot is INVALID_ARGUMENT. The calling thread's
//   intra-op thread count is what it was when InvokeOp returns (the inner run sets its own).
//   One OrtOp may be invoked from several threads at once.
#include <algorithm>
#include <cstring>
#include <deque>

#include "capi/custom_ops.h"
#include "capi/generated/api_declarations.h"
#include "core/parallel.h"
#include "kernels/kernel.h"

struct OrtOpAttr {
  onyx::ir::Attribute attr;
};

struct OrtOp {
  std::string op_type, domain;  // domain "" for ai.onnx
  int64_t version = 0;
  std::vector<std::pair<std::string, ONNXTensorElementDataType>> type_constraints;  // kept, see above
  std::map<std::string, onyx::ir::Attribute> attributes;
  int input_count = 0, output_count = 0;
  int log_level = 2;
  // Sessions by input signature, oldest first.
  struct Entry {
    std::vector<std::pair<int, int64_t>> signature;  // per input: dtype (-1 omitted), rank
    std::shared_ptr<const onyx::Session> session;
  };
  mutable std::mutex mu;
  mutable std::deque<Entry> sessions;
};

namespace onyx::capi {
namespace {

constexpr size_t kMaxSessions = 8;

const char* attr_type_name(ir::Attribute::Type t) {
  using T = ir::Attribute::Type;
  switch (t) {
    case T::kFloat: return "FLOAT";
    case T::kInt: return "INT";
    case T::kString: return "STRING";
    case T::kFloats: return "FLOATS";
    case T::kInts: return "INTS";
    case T::kStrings: return "STRINGS";
    case T::kTensor: return "TENSOR";
    case T::kGraph: return "GRAPH";
    default: return "another type";
  }
}

}  // namespace

OrtStatus* ORT_API_CALL CreateOpAttr(const char* name, const void* data, int len, OrtOpAttrType type,
                                     OrtOpAttr** op_attr) {
  return guarded("CreateOpAttr", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(op_attr, "CreateOpAttr");
    *op_attr = nullptr;
    ONYX_CAPI_REQUIRE(name, "CreateOpAttr");
    if (len < 0) return make_status(ORT_INVALID_ARGUMENT, "CreateOpAttr: len is " + std::to_string(len));
    const int kind = as_int(type);
    auto made = std::make_unique<OrtOpAttr>();
    ir::Attribute& a = made->attr;
    a.name = name;
    using T = ir::Attribute::Type;
    const bool reads_data = kind == ORT_OP_ATTR_INT || kind == ORT_OP_ATTR_FLOAT || len > 0;
    if (reads_data && (kind >= ORT_OP_ATTR_INT && kind <= ORT_OP_ATTR_STRINGS)) ONYX_CAPI_REQUIRE(data, "CreateOpAttr");
    switch (kind) {
      case ORT_OP_ATTR_INT:
        a.type = T::kInt;
        std::memcpy(&a.i, data, sizeof(int64_t));
        break;
      case ORT_OP_ATTR_FLOAT:
        a.type = T::kFloat;
        std::memcpy(&a.f, data, sizeof(float));
        break;
      case ORT_OP_ATTR_INTS:
        a.type = T::kInts;
        a.ints.resize(size_t(len));
        if (len) std::memcpy(a.ints.data(), data, size_t(len) * sizeof(int64_t));
        break;
      case ORT_OP_ATTR_FLOATS:
        a.type = T::kFloats;
        a.floats.resize(size_t(len));
        if (len) std::memcpy(a.floats.data(), data, size_t(len) * sizeof(float));
        break;
      case ORT_OP_ATTR_STRING:
        a.type = T::kString;
        if (len) a.s.assign(static_cast<const char*>(data), size_t(len));
        break;
      case ORT_OP_ATTR_STRINGS: {
        a.type = T::kStrings;
        const auto* strings = static_cast<const char* const*>(data);
        for (int j = 0; j < len; ++j) {
          if (!strings[j])
            return make_status(ORT_INVALID_ARGUMENT, "CreateOpAttr: string " + std::to_string(j) + " of '" +
                                                         std::string(name) + "' is null");
          a.strings.emplace_back(strings[j]);
        }
        break;
      }
      case ORT_OP_ATTR_GRAPH:
      case ORT_OP_ATTR_TENSOR:
        return make_status(ORT_NOT_IMPLEMENTED, std::string("CreateOpAttr: ") +
                                                    (kind == ORT_OP_ATTR_GRAPH ? "GRAPH" : "TENSOR") +
                                                    " attributes are not supported (attribute '" + name + "')");
      default:
        return make_status(ORT_INVALID_ARGUMENT,
                           "CreateOpAttr: attribute type " + std::to_string(kind) + " of '" + name + "' is not valid");
    }
    *op_attr = made.release();
    return nullptr;
  });
}

void ORT_API_CALL ReleaseOpAttr(OrtOpAttr* input) { delete input; }

OrtStatus* ORT_API_CALL ReadOpAttr(const OrtOpAttr* op_attr, OrtOpAttrType type, void* data, size_t len, size_t* out) {
  return guarded("ReadOpAttr", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(out, "ReadOpAttr");
    *out = 0;
    ONYX_CAPI_REQUIRE(op_attr, "ReadOpAttr");
    const ir::Attribute& a = op_attr->attr;
    using T = ir::Attribute::Type;
    const int kind = as_int(type);
    T wanted = T::kUndefined;
    switch (kind) {
      case ORT_OP_ATTR_INT: wanted = T::kInt; break;
      case ORT_OP_ATTR_INTS: wanted = T::kInts; break;
      case ORT_OP_ATTR_FLOAT: wanted = T::kFloat; break;
      case ORT_OP_ATTR_FLOATS: wanted = T::kFloats; break;
      case ORT_OP_ATTR_STRING: wanted = T::kString; break;
      case ORT_OP_ATTR_STRINGS: wanted = T::kStrings; break;
      default:
        return make_status(ORT_INVALID_ARGUMENT, "ReadOpAttr: attribute type " + std::to_string(kind) +
                                                     " cannot be read (INT, INTS, FLOAT, FLOATS, STRING, STRINGS can)");
    }
    if (a.type != wanted)
      return make_status(ORT_INVALID_ARGUMENT, "ReadOpAttr: attribute '" + a.name + "' is " + attr_type_name(a.type) +
                                                   ", not " + attr_type_name(wanted));
    // The bytes, laid out as ORT lays them out.
    std::string bytes;
    switch (a.type) {
      case T::kInt: bytes.assign(reinterpret_cast<const char*>(&a.i), sizeof a.i); break;
      case T::kFloat: bytes.assign(reinterpret_cast<const char*>(&a.f), sizeof a.f); break;
      case T::kInts:
        if (!a.ints.empty())
          bytes.assign(reinterpret_cast<const char*>(a.ints.data()), a.ints.size() * sizeof(int64_t));
        break;
      case T::kFloats:
        if (!a.floats.empty())
          bytes.assign(reinterpret_cast<const char*>(a.floats.data()), a.floats.size() * sizeof(float));
        break;
      case T::kString: bytes = a.s; break;
      default:
        for (const std::string& s : a.strings) bytes += s + '\0';
        break;
    }
    *out = bytes.size();
    if (len < bytes.size())
      return make_status(ORT_INVALID_ARGUMENT, "ReadOpAttr: attribute '" + a.name + "' takes " +
                                                   std::to_string(bytes.size()) + " bytes, the buffer holds " +
                                                   std::to_string(len));
    if (bytes.empty()) return nullptr;
    ONYX_CAPI_REQUIRE(data, "ReadOpAttr");
    std::memcpy(data, bytes.data(), bytes.size());
    return nullptr;
  });
}

OrtStatus* ORT_API_CALL CreateOp(const OrtKernelInfo* info, const char* op_name, const char* domain, int version,
                                 const char** type_constraint_names,
                                 const ONNXTensorElementDataType* type_constraint_values, int type_constraint_count,
                                 const OrtOpAttr* const* attr_values, int attr_count, int input_count,
                                 int output_count, OrtOp** ort_op) {
  return guarded("CreateOp", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(ort_op, "CreateOp");
    *ort_op = nullptr;
    ONYX_CAPI_REQUIRE(info, "CreateOp");
    ONYX_CAPI_REQUIRE(op_name, "CreateOp");
    auto op = std::make_unique<OrtOp>();
    op->op_type = op_name;
    op->domain = domain ? domain : "";
    if (op->domain == "ai.onnx") op->domain.clear();
    const std::string label = (op->domain.empty() ? "" : op->domain + ":") + op->op_type;
    if (version < 1)
      return make_status(ORT_INVALID_ARGUMENT, "CreateOp: version " + std::to_string(version) + " of " + label);
    if (input_count < 0 || output_count < 1)
      return make_status(ORT_INVALID_ARGUMENT, "CreateOp: " + label + " with " + std::to_string(input_count) +
                                                   " inputs and " + std::to_string(output_count) +
                                                   " outputs (at least one output)");
    if (type_constraint_count < 0 || attr_count < 0)
      return make_status(ORT_INVALID_ARGUMENT, "CreateOp: a negative type constraint or attribute count");
    if (type_constraint_count > 0) {
      ONYX_CAPI_REQUIRE(type_constraint_names, "CreateOp");
      ONYX_CAPI_REQUIRE(type_constraint_values, "CreateOp");
    }
    for (int i = 0; i < type_constraint_count; ++i) {
      const int t = as_int(type_constraint_values[i]);
      if (!type_constraint_names[i] || t <= ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED ||
          t > ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16)
        return make_status(ORT_INVALID_ARGUMENT, "CreateOp: type constraint " + std::to_string(i) + " of " + label +
                                                     " has a null name or an unknown element type (" +
                                                     std::to_string(t) + ")");
      op->type_constraints.emplace_back(type_constraint_names[i], ONNXTensorElementDataType(t));
    }
    if (attr_count > 0) ONYX_CAPI_REQUIRE(attr_values, "CreateOp");
    for (int i = 0; i < attr_count; ++i) {
      if (!attr_values[i])
        return make_status(ORT_INVALID_ARGUMENT, "CreateOp: attribute " + std::to_string(i) + " of " + label + " is null");
      const ir::Attribute& a = attr_values[i]->attr;
      if (!op->attributes.emplace(a.name, a).second)
        return make_status(ORT_INVALID_ARGUMENT, "CreateOp: attribute '" + a.name + "' of " + label + " is given twice");
    }
    if (!KernelRegistry::global().find("CPU", op->domain, op->op_type, version))
      return make_status(ORT_INVALID_ARGUMENT, "CreateOp: onyx has no CPU kernel for " + label + " at opset " +
                                                   std::to_string(version));
    op->version = version;
    op->input_count = input_count;
    op->output_count = output_count;
    op->log_level = info->logger.log_level;
    *ort_op = op.release();
    return nullptr;
  });
}

void ORT_API_CALL ReleaseOp(OrtOp* input) { delete input; }

namespace {

// The one-node model of `op` for inputs of these element types (-1: omitted) and ranks.
Result<std::shared_ptr<const Session>> make_session(const OrtOp& op, const std::vector<std::pair<int, int64_t>>& signature) {
  ir::Model model;
  model.ir_version = 8;
  model.opsets[op.domain] = op.version;
  ir::Node node;
  node.name = "invoked_" + op.op_type;
  node.op_type = op.op_type;
  node.domain = op.domain;
  node.attributes = op.attributes;
  for (size_t i = 0; i < signature.size(); ++i) {
    if (signature[i].first < 0) {
      node.inputs.emplace_back();
      continue;
    }
    ir::ValueInfo in;
    in.name = "in" + std::to_string(i);
    in.type.kind = ir::TypeInfo::Kind::kTensor;
    in.type.elem_type = DataType(signature[i].first);
    in.type.shape.has_rank = true;
    in.type.shape.dims.resize(size_t(signature[i].second));
    node.inputs.push_back(in.name);
    model.graph.inputs.push_back(std::move(in));
  }
  for (int i = 0; i < op.output_count; ++i) {
    ir::ValueInfo out;
    out.name = "out" + std::to_string(i);
    node.outputs.push_back(out.name);
    model.graph.outputs.push_back(std::move(out));
  }
  model.graph.name = "invoke";
  model.graph.nodes.push_back(std::move(node));
  SessionOptions options;
  options.graph_optimization_level = 0;
  options.log_level = op.log_level;
  ONYX_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::from_loaded_model(model, options));
  return std::shared_ptr<const Session>(std::move(session));
}

Result<std::shared_ptr<const Session>> session_for(const OrtOp& op, const std::vector<std::pair<int, int64_t>>& signature) {
  std::lock_guard<std::mutex> lock(op.mu);
  for (const auto& e : op.sessions)
    if (e.signature == signature) return e.session;
  // Made under the lock: two threads with a new signature make it once.
  ONYX_ASSIGN_OR_RETURN(std::shared_ptr<const Session> session, make_session(op, signature));
  if (op.sessions.size() >= kMaxSessions) op.sessions.pop_front();
  op.sessions.push_back({signature, session});
  return session;
}

// `status` (an error) as an OrtStatus with ORT's code for it, its message after `what`.
OrtStatus* failed(const Status& status, const std::string& what) {
  return make_status(ort_code_of(status.code()), what + ": " + status.message());
}

// Puts the calling thread's intra-op thread count back as it was.
class KeepThreadCount {
 public:
  KeepThreadCount() : threads_(intra_op_threads()) {}
  ~KeepThreadCount() { set_intra_op_threads(threads_); }
  KeepThreadCount(const KeepThreadCount&) = delete;
  KeepThreadCount& operator=(const KeepThreadCount&) = delete;

 private:
  int threads_;
};

}  // namespace

OrtStatus* ORT_API_CALL InvokeOp(const OrtKernelContext* context, const OrtOp* ort_op, const OrtValue* const* input_values,
                                 int input_count, OrtValue* const* output_values, int output_count) {
  return guarded("InvokeOp", [&]() -> OrtStatus* {
    ONYX_CAPI_REQUIRE(context, "InvokeOp");
    ONYX_CAPI_REQUIRE(ort_op, "InvokeOp");
    const OrtOp& op = *ort_op;
    const std::string label = (op.domain.empty() ? "" : op.domain + ":") + op.op_type;
    if (input_count != op.input_count || output_count != op.output_count)
      return make_status(ORT_INVALID_ARGUMENT, "InvokeOp: " + label + " was made with " +
                                                   std::to_string(op.input_count) + " inputs and " +
                                                   std::to_string(op.output_count) + " outputs, is given " +
                                                   std::to_string(input_count) + " and " + std::to_string(output_count));
    if (input_count > 0) ONYX_CAPI_REQUIRE(input_values, "InvokeOp");
    ONYX_CAPI_REQUIRE(output_values, "InvokeOp");
    std::vector<std::pair<int, int64_t>> signature;
    for (int i = 0; i < input_count; ++i) {
      const OrtValue* v = input_values[i];
      if (!v) {
        signature.emplace_back(-1, 0);
        continue;
      }
      if (!v->value.is_tensor() || !v->value.tensor().defined())
        return make_status(ORT_INVALID_ARGUMENT, "InvokeOp: input " + std::to_string(i) + " of " + label + " is " +
                                                     v->value.describe() + ", not a tensor");
      if (!v->value.tensor().device().is_cpu())
        return make_status(ORT_NOT_IMPLEMENTED, "InvokeOp: input " + std::to_string(i) + " of " + label +
                                                    " lies on " + v->value.tensor().device().to_string() +
                                                    " (InvokeOp runs on the CPU)");
      signature.emplace_back(int(v->value.tensor().dtype()), int64_t(v->value.tensor().rank()));
    }
    for (int i = 0; i < output_count; ++i) {
      const OrtValue* v = output_values[i];
      if (!v)
        return make_status(ORT_INVALID_ARGUMENT, "InvokeOp: output slot " + std::to_string(i) + " of " + label +
                                                     " is null (pass an OrtValue, such as KernelContext_GetOutput's)");
      if (is_sparse(v) || (!v->value.is_none() && !(v->value.is_tensor() && v->value.tensor().defined())))
        return make_status(ORT_INVALID_ARGUMENT, "InvokeOp: output " + std::to_string(i) + " of " + label + " is " +
                                                     v->value.describe() + ", not a tensor");
      if (v->value.is_tensor() && !v->value.tensor().device().is_cpu())
        return make_status(ORT_NOT_IMPLEMENTED, "InvokeOp: output " + std::to_string(i) + " of " + label +
                                                    " lies on " + v->value.tensor().device().to_string() +
                                                    " (InvokeOp runs on the CPU)");
    }
    auto session = session_for(op, signature);
    if (!session.ok()) return failed(session.status(), "InvokeOp: making " + label);
    IoBinding binding(**session);
    for (int i = 0; i < input_count; ++i)
      if (input_values[i])
        if (Status st = binding.bind_input("in" + std::to_string(i), input_values[i]->value); !st.ok())
          return failed(st, "InvokeOp: " + label);
    for (int i = 0; i < output_count; ++i) {
      const std::string name = "out" + std::to_string(i);
      const Value& slot = output_values[i]->value;
      Status st = slot.is_tensor() ? binding.bind_output(name, slot.tensor()) : binding.bind_output(name);
      if (!st.ok()) return failed(st, "InvokeOp: " + label);
    }
    {
      KeepThreadCount keep;
      if (Status st = (*session)->run(binding); !st.ok()) return failed(st, "InvokeOp: " + label);
    }
    const std::vector<Value>& results = binding.outputs();
    for (int i = 0; i < output_count; ++i)
      if (output_values[i]->value.is_none()) output_values[i]->value = results[size_t(i)];
    return nullptr;
  });
}

}  // namespace onyx::capi
