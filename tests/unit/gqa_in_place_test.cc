// GroupQueryAttention with its cache in place: present_key / present_value bound (IoBinding) to
// the very buffers fed as past_key / past_value, as ONNX Runtime's shared past/present buffer
// works. A prompt then two single tokens give the same outputs as runs that copy the cache,
// nothing is copied into the bound buffers (the kernel writes only the new rows), and the
// buffers hold the keys and values of every token so far.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "model_builder.h"
#include "session/io_binding.h"
#include "session/session.h"

namespace onyx {
namespace {

using testing::ModelBuilder;

constexpr int64_t kHeads = 2, kKvHeads = 1, kHead = 4, kMax = 8;
constexpr int64_t kWidth = (kHeads + 2 * kKvHeads) * kHead;

std::unique_ptr<Session> gqa_session() {
  ModelBuilder b(17);
  auto* op = b.model.add_opset_import();
  op->set_domain("com.microsoft");
  op->set_version(1);
  b.input("qkv", {1, -1, kWidth}).input("past_key", {1, kKvHeads, kMax, kHead}).input("past_value", {1, kKvHeads, kMax, kHead});
  b.input("seqlens_k", {1}, onnx::TensorProto::INT32).input("total_sequence_length", {}, onnx::TensorProto::INT32);
  b.output("out", {1, -1, kHeads * kHead}).output("present_key", {1, kKvHeads, kMax, kHead}).output("present_value", {1, kKvHeads, kMax, kHead});
  auto* n = b.node("GroupQueryAttention", {"qkv", "", "", "past_key", "past_value", "seqlens_k", "total_sequence_length"},
                   {"out", "present_key", "present_value"}, "gqa");
  n->set_domain("com.microsoft");
  for (auto [name, v] : {std::pair{"num_heads", kHeads}, std::pair{"kv_num_heads", kKvHeads}}) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  const std::string bytes = b.bytes();
  auto s = Session::load_bytes(bytes.data(), bytes.size());
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  return s.ok() ? std::move(s).value() : nullptr;
}

Tensor random_qkv(int64_t seq, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  Tensor t(DataType::kFloat, {1, seq, kWidth});
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = d(rng);
  return t;
}

TEST(GroupQueryAttentionInPlace, SharedCacheBuffersMatchCopiedCaches) {
  auto s = gqa_session();
  ASSERT_TRUE(s);
  Tensor key(DataType::kFloat, {1, kKvHeads, kMax, kHead}), value(DataType::kFloat, {1, kKvHeads, kMax, kHead});
  Tensor ref_key = key.clone(), ref_value = value.clone();  // the copying runs' cache
  int64_t total = 0;
  for (int64_t seq : {3, 1, 1}) {
    total += seq;
    const Tensor qkv = random_qkv(seq, unsigned(total));
    Tensor lens_t(DataType::kInt32, {1});
    lens_t.data<int32_t>()[0] = int32_t(total - 1);
    const Value lens(lens_t);
    const Value total_v(Tensor::scalar<int32_t>(int32_t(total)));
    // Reference: plain run, new present tensors every step.
    auto ref = s->run({{"qkv", Value(qkv)}, {"past_key", Value(ref_key)}, {"past_value", Value(ref_value)},
                       {"seqlens_k", lens}, {"total_sequence_length", total_v}});
    ASSERT_TRUE(ref.ok()) << ref.status().to_string();
    ref_key = (*ref)[1].tensor();
    ref_value = (*ref)[2].tensor();
    // In place: the cache buffers fed and bound as the presents.
    IoBinding b(*s);
    ASSERT_TRUE(b.bind_input("qkv", Value(qkv)).ok());
    ASSERT_TRUE(b.bind_input("past_key", Value(key)).ok());
    ASSERT_TRUE(b.bind_input("past_value", Value(value)).ok());
    ASSERT_TRUE(b.bind_input("seqlens_k", lens).ok());
    ASSERT_TRUE(b.bind_input("total_sequence_length", total_v).ok());
    ASSERT_TRUE(b.bind_output("out").ok());
    ASSERT_TRUE(b.bind_output("present_key", key).ok());
    ASSERT_TRUE(b.bind_output("present_value", value).ok());
    ASSERT_TRUE(s->run(b).ok());
    EXPECT_EQ(b.copied_outputs(), 0u) << "the presents were written in place";
    const Tensor& out = b.outputs()[0].tensor();
    const Tensor& ref_out = (*ref)[0].tensor();
    ASSERT_EQ(out.shape(), ref_out.shape());
    for (int64_t i = 0; i < out.numel(); ++i) EXPECT_FLOAT_EQ(out.data<float>()[i], ref_out.data<float>()[i]) << total;
    for (int64_t i = 0; i < total * kHead; ++i) {  // the rows written so far (one kv head)
      EXPECT_FLOAT_EQ(key.data<float>()[i], ref_key.data<float>()[i]);
      EXPECT_FLOAT_EQ(value.data<float>()[i], ref_value.data<float>()[i]);
    }
  }
}

}  // namespace
}  // namespace onyx
