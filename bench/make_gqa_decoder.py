#!/usr/bin/env python3
"""GPT-2 small as a decoder whose key/value cache stays in place: gpt2_decoder_gqa.onnx.

    /usr/bin/python3 bench/make_gqa_decoder.py [OUT.onnx] [--check]

The same weights as make_models.py's gpt2_small and gpt2_decoder (the same class built right after
the same seed), written with onnx.helper instead of the exporter: attention is one
com.microsoft GroupQueryAttention per layer (packed Q|K|V from c_attn, 12 query and 12 key/value
heads, causal, scale 1/sqrt(64), no rotary: GPT-2's positions are learned), so the cache can be
ONNX Runtime's shared past/present buffer: past_key_{i} / past_value_{i} are [batch, 12, max_seq,
64] buffers that a caller binds as both the input and the present_key_{i} / present_value_{i}
output of every step (IoBinding in onyx, pre-allocated outputs in ORT), and each step writes only
its new rows. No copy of the cache per token.

Inputs: input_ids int64 [batch, seq]; past_key_{i}, past_value_{i} float32 [batch, 12, max_seq, 64];
seqlens_k int32 [batch] (tokens so far including this step's, minus 1); total_sequence_length
int32 scalar (tokens so far). Positions are total - seq .. total - 1 (computed in the graph).
Outputs: logits [batch, seq, 50257], present_key_{i}, present_value_{i} (the buffers, updated).

--check runs it under onyx (PYTHONPATH=build/python) against the float32 PyTorch model on a
16-token prompt then 4 single tokens, each step's cache fed back through the same buffers, and
exits 1 if a logit is more than 1e-3 off.
"""
import argparse
import os
import sys

import numpy as np
import torch
from onnx import TensorProto, helper, numpy_helper, save_model

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_models import OPSET, SEED, GPT2Config, GPT2LMHeadModel  # noqa: E402

MS = "com.microsoft"


def build(model, c):
    """The ONNX graph of `model` (a GPT2LMHeadModel) with GroupQueryAttention."""
    heads, dim, layers = c.n_head, c.n_embd, c.n_layer
    head_dim = dim // heads
    inits, nodes = [], []

    def init(name, array):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array, dtype=array.dtype), name))
        return name

    def const_i64(name, values):
        return init(name, np.array(values, dtype=np.int64))

    def linear(x, lin, prefix):
        w = init(prefix + ".weight_t", lin.weight.detach().numpy().T.copy())
        nodes.append(helper.make_node("MatMul", [x, w], [prefix + "_mm"], name=prefix + "/MatMul"))
        if lin.bias is None:
            return prefix + "_mm"
        b = init(prefix + ".bias", lin.bias.detach().numpy())
        nodes.append(helper.make_node("Add", [prefix + "_mm", b], [prefix + "_out"], name=prefix + "/Add"))
        return prefix + "_out"

    def layer_norm(x, ln, prefix):
        g, b = init(prefix + ".weight", ln.weight.detach().numpy()), init(prefix + ".bias", ln.bias.detach().numpy())
        nodes.append(helper.make_node("LayerNormalization", [x, g, b], [prefix + "_out"], name=prefix,
                                      axis=-1, epsilon=c.layer_norm_epsilon))
        return prefix + "_out"

    # Positions total - seq .. total - 1, from total_sequence_length and input_ids' shape.
    nodes += [
        helper.make_node("Shape", ["input_ids"], ["ids_shape"], name="pos/Shape"),
        helper.make_node("Gather", ["ids_shape", const_i64("one", 1)], ["seq_len"], name="pos/Gather", axis=0),
        helper.make_node("Cast", ["total_sequence_length"], ["total64"], name="pos/Cast", to=TensorProto.INT64),
        helper.make_node("Sub", ["total64", "seq_len"], ["start"], name="pos/Sub"),
        helper.make_node("Range", ["start", "total64", const_i64("step", 1)], ["positions"], name="pos/Range"),
        helper.make_node("Unsqueeze", ["positions", const_i64("axes0", [0])], ["position_ids"], name="pos/Unsqueeze"),
        helper.make_node("Gather", [init("wte", model.wte.weight.detach().numpy()), "input_ids"], ["tok"], name="wte"),
        helper.make_node("Gather", [init("wpe", model.wpe.weight.detach().numpy()), "position_ids"], ["pos"], name="wpe"),
        helper.make_node("Add", ["tok", "pos"], ["h0"], name="embed/Add"),
    ]
    h = "h0"
    inputs = [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"])]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", c.vocab_size])]
    cache = ["batch", heads, "max_seq", head_dim]
    for i, block in enumerate(model.h):
        p = f"h.{i}"
        qkv = linear(layer_norm(h, block.ln_1, p + ".ln_1"), block.attn.c_attn, p + ".attn.c_attn")
        nodes.append(helper.make_node(
            "GroupQueryAttention",
            [qkv, "", "", f"past_key_{i}", f"past_value_{i}", "seqlens_k", "total_sequence_length"],
            [p + ".attn_out", f"present_key_{i}", f"present_value_{i}"], name=p + ".attn", domain=MS,
            num_heads=heads, kv_num_heads=heads))
        proj = linear(p + ".attn_out", block.attn.c_proj, p + ".attn.c_proj")
        nodes.append(helper.make_node("Add", [h, proj], [p + ".res1"], name=p + ".res1"))
        fc = linear(layer_norm(p + ".res1", block.ln_2, p + ".ln_2"), block.mlp.c_fc, p + ".mlp.c_fc")
        nodes.append(helper.make_node("FastGelu", [fc], [p + ".gelu"], name=p + ".gelu", domain=MS))
        out = linear(p + ".gelu", block.mlp.c_proj, p + ".mlp.c_proj")
        nodes.append(helper.make_node("Add", [p + ".res1", out], [p + ".res2"], name=p + ".res2"))
        h = p + ".res2"
        for kv in ("key", "value"):
            inputs.append(helper.make_tensor_value_info(f"past_{kv}_{i}", TensorProto.FLOAT, cache))
            outputs.append(helper.make_tensor_value_info(f"present_{kv}_{i}", TensorProto.FLOAT, cache))
    inputs += [helper.make_tensor_value_info("seqlens_k", TensorProto.INT32, ["batch"]),
               helper.make_tensor_value_info("total_sequence_length", TensorProto.INT32, [])]
    final = layer_norm(h, model.ln_f, "ln_f")
    nodes.append(helper.make_node("MatMul", [final, init("lm_head.weight_t", model.lm_head.weight.detach().numpy().T.copy())],
                                  ["logits"], name="lm_head/MatMul"))
    graph = helper.make_graph(nodes, "gpt2_decoder_gqa", inputs, outputs, inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(MS, 1)],
                          producer_name="onyx bench/make_gqa_decoder.py")
    m.ir_version = 8
    return m


def check(path, model, c):
    """Prompt 16 then 4 single tokens through shared buffers (onyx) against PyTorch's logits."""
    import onyx as ort
    s = ort.InferenceSession(path)
    torch.manual_seed(1)
    ids = torch.randint(0, c.vocab_size, (1, 20))
    with torch.no_grad():
        want = model(ids).numpy()
    max_seq, heads, head_dim = 32, c.n_head, c.n_embd // c.n_head
    cache = {f"past_{kv}_{i}": np.zeros((1, heads, max_seq, head_dim), np.float32)
             for i in range(c.n_layer) for kv in ("key", "value")}
    names = [o.name for o in s.get_outputs()]
    worst, done = 0.0, 0
    for step in [16, 1, 1, 1, 1]:
        feed = {"input_ids": ids[:, done:done + step].numpy(), **cache,
                "seqlens_k": np.array([done + step - 1], np.int32),
                "total_sequence_length": np.array(done + step, np.int32)}
        out = dict(zip(names, s.run(None, feed)))
        worst = max(worst, float(np.abs(out["logits"][0] - want[0, done:done + step]).max()))
        cache = {k.replace("present", "past"): v for k, v in out.items() if k.startswith("present")}
        done += step
    print(f"check: max abs logit difference to PyTorch over 20 tokens: {worst:.2e}")
    return worst <= 1e-3


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?", default=os.path.join(here, "models", "gpt2_decoder_gqa.onnx"))
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    c = GPT2Config()
    torch.manual_seed(SEED)
    model = GPT2LMHeadModel(c)
    model.eval()
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    save_model(build(model, c), a.out)
    print(f"{a.out}: {os.path.getsize(a.out) / 1e6:.1f} MB")
    if a.check and not check(a.out, model, c):
        sys.exit(1)


if __name__ == "__main__":
    main()
