#include "session/run_capture.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <shared_mutex>

#include "core/data_type.h"
#include "session/session.h"

namespace onyx {
namespace {

BindingSignature::Slot slot_of(const std::string& name, const Tensor& t) {
  return BindingSignature::Slot{name, t.device(), t.dtype(), t.shape(), t.raw_data()};
}

std::string describe(const BindingSignature::Slot& s) {
  if (!s.data) return "bound to " + s.device.to_string();
  char at[32];
  std::snprintf(at, sizeof at, "%p", s.data);
  return std::string(data_type_name(s.dtype)) + " " + shape_to_string(s.shape) + " at " + at + " on " +
         s.device.to_string();
}

std::string compare(const char* what, const std::vector<BindingSignature::Slot>& now,
                    const std::vector<BindingSignature::Slot>& recorded) {
  for (size_t i = 0; i < recorded.size(); ++i) {
    if (i >= now.size()) return std::string(what) + " '" + recorded[i].name + "' is no longer bound";
    if (now[i].name != recorded[i].name)
      return std::string(what) + "s differ: '" + now[i].name + "' is bound where '" + recorded[i].name + "' was";
    if (!(now[i] == recorded[i]))
      return std::string(what) + " '" + now[i].name + "' is " + describe(now[i]) + ", but was " + describe(recorded[i]);
  }
  if (now.size() > recorded.size()) return std::string(what) + " '" + now[recorded.size()].name + "' was not bound";
  return "";
}

}  // namespace

BindingSignature BindingSignature::of(const IoBinding& binding) {
  BindingSignature s;
  for (const auto& [name, value] : binding.inputs())
    s.inputs.push_back(value.is_tensor() ? slot_of(name, value.tensor()) : Slot{name, Device{}, DataType::kUndefined, {}, nullptr});
  for (const IoBinding::BoundOutput& out : binding.bound_outputs())
    s.outputs.push_back(out.buffer.defined() ? slot_of(out.name, out.buffer)
                                             : Slot{out.name, out.device, DataType::kUndefined, {}, nullptr});
  return s;
}

std::string BindingSignature::difference_from(const BindingSignature& recorded) const {
  if (std::string d = compare("input", inputs, recorded.inputs); !d.empty()) return d;
  return compare("output", outputs, recorded.outputs);
}

Result<int64_t> RunCaptures::graph_id(const RunOptions& options) {
  auto it = options.config.find(kGraphIdKey);
  if (it == options.config.end()) return int64_t(0);
  const std::string& v = it->second;
  char* end = nullptr;
  errno = 0;
  const long long id = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0' || errno != 0)
    return invalid_argument("run config entry ", kGraphIdKey, "='", v, "' is not an integer (-1 runs without a graph)");
  return int64_t(id < 0 ? -1 : id);
}

RunCaptures::Graph& RunCaptures::graph(int64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<Graph>& g = graphs_[id];
  if (!g) g = std::make_unique<Graph>();
  return *g;
}

// Session's side: the stages of one graph id (run_capture.h).
Status Session::run_recorded(IoBinding& binding, const RunOptions& options, int64_t id) const {
  RunCaptures::Graph& g = captures_->graph(id);
  std::lock_guard<std::mutex> graph_lock(g.mu);
  if (g.stage == RunCaptures::Stage::kFailed) return g.failure;
  ExecutionProvider& provider = captures_->provider();
  const std::string what = provider.name() + " graph " + std::to_string(id) + " (run config " +
                           RunCaptures::kGraphIdKey + ")";

  BindingSignature signature = BindingSignature::of(binding);
  for (const BindingSignature::Slot& in : signature.inputs)
    if (!in.data || in.device != provider.device())
      return invalid_argument(what, ": input '", in.name, "' is ", in.data ? "on " + in.device.to_string() : "not a tensor",
                              "; a recorded run takes every input bound as a tensor on ", provider.device().to_string(),
                              " (run with ", RunCaptures::kGraphIdKey, " -1 to run without recording)");

  if (g.stage == RunCaptures::Stage::kReplay) {
    if (std::string d = signature.difference_from(g.signature); !d.empty())
      return invalid_argument(what, " was recorded with another binding: ", d,
                              ". Write new values into the recorded buffers, or use another ", RunCaptures::kGraphIdKey);
    {  // a wait for the stream while another thread records on it would break that recording
      std::shared_lock<std::shared_mutex> runs(runs_mu_);
      ONYX_RETURN_IF_ERROR(g.recording->replay().with_context("while replaying " + what));
      ONYX_RETURN_IF_ERROR(synchronize_devices(options));
    }
    binding.values_ = g.outputs;
    binding.copied_ = g.copied_outputs;
    return Status::Ok();
  }

  if (g.stage == RunCaptures::Stage::kFirstRun) {  // plans and caches are made outside the recording
    ONYX_RETURN_IF_ERROR(run_unrecorded(binding, options));
    g.stage = RunCaptures::Stage::kRecord;
    return Status::Ok();
  }

  // kRecord: no other run of this session may queue work while the provider records.
  if (profiler_)
    return invalid_argument(what, ": profiling waits for the device after every kernel, which a recording cannot "
                            "hold; turn profiling off or run with ", RunCaptures::kGraphIdKey, " -1");
  std::vector<Value> values;
  size_t copies = 0;
  {
    std::unique_lock<std::shared_mutex> runs(runs_mu_);
    ONYX_RETURN_IF_ERROR(provider.begin_capture());
    const Status ran = run_bound(binding, options, values, copies);
    Result<std::unique_ptr<CapturedRun>> recording = provider.end_capture(ran.ok());
    Status failed = !ran.ok() ? ran : !recording.ok() ? recording.status() : Status::Ok();
    if (!failed.ok()) {
      if (failed.code() == StatusCode::kCancelled) return failed;  // stopped on request: record next time
      g.stage = RunCaptures::Stage::kFailed;
      g.failure = std::move(failed).with_context("while recording " + what + "; run with " + RunCaptures::kGraphIdKey +
                                                 " -1 to run it without recording");
      return g.failure;
    }
    g.recording = std::move(recording).value();
    g.signature = std::move(signature);
    g.outputs = values;
    g.copied_outputs = copies;
    g.stage = RunCaptures::Stage::kReplay;  // kept even if this replay finds bad input (an index)
    ONYX_RETURN_IF_ERROR(g.recording->replay().with_context("while replaying " + what));
    ONYX_RETURN_IF_ERROR(synchronize_devices(options));
  }
  binding.values_ = std::move(values);
  binding.copied_ = copies;
  return Status::Ok();
}

}  // namespace onyx
