// onyx run MODEL [--input NAME=FILE]... [--inputs-dir DIR] [--outputs-dir DIR] [--random-inputs]
//               [--free-dim NAME=VALUE]... [--free-dim-denotation DATA_BATCH=VALUE]... [--profile FILE]
// Runs a model once and prints its outputs and the time taken. FILE is .npy or an ONNX
// TensorProto/SequenceProto/OptionalProto .pb; DIR holds input_K.pb in graph-input order.
// --profile writes a Chrome-trace JSON of the session (load, planning, the run, each kernel).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "cli_args.h"
#include "commands.h"
#include "npy.h"
#include "onnx/loader.h"
#include "session/session.h"

namespace onyx::cli {
namespace fs = std::filesystem;
namespace {

struct RunArgs {
  std::string model;
  std::vector<std::pair<std::string, std::string>> inputs;
  std::string inputs_dir, outputs_dir;
  bool random_inputs = false;
  std::string profile;
  SessionOptions options;
};

Result<RunArgs> parse(const std::vector<std::string>& args) {
  RunArgs r;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto next = [&]() -> Result<std::string> {
      if (i + 1 >= args.size()) return invalid_argument(a, " needs a value");
      return args[++i];
    };
    if (a == "--input") {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      const size_t eq = v.find('=');
      if (eq == std::string::npos) return invalid_argument("--input takes NAME=FILE, got '", v, "'");
      r.inputs.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if (a == "--inputs-dir") {
      ONYX_ASSIGN_OR_RETURN(r.inputs_dir, next());
    } else if (a == "--outputs-dir") {
      ONYX_ASSIGN_OR_RETURN(r.outputs_dir, next());
    } else if (a == "--random-inputs") {
      r.random_inputs = true;
    } else if (a == "--profile") {
      ONYX_ASSIGN_OR_RETURN(r.profile, next());
    } else if (is_free_dim_flag(a)) {
      ONYX_ASSIGN_OR_RETURN(std::string v, next());
      ONYX_RETURN_IF_ERROR(parse_free_dim_flag(a, v, r.options).status());
    } else if (!a.empty() && a[0] == '-') {
      return invalid_argument("unknown option '", a, "'");
    } else if (r.model.empty()) {
      r.model = a;
    } else {
      return invalid_argument("unexpected argument '", a, "'");
    }
  }
  if (r.model.empty()) return invalid_argument("no model given");
  return r;
}

// A random tensor for a declared input: symbolic dims become 1.
Result<Value> random_input(const ir::ValueInfo& vi, std::mt19937& rng) {
  if (vi.type.kind != ir::TypeInfo::Kind::kTensor)
    return not_implemented("--random-inputs cannot make a value for non-tensor input '", vi.name, "'");
  Shape shape;
  for (const Dim& d : vi.type.shape.dims) shape.push_back(d.value ? *d.value : 1);
  ONYX_ASSIGN_OR_RETURN(Tensor t, Tensor::create(vi.type.elem_type, shape));
  std::uniform_real_distribution<float> uni(0.f, 1.f);
  for (int64_t i = 0; i < t.numel(); ++i) {
    const float v = uni(rng);
    switch (t.dtype()) {
      case DataType::kFloat: t.data<float>()[i] = v; break;
      case DataType::kDouble: t.data<double>()[i] = v; break;
      case DataType::kFloat16: t.data<Float16>()[i] = Float16(v); break;
      case DataType::kInt64: t.data<int64_t>()[i] = int64_t(v * 10); break;
      case DataType::kInt32: t.data<int32_t>()[i] = int32_t(v * 10); break;
      case DataType::kUInt8: t.data<uint8_t>()[i] = uint8_t(v * 255); break;
      case DataType::kInt8: t.data<int8_t>()[i] = int8_t(v * 255 - 128); break;
      case DataType::kBool: t.data<bool>()[i] = v > 0.5f; break;
      default: return not_implemented("--random-inputs does not fill ", data_type_name(t.dtype()), " inputs");
    }
  }
  return Value(std::move(t));
}

Result<Value> read_input(const std::string& path, const ir::TypeInfo& type) {
  if (fs::path(path).extension() == ".npy") {
    ONYX_ASSIGN_OR_RETURN(Tensor t, read_npy(path));
    return Value(std::move(t));
  }
  return onnx_format::load_value_file(path, type);
}

void print_value(const std::string& name, const Value& v) {
  std::printf("%s: %s", name.c_str(), v.describe().c_str());
  if (v.is_tensor() && v.tensor().dtype() != DataType::kString && v.tensor().dtype() != DataType::kComplex64 &&
      v.tensor().dtype() != DataType::kComplex128) {
    const Tensor& t = v.tensor();
    std::printf(" = [");
    const int64_t shown = std::min<int64_t>(t.numel(), 10);
    for (int64_t i = 0; i < shown; ++i) std::printf("%s%.6g", i ? ", " : "", t.get_double(i));
    std::printf("%s]", t.numel() > shown ? ", ..." : "");
  } else if (v.is_tensor() && v.tensor().dtype() == DataType::kString && v.tensor().numel() > 0) {
    std::printf(" = [\"%s\"%s]", v.tensor().data<std::string>()[0].c_str(), v.tensor().numel() > 1 ? ", ..." : "");
  }
  std::printf("\n");
}

Status run(const RunArgs& a) {
  const auto t0 = std::chrono::steady_clock::now();
  SessionOptions options = a.options;
  if (!a.profile.empty()) {
    options.enable_profiling = true;
    options.profile_file_prefix = a.profile + ".tmp";  // same folder, so the rename below stays on one filesystem
  }
  ONYX_ASSIGN_OR_RETURN(auto session, Session::load_file(a.model, options));
  const auto t1 = std::chrono::steady_clock::now();
  std::vector<std::pair<std::string, Value>> feeds;
  std::vector<const ir::ValueInfo*> feedable;
  for (const auto& vi : session->inputs())
    if (!session->input_has_default(vi.name)) feedable.push_back(&vi);
  auto type_of = [&](const std::string& name) -> const ir::TypeInfo* {
    for (const auto* vi : feedable)
      if (vi->name == name) return &vi->type;
    return nullptr;
  };
  for (const auto& [name, path] : a.inputs) {
    const ir::TypeInfo* type = type_of(name);
    if (!type) return not_found("the model has no input named '", name, "'");
    ONYX_ASSIGN_OR_RETURN(Value v, read_input(path, *type));
    feeds.emplace_back(name, std::move(v));
  }
  if (!a.inputs_dir.empty()) {
    for (size_t k = 0; k < feedable.size(); ++k) {
      const fs::path f = fs::path(a.inputs_dir) / ("input_" + std::to_string(k) + ".pb");
      if (!fs::exists(f)) break;
      ONYX_ASSIGN_OR_RETURN(Value v, onnx_format::load_value_file(f.string(), feedable[k]->type));
      feeds.emplace_back(feedable[k]->name, std::move(v));
    }
  }
  if (a.random_inputs) {
    std::mt19937 rng(0);
    for (const auto* vi : feedable) {
      bool given = false;
      for (const auto& f : feeds) given |= f.first == vi->name;
      if (given) continue;
      ONYX_ASSIGN_OR_RETURN(Value v, random_input(*vi, rng));
      feeds.emplace_back(vi->name, std::move(v));
    }
  }
  const auto t2 = std::chrono::steady_clock::now();
  auto run_result = session->run(feeds);
  const auto t3 = std::chrono::steady_clock::now();
  if (!a.profile.empty()) {  // written even when the run failed: it shows how far it got
    ONYX_ASSIGN_OR_RETURN(std::string written, session->end_profiling());
    std::error_code ec;
    fs::rename(written, a.profile, ec);
    if (ec) return invalid_argument("cannot move the profile '", written, "' to '", a.profile, "': ", ec.message());
    std::fprintf(stderr, "profile: %s\n", a.profile.c_str());
  }
  ONYX_ASSIGN_OR_RETURN(auto outputs, std::move(run_result));
  for (size_t k = 0; k < outputs.size(); ++k) print_value(session->outputs()[k].name, outputs[k]);
  if (!a.outputs_dir.empty()) {
    std::error_code ec;
    fs::create_directories(a.outputs_dir, ec);
    for (size_t k = 0; k < outputs.size(); ++k) {
      const std::string base = (fs::path(a.outputs_dir) / ("output_" + std::to_string(k))).string();
      ONYX_ASSIGN_OR_RETURN(std::string bytes, onnx_format::serialize_value(outputs[k], session->outputs()[k].name));
      std::ofstream(base + ".pb", std::ios::binary) << bytes;
      if (outputs[k].is_tensor() && outputs[k].tensor().dtype() != DataType::kString)
        ONYX_RETURN_IF_ERROR(write_npy(outputs[k].tensor(), base + ".npy"));
    }
  }
  auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::printf("load %.2f ms, run %.3f ms\n", ms(t0, t1), ms(t2, t3));
  return Status::Ok();
}

}  // namespace

int run_command(const std::vector<std::string>& args) {
  auto parsed = parse(args);
  if (!parsed.ok()) {
    std::fprintf(stderr, "onyx run: %s\nusage: onyx run MODEL [--input NAME=FILE]... [--inputs-dir DIR] "
                 "[--outputs-dir DIR] [--random-inputs]\n                %s [--profile FILE]\n",
                 parsed.status().message().c_str(), kFreeDimUsage);
    return 2;
  }
  Status s = run(*parsed);
  if (!s.ok()) {
    std::fprintf(stderr, "onyx run: %s\n", s.to_string().c_str());
    return 1;
  }
  return 0;
}

}  // namespace onyx::cli
