#include "session/profiler.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/json.h"

namespace onyx {
namespace {

std::string fixed3(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

// [{"float32":[1,3,224,224]}, ...]; sequences as {"seq<float32>":[length]}; none as {"none":[]}.
std::string type_shapes(const std::vector<const Value*>& values) {
  std::string s = "[";
  bool first = true;
  for (const Value* v : values) {
    if (!v) continue;
    if (!first) s += ",";
    first = false;
    if (v->is_tensor()) {
      s += "{" + json::quote(data_type_name(v->tensor().dtype())) + ":[";
      const Shape& shape = v->tensor().shape();
      for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
      s += "]}";
    } else if (v->is_sequence()) {
      s += "{" + json::quote(std::string("seq<") + data_type_name(v->sequence_elem_type()) + ">") + ":[" +
           std::to_string(v->sequence_items().size()) + "]}";
    } else {
      s += "{\"none\":[]}";
    }
  }
  return s + "]";
}

}  // namespace

int profile_thread_id() {
  static std::atomic<int> next{1};
  thread_local const int id = next.fetch_add(1);
  return id;
}

Profiler::Profiler(std::string file, ProfileClock::time_point epoch) : file_(std::move(file)), epoch_(epoch) {}

std::string Profiler::make_file_name(const std::string& prefix) {
  static std::mutex mutex;
  static std::set<std::string> used;
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d_%H-%M-%S", &local);
  const std::string base = prefix + "_" + stamp;
  std::lock_guard<std::mutex> lock(mutex);
  std::string name = base + ".json";
  std::error_code ec;
  for (int k = 2; used.count(name) || std::filesystem::exists(name, ec); ++k) name = base + "_" + std::to_string(k) + ".json";
  used.insert(name);
  return name;
}

void Profiler::session_event(const std::string& name, ProfileClock::time_point start, ProfileClock::time_point end,
                             std::string args) {
  if (!active()) return;
  ProfileEvent e;
  e.name = name;
  e.category = "Session";
  e.start_us = micros(start);
  e.duration_us = std::chrono::duration<double, std::micro>(end - start).count();
  e.thread = profile_thread_id();
  e.args = std::move(args);
  std::lock_guard<std::mutex> lock(mutex_);
  if (active()) events_.push_back(std::move(e));
}

void Profiler::add(std::vector<ProfileEvent>& events) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!active()) return;
  if (events_.empty()) {
    events_.swap(events);
  } else {
    events_.insert(events_.end(), std::make_move_iterator(events.begin()), std::make_move_iterator(events.end()));
  }
  events.clear();
}

Result<std::string> Profiler::end() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!active_.exchange(false)) return file_;
  const int pid = int(::getpid());
  // ONNX Runtime's form: a top-level JSON array, one complete ("X") event per line, so that
  // scripts iterate it (`for e in json.load(f)`) and Chrome's trace viewer reads it as is.
  std::string out = "[\n";
  for (size_t i = 0; i < events_.size(); ++i) {
    const ProfileEvent& e = events_[i];
    out += std::string("{\"cat\":\"") + e.category + "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(e.thread) +
           ",\"dur\":" + fixed3(e.duration_us) + ",\"ts\":" + fixed3(e.start_us) + ",\"ph\":\"X\",\"name\":" +
           json::quote(e.name) + ",\"args\":{" + e.args + "}}" + (i + 1 < events_.size() ? ",\n" : "\n");
  }
  out += "]\n";
  events_.clear();
  events_.shrink_to_fit();
  std::ofstream f(file_, std::ios::binary | std::ios::trunc);
  if (!f) return invalid_argument("cannot open profile file '", file_, "' for writing");
  f.write(out.data(), std::streamsize(out.size()));
  f.close();
  if (!f) return runtime_error("cannot write profile file '", file_, "'");
  return file_;
}

void RunProfile::node_event(const ir::Node& node, const std::string& graph_name, ProfileClock::time_point start,
                            const std::vector<const Value*>& inputs, const std::vector<Value*>& outputs,
                            const std::string& provider) {
  const auto end = ProfileClock::now();
  ProfileEvent e;
  e.name = node.name.empty() ? node.op_type : node.name;
  e.category = "Node";
  e.start_us = profiler_.micros(start);
  e.duration_us = std::chrono::duration<double, std::micro>(end - start).count();
  e.thread = profile_thread_id();
  const std::string op = node.domain.empty() ? node.op_type : node.domain + ":" + node.op_type;
  std::vector<const Value*> outs(outputs.begin(), outputs.end());
  e.args = "\"op_name\":" + json::quote(op) + ",\"node_name\":" + json::quote(node.name) +
           ",\"provider\":" + json::quote(provider) + ",\"graph\":" + json::quote(graph_name) + ",\"input_type_shape\":" + type_shapes(inputs) +
           ",\"output_type_shape\":" + type_shapes(outs);
  std::lock_guard<std::mutex> lock(mutex_);
  events_.push_back(std::move(e));
}

}  // namespace onyx
