// Session: a loaded, planned model that runs. run() is const and thread-safe.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/allocator.h"
#include "core/value.h"
#include "ir/graph.h"
#include "providers/execution_provider.h"
#include "session/io_binding.h"
#include "session/placement.h"
#include "session/run_options.h"

namespace onyx {

class ExternalDataLoader;
class GraphPlan;
class Profiler;
class RunCaptures;
namespace ops { struct GraphTypes; }

struct SessionOptions {
  enum class ExecutionMode { kSequential, kParallel };
  // Graph optimisation (src/optimizer), run after the overrides and static inference and
  // before planning: 0 none; 1 basic (constant folding, Constant to initializer, shape
  // folding, dead-node, Identity, inference-Dropout and same-type Cast elimination); 2 (and 3)
  // extended, adding fusions into com.microsoft ops (MultiHeadAttention, Gelu, FastGelu,
  // BiasGelu, SkipLayerNormalization, FusedConv) and Conv+BatchNormalization folding; 99 all
  // (also layout passes: channels-last convolutions). Graph inputs and output names never
  // change. The passes and their contract: ARCHITECTURE.md, "Graph optimisation".
  int graph_optimization_level = 99;
  // Passes not to run, whatever the level: onyx's names ("attention_fusion") or ONNX Runtime's
  // CamelCase spelling of the same ("AttentionFusion"); a name that matches no pass is an
  // INVALID_ARGUMENT error at session creation, listing the passes (optimizer/pass.h).
  std::set<std::string> disabled_optimizers;
  // Threads for the work inside one node (OpenMP, shared with oneDNN); set on the calling
  // thread at the start of each run.
  int intra_op_threads = 0;           // 0: one per core
  int inter_op_threads = 0;
  ExecutionMode execution_mode = ExecutionMode::kSequential;  // nodes run in plan order either way
  // Keep the memory of a run's intermediates for the next run (no fresh pages, no system
  // calls once warm); false returns it to the system after every run.
  bool enable_cpu_mem_arena = true;
  int log_level = 2;                  // messages at this severity or above print: 0 verbose .. 4 fatal
  // Check every node output against the static type rules at run (a test aid; costs time).
  bool verify_shapes = false;
  // Flush floating-point denormals to zero during runs (ONNX Runtime's session config
  // "session.set_denormal_as_zero" = "1"; core/parallel.h DenormalsAsZero): values below
  // 1.2e-38 become 0, and arithmetic on them stops being up to a hundred times slower.
  // Training Modules turn it on.
  bool denormal_as_zero = false;

  // Free-dimension overrides: fix symbolic dims of the graph inputs before static inference
  // and planning, so static_types(), inputs() and `onyx info` show the fixed sizes and a feed
  // that disagrees is an INVALID_ARGUMENT error. Keys: a dim_param name ("batch"), or an ONNX
  // dimension denotation (DATA_BATCH, DATA_CHANNEL, DATA_TIME, DATA_FEATURE,
  // FILTER_IN_CHANNEL, FILTER_OUT_CHANNEL, FILTER_SPATIAL; case-insensitive).
  // A dim with both a dim_param and a denotation takes the override by name when there is
  // one (a warning is logged if the denotation's override disagrees). A dim_param fixed on
  // one input is fixed wherever it appears (inputs, outputs, value_infos). An override that
  // matches no input dim is logged as a warning and ignored; a dim the model already fixes
  // keeps its size. Full rules: session/free_dims.h.
  std::map<std::string, int64_t> free_dimension_overrides_by_name;
  std::map<std::string, int64_t> free_dimension_overrides_by_denotation;
  void add_free_dimension_override_by_name(const std::string& dim_param, int64_t size) {
    free_dimension_overrides_by_name[dim_param] = size;
  }
  void add_free_dimension_override(const std::string& denotation, int64_t size) {
    free_dimension_overrides_by_denotation[denotation] = size;
  }

  // Initializer overrides (e.g. LoRA adapter weights): each replaces the value of the main
  // graph's initializer of that name. No copy is made: a Tensor made with Tensor::borrow
  // wraps the caller's memory, and the caller must keep that memory alive and unchanged for
  // the life of every session created with these options (a kernel that packs its weights,
  // such as float32 MatMul and Gemm, copies them into its own layout at session creation and
  // the session then holds only that copy). A name that is not an initializer
  // of the main graph, a name given twice, or a dtype or shape that differs from the
  // initializer's is an INVALID_ARGUMENT error at session creation.
  std::vector<std::pair<std::string, Tensor>> initializer_overrides;
  void add_initializer(const std::string& name, Tensor value) { initializer_overrides.emplace_back(name, std::move(value)); }
  // Adds names[i] -> values[i]; INVALID_ARGUMENT (and nothing added) when the counts differ.
  Status add_external_initializers(const std::vector<std::string>& names, const std::vector<Tensor>& values);

  // Profiling: writes a Chrome-trace JSON (chrome://tracing, Perfetto) of the session: model
  // load, free-dim overrides, static inference, planning, each run, and one event per kernel
  // call (op type, node name, provider, input/output types and shapes, duration in us). The
  // file, "<profile_file_prefix>_<date>_<time>.json", is written by Session::end_profiling()
  // or, failing that, when the session is destroyed. Layout: session/profiler.h. Off costs
  // one pointer test per node.
  bool enable_profiling = false;
  std::string profile_file_prefix = "onyx_profile";

  // Saving the optimised model (ORT's optimized_model_filepath): when set, the graph after
  // optimisation, before any kernel packs a weight, is written there as an ONNX model that
  // onyx and other ONNX tools load again with the same outputs (com.microsoft ops where fused;
  // level 99 also saves the channels-last layout). Initializers of at least
  // `optimized_model_external_min_bytes` go to `optimized_model_external_data_file`, a path
  // relative to the saved model's folder, when that is set (ORT's session config keys
  // session.optimized_model_external_initializers_file_name and ..._min_size_in_bytes).
  // A failure to write is an error of session creation.
  std::string optimized_model_filepath;
  std::string optimized_model_external_data_file;
  size_t optimized_model_external_min_bytes = 1024;

  // External data held in memory (ORT's add_external_initializers_from_files_in_memory): the
  // bytes of the external-data file the model names `location`, looked up before the model's
  // folder, so that a model loaded from bytes finds its weights. Used without a copy: the
  // caller keeps the bytes alive and unchanged while sessions made with these options live.
  std::map<std::string, std::shared_ptr<Buffer>> external_data_files_in_memory;
  void add_external_data_file_in_memory(const std::string& location, std::shared_ptr<Buffer> bytes) {
    external_data_files_in_memory[location] = std::move(bytes);
  }
  // Places the main graph's external initializers (providers/external_data_loader.h); null:
  // the loader registered for the CPU, which keeps the mapping (no copy).
  std::shared_ptr<const ExternalDataLoader> external_data_loader;

  // The memory a run's arena keeps for later runs, in bytes: 0 (the default) keeps at most
  // twice the most a run held at once, evicting sizes that recent runs did not use, so
  // changing shapes cannot grow it without bound. See also RunOptions::shrink_arena.
  size_t arena_cache_limit_bytes = 0;
  // A cap on the memory one run's arena holds (intermediates and outputs, in use and cached
  // together), in bytes; 0: none. A run that needs more fails with a RUNTIME_ERROR naming the
  // limit, and the session stays usable. Weights and caller-bound buffers are not counted.
  size_t memory_limit_bytes = 0;

  // Opt-in bfloat16 products (session config key "onyx.cpu.gemm_bf16" = "1"; `onyx run` and
  // `onyx bench --bf16-gemm`): float32 MatMul and Gemm nodes with constant 2-D weights
  // multiply in bf16 with float32 sums, about twice as fast where the CPU has AVX512_BF16,
  // with errors of about 1e-2 relative to the output's magnitude instead of 1e-6. Off by
  // default. Where the CPU has no bf16 products the nodes stay float32.
  bool bf16_gemm = false;

  // Execution providers in priority order, each with its options (ONNX Runtime's
  // `providers` / `provider_options`): "CUDA" (or "CUDAExecutionProvider") with "device_id",
  // "gpu_mem_limit", ...; "CPU". Empty: the CPU only. Each node of the main graph goes to the
  // first provider whose kernel takes it, else to the CPU, with copies where values cross
  // devices; Session::placement() says which went where and why (session/placement.h). A
  // provider this build lacks is an error at session creation; one that cannot run here (no
  // device, no driver) is left out with a warning saying why, and the providers after it take
  // its nodes (an error instead with disable_cpu_fallback).
  std::vector<std::pair<std::string, ProviderOptions>> providers;
  void append_provider(const std::string& name, ProviderOptions options = {}) {
    providers.emplace_back(name, std::move(options));
  }
  // A node that falls back to the CPU while another provider was asked for is an error
  // (ONNX Runtime's session config "session.disable_cpu_ep_fallback" = "1").
  bool disable_cpu_fallback = false;

  // Kernels for operators the caller brings (ONNX Runtime custom-op libraries, through the C
  // API's AddCustomOpDomain and RegisterCustomOpsLibrary, or Python's
  // SessionOptions.register_custom_ops_library): looked up before onyx's own. Each kernel they
  // make keeps what it needs (its library) alive for as long as it lives.
  std::shared_ptr<const KernelRegistry> custom_kernels;
};

class Session {
 public:
  static Result<std::unique_ptr<Session>> load_file(const std::string& path, const SessionOptions& options = {});
  static Result<std::unique_ptr<Session>> load_bytes(const void* data, size_t size, const SessionOptions& options = {},
                                                     const std::string& base_dir = "");
  // A session over a model already loaded (onnx_format::load_model_file): nothing is parsed
  // again and the weights are shared with `model`, not copied, so sessions that differ only in
  // options (initializer overrides such as LoRA adapters, free dims) are cheap to make.
  // `model` is not changed; its external data must stay mapped, which it does while any
  // session made from it lives.
  static Result<std::unique_ptr<Session>> from_loaded_model(const ir::Model& model, const SessionOptions& options = {});
  ~Session();

  const ir::Model& model() const { return *model_; }
  // (node label, how its kernel computes) for the main graph's nodes whose kernel has more
  // than one way (Kernel::implementation), in plan order.
  std::vector<std::pair<std::string, std::string>> kernel_implementations() const;
  // Where each node of the main graph runs and why, with the copy steps, in plan order.
  const std::vector<NodePlacement>& placement() const;
  // Fusions the optimiser did not make because the preferred provider lacks the fused op's
  // kernel but has the kernels of the nodes it would replace (optimizer::ProviderTarget):
  // "attention_fusion: CUDA has no kernel for com.microsoft:MultiHeadAttention (12 matches,
  // one at 'Softmax_3' (Softmax))". Empty with the CPU alone.
  const std::vector<std::string>& declined_rewrites() const { return declined_rewrites_; }
  // The providers this session uses, in priority order (the CPU last), as
  // ExecutionProvider::description says them.
  std::vector<std::string> provider_descriptions() const;
  // Their names ("CUDA", "CPU").
  std::vector<std::string> provider_names() const;
  // The provider of this session whose memory is on `device` (the CPU's for the host), or
  // null when none is.
  ExecutionProvider* provider_for(const Device& device) const;
  // Graph inputs the caller may feed (initializers with the same name are defaults), with
  // free-dimension overrides applied.
  const std::vector<ir::ValueInfo>& inputs() const { return model_->graph.inputs; }
  const std::vector<ir::ValueInfo>& outputs() const { return model_->graph.outputs; }
  // Output `index`'s type as ONNX Runtime reports it: the declared one, or static inference's
  // where the model declares a tensor without a shape.
  const ir::TypeInfo& output_type(size_t index) const;
  // Static types of every value the rules could derive or the model declares (best-effort),
  // after free-dimension overrides.
  const ops::GraphTypes& static_types() const { return *types_; }
  // True when input `name` has an initializer default and may be left out.
  bool input_has_default(const std::string& name) const;

  // Runs the model. Every feed is checked against the declared input type (kind, dtype, rank,
  // fixed dims); an unknown or missing input is an error. `output_names` empty = all outputs.
  // `options` may stop the run (terminate, timeout_ms: CANCELLED) or prune it to the
  // requested outputs (only_execute_path_to_fetches).
  Result<std::vector<Value>> run(const std::vector<std::pair<std::string, Value>>& feeds,
                                 const std::vector<std::string>& output_names = {},
                                 const RunOptions& options = RunOptions()) const;
  // Runs with the binding's inputs, writing its bound outputs (see io_binding.h); on success
  // binding.outputs() holds them. At least one output must be bound. When a provider of the
  // session records runs (CUDA with enable_cuda_graph=1), the run is recorded once and then
  // replayed, per graph id (session/run_capture.h).
  Status run(IoBinding& binding, const RunOptions& options = RunOptions()) const;
  // True when a provider of this session records runs (ExecutionProvider::captures_runs).
  bool records_runs() const { return captures_ != nullptr; }

  // Checks `value` as a feed for graph input `name` (kind, dtype, rank, fixed dims); returns
  // the input's index. NOT_FOUND for a name that is not a graph input.
  Result<size_t> check_input(const std::string& name, const Value& value) const;
  // The output types (in outputs() order) that static inference derives when the named
  // inputs have these shapes (inputs not named keep their declared types): what a caller can
  // pre-allocate before binding outputs. A dim that depends on input values (NonZero, ...)
  // stays unknown. NOT_FOUND for an unknown input, INVALID_ARGUMENT for a shape that
  // contradicts the input's declaration.
  Result<std::vector<ir::TypeInfo>> output_types_for(const std::vector<std::pair<std::string, Shape>>& input_shapes) const;
  // The index of graph output `name` among outputs(); NOT_FOUND (naming the outputs) if none.
  Result<size_t> output_index(const std::string& name) const;

  // Writes the profile (SessionOptions::enable_profiling) and stops profiling; returns the
  // file name. "" when profiling is off; later calls return the same name and write nothing.
  // Safe to call while other threads run: runs still in flight are left out of the file.
  Result<std::string> end_profiling();
  // True while the session records a profile.
  bool profiling() const;

 private:
  Session() = default;
  static Result<std::unique_ptr<Session>> from_model(std::unique_ptr<ir::Model> model, const SessionOptions& options,
                                                     std::chrono::steady_clock::time_point load_start);
  Status check_feed(const ir::ValueInfo& info, const Value& value) const;
  // A shape given for input `info`: its rank and fixed dims (saying which free-dimension
  // override fixed a dim).
  Status check_input_shape(const ir::ValueInfo& info, const Shape& shape) const;
  // The index of graph input `name`; NOT_FOUND naming the inputs when there is none.
  Result<size_t> input_index(const std::string& name) const;
  // Feeds by name -> values in graph-input order, each checked; a missing input is an error.
  Result<std::vector<Value>> gather_inputs(const std::vector<std::pair<std::string, Value>>& feeds) const;
  // Runs checked inputs (graph-input order) and returns the outputs at `wanted` (indices into
  // outputs()); `targets` as RunExtras::output_targets.
  Result<std::vector<Value>> execute(std::vector<Value> inputs, const std::vector<size_t>& wanted,
                                     const RunOptions& options, const std::vector<Tensor>* targets,
                                     const std::vector<char>* outputs_on_device = nullptr) const;
  // The body of run(IoBinding&) without waiting for the devices: the bound outputs in bind
  // order, and how many had to be copied into their buffers.
  Status run_bound(const IoBinding& binding, const RunOptions& options, std::vector<Value>& values,
                   size_t& copies) const;
  // run(IoBinding&) as it is without recording: run_bound, the wait for the devices, the
  // binding's outputs set.
  Status run_unrecorded(IoBinding& binding, const RunOptions& options) const;
  // run(IoBinding&) under graph id `id` >= 0 (session/run_capture.h).
  Status run_recorded(IoBinding& binding, const RunOptions& options, int64_t id) const;
  // Waits for the device providers unless the run config says not to
  // (disable_synchronize_execution_providers = 1).
  Status synchronize_devices(const RunOptions& options) const;
  Status apply_initializer_overrides();
  Status place_external_data();

  // Arenas kept between runs (SessionOptions::enable_cpu_mem_arena): a run leases one, or a
  // new one when all are in use, and gives it back; at most kMaxIdleArenas stay cached.
  static constexpr size_t kMaxIdleArenas = 4;
  class ArenaLease {
   public:
    explicit ArenaLease(const Session& session);
    ~ArenaLease();
    Arena* get() const { return arena_.get(); }

   private:
    const Session& session_;
    std::unique_ptr<Arena> arena_;
  };
  mutable std::mutex arena_mu_;
  mutable std::vector<std::unique_ptr<Arena>> idle_arenas_;

  std::unique_ptr<ir::Model> model_;
  std::shared_ptr<GraphPlan> plan_;
  std::unique_ptr<ops::GraphTypes> types_;
  SessionOptions options_;
  std::unique_ptr<Profiler> profiler_;  // null unless enable_profiling
  std::vector<std::shared_ptr<ExecutionProvider>> providers_;  // priority order, the CPU last
  std::vector<std::string> declined_rewrites_;
  // The recorded runs, when a provider records them (null otherwise). Runs hold runs_mu_
  // shared; recording one holds it alone, so no other run queues work on the provider then.
  std::unique_ptr<RunCaptures> captures_;
  mutable std::shared_mutex runs_mu_;
  // Initializers that view a mapped external-data file (not caller memory, not a copy made by
  // a loader), with the address they view: when a kernel packs one that still views it, its
  // pages of the mapping are released too.
  std::map<std::string, const void*> mapped_initializers_;
  // Per graph input: dim index -> which free-dimension override fixed it (for messages).
  std::map<std::string, std::map<size_t, std::string>> fixed_dims_;
};

}  // namespace onyx
