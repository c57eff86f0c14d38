// onyx's libonnxruntime.so.1 from a C++ program, as C++ users of ORT's C API write them (the
// header compiled as C++, handles held by std::unique_ptr with the Release functions as
// deleters, errors turned into exceptions): models/stripes.onnx run from 4 std::threads on one
// session, each checking its answers; a bad feed's error caught as an exception with ORT's code.
//
//     cxx_api_test MODEL   (models/stripes.onnx: image [batch,1,8,8] -> probabilities [batch,3])
#include <array>
#include <atomic>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "onnxruntime_c_api.h"

namespace {

const OrtApi* api = OrtGetApiBase()->GetApi(ORT_API_VERSION);

struct Error : std::runtime_error {
  Error(OrtErrorCode c, const std::string& m) : std::runtime_error(m), code(c) {}
  OrtErrorCode code;
};

void check(OrtStatus* st) {
  if (!st) return;
  Error e(api->GetErrorCode(st), api->GetErrorMessage(st));
  api->ReleaseStatus(st);
  throw e;
}

#define ONYX_HANDLE(T, Member)                                  \
  struct T##Deleter {                                           \
    void operator()(T* p) const { api->Member(p); }             \
  };                                                            \
  using T##Ptr = std::unique_ptr<T, T##Deleter>;
ONYX_HANDLE(OrtEnv, ReleaseEnv)
ONYX_HANDLE(OrtSessionOptions, ReleaseSessionOptions)
ONYX_HANDLE(OrtSession, ReleaseSession)
ONYX_HANDLE(OrtValue, ReleaseValue)
ONYX_HANDLE(OrtMemoryInfo, ReleaseMemoryInfo)
ONYX_HANDLE(OrtTensorTypeAndShapeInfo, ReleaseTensorTypeAndShapeInfo)

// The classes the model gives a batch of `batch` images, stripes horizontal where
// horizontal[b] (class 1) and vertical otherwise (class 0).
std::vector<int> classify(OrtSession* session, const std::vector<bool>& horizontal) {
  const int64_t batch = int64_t(horizontal.size());
  std::vector<float> images(size_t(batch) * 64);
  for (int64_t b = 0; b < batch; ++b)
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 8; ++c) images[size_t(b * 64 + r * 8 + c)] = float(((horizontal[size_t(b)] ? r : c) / 2) % 2);
  OrtMemoryInfo* raw_info = nullptr;
  check(api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &raw_info));
  OrtMemoryInfoPtr info(raw_info);
  const std::array<int64_t, 4> shape{batch, 1, 8, 8};
  OrtValue* raw_input = nullptr;
  check(api->CreateTensorWithDataAsOrtValue(info.get(), images.data(), images.size() * sizeof(float), shape.data(),
                                            shape.size(), ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &raw_input));
  OrtValuePtr input(raw_input);
  const char* in_names[] = {"image"};
  const char* out_names[] = {"probabilities"};
  const OrtValue* inputs[] = {input.get()};
  OrtValue* raw_output = nullptr;
  check(api->Run(session, nullptr, in_names, inputs, 1, out_names, 1, &raw_output));
  OrtValuePtr output(raw_output);
  OrtTensorTypeAndShapeInfo* raw_shape = nullptr;
  check(api->GetTensorTypeAndShape(output.get(), &raw_shape));
  OrtTensorTypeAndShapeInfoPtr out_shape(raw_shape);
  size_t count = 0;
  check(api->GetTensorShapeElementCount(out_shape.get(), &count));
  if (count != size_t(batch) * 3) throw std::runtime_error("probabilities of the wrong size");
  const float* p = nullptr;
  check(api->GetTensorData(output.get(), reinterpret_cast<const void**>(&p)));
  std::vector<int> classes;
  for (int64_t b = 0; b < batch; ++b) {
    int best = 0;
    for (int k = 1; k < 3; ++k)
      if (p[b * 3 + k] > p[b * 3 + best]) best = k;
    classes.push_back(best);
  }
  return classes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODEL\n", argv[0]);
    return 2;
  }
  int failures = 0;
  try {
    OrtEnv* raw_env = nullptr;
    check(api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "cxx_api_test", &raw_env));
    OrtEnvPtr env(raw_env);
    OrtSessionOptions* raw_options = nullptr;
    check(api->CreateSessionOptions(&raw_options));
    OrtSessionOptionsPtr options(raw_options);
    check(api->SetIntraOpNumThreads(options.get(), 1));
    OrtSession* raw_session = nullptr;
    check(api->CreateSession(env.get(), argv[1], options.get(), &raw_session));
    OrtSessionPtr session(raw_session);

    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        try {
          for (int i = 0; i < 250; ++i) {
            const std::vector<bool> horizontal{(i + t) % 2 == 0, (i + t) % 3 == 0, true};
            const std::vector<int> got = classify(session.get(), horizontal);
            for (size_t b = 0; b < horizontal.size(); ++b)
              if (got[b] != (horizontal[b] ? 1 : 0)) ++wrong;
          }
        } catch (const std::exception& e) {
          std::fprintf(stderr, "thread %d: %s\n", t, e.what());
          ++wrong;
        }
      });
    for (auto& th : threads) th.join();
    if (wrong) {
      std::fprintf(stderr, "%d wrong answers from the threads\n", wrong.load());
      ++failures;
    }
    // A feed of the wrong element type: an exception carrying ORT's code, naming the input.
    bool caught = false;
    try {
      int64_t ints[64] = {};
      const std::array<int64_t, 4> shape{1, 1, 8, 8};
      OrtMemoryInfo* raw_info = nullptr;
      check(api->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &raw_info));
      OrtMemoryInfoPtr info(raw_info);
      OrtValue* raw_input = nullptr;
      check(api->CreateTensorWithDataAsOrtValue(info.get(), ints, sizeof ints, shape.data(), shape.size(),
                                                ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, &raw_input));
      OrtValuePtr input(raw_input);
      const char* in_names[] = {"image"};
      const char* out_names[] = {"probabilities"};
      const OrtValue* inputs[] = {input.get()};
      OrtValue* out = nullptr;
      check(api->Run(session.get(), nullptr, in_names, inputs, 1, out_names, 1, &out));
    } catch (const Error& e) {
      caught = e.code == ORT_INVALID_ARGUMENT && std::string(e.what()).find("image") != std::string::npos;
      if (!caught) std::fprintf(stderr, "unexpected error %d: %s\n", int(e.code), e.what());
    }
    if (!caught) ++failures;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "failed: %s\n", e.what());
    ++failures;
  }
  if (failures) std::fprintf(stderr, "%d checks failed\n", failures);
  else std::printf("cxx_api_test: all checks passed\n");
  return failures ? 1 : 0;
}
