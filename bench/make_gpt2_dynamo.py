#!/usr/bin/env python3
"""The benchmark GPT-2 small as today's torch exports it: torch.onnx.export(dynamo=True,
opset_version=23), attention through F.scaled_dot_product_attention as transformers' GPT2 runs it
by default ("sdpa"), so the exporter writes ai.onnx Attention-23 nodes.

    <torch venv>/bin/python bench/make_gpt2_dynamo.py [OUTDIR] [--models a,b] [--force]
    (torch 2.x with onnxscript: scripts/test_venv.sh --torch, whose lock pins both)

Writes OUTDIR/gpt2_small_dynamo.onnx (OUTDIR defaults to bench/models/, gitignored like the other
benchmark models): the same weights as make_models.py's gpt2_small (the same GPT2LMHeadModel class
built right after the same seed), the same interface (int64 input_ids [batch, sequence] -> logits
[batch, sequence, 50257]), both axes dynamic. Only the attention's core differs in the source:
F.scaled_dot_product_attention(q, k, v, is_causal=True) instead of the explicit matmul / where /
softmax / matmul of the TorchScript-era model (transformers' sdpa path with no padding mask passes
is_causal for a prompt the same way). LayerNorm stays nn.LayerNorm (LayerNormalization-17 in the
export) and the GELU transformers' gelu_new (tanh formula, exported as Mul/Pow/Tanh/Add).
--models gpt2_decoder_dynamo writes the KV-cache decoder of make_models.py's gpt2_decoder the same
way (same weights, same input and output names and shapes): the cache grows by Concat, and the
causal mask of a step (query t at position past + t sees keys j <= past + t) is an explicit
boolean attn_mask, as transformers passes one when a cache is present.
The weights are saved inside the model (one file, ~650 MB, under the 2 GB protobuf limit).
"""
import argparse
import os
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_models import SEED, GPT2Config, GPT2LMHeadModel, describe  # noqa: E402

OPSET = 23


def sdpa_attention(attn, hidden_states):
    """GPT2Attention.forward (make_models.py) with its core as transformers' sdpa_attention_forward
    writes it for a prompt without a padding mask."""
    query, key, value = attn.c_attn(hidden_states).split(attn.embed_dim, dim=2)
    query, key, value = attn._split_heads(query), attn._split_heads(key), attn._split_heads(value)
    out = F.scaled_dot_product_attention(query, key, value, dropout_p=0.0, is_causal=True)
    return attn.c_proj(attn._merge_heads(out))


class GPT2Sdpa(GPT2LMHeadModel):
    """GPT2LMHeadModel (the same modules, so the same seed gives the same weights) whose blocks'
    attention runs through scaled_dot_product_attention."""

    def forward(self, input_ids):
        position_ids = torch.arange(0, input_ids.size(-1), dtype=torch.long, device=input_ids.device).unsqueeze(0)
        hidden_states = self.wte(input_ids) + self.wpe(position_ids)
        for block in self.h:
            hidden_states = hidden_states + sdpa_attention(block.attn, block.ln_1(hidden_states))
            hidden_states = hidden_states + block.mlp(block.ln_2(hidden_states))
        return self.lm_head(self.ln_f(hidden_states))


def sdpa_attention_with_past(attn, hidden_states, past_key, past_value):
    """make_models.py's attention_with_past with its core through scaled_dot_product_attention, as
    transformers' sdpa path runs a step with a cache: the new keys/values after the cached ones,
    and an explicit boolean mask (query t, at absolute position past + t, sees keys j <= past + t),
    since is_causal would align the triangle top-left."""
    query, key, value = attn.c_attn(hidden_states).split(attn.embed_dim, dim=2)
    query, key, value = attn._split_heads(query), attn._split_heads(key), attn._split_heads(value)
    key = torch.cat((past_key, key), dim=-2)
    value = torch.cat((past_value, value), dim=-2)
    query_length, key_length = query.size(-2), key.size(-2)
    rows = torch.arange(query_length, device=query.device).unsqueeze(-1) + (key_length - query_length)
    mask = torch.arange(key_length, device=query.device).unsqueeze(0) <= rows  # [S, L] bool
    out = F.scaled_dot_product_attention(query, key, value, attn_mask=mask, dropout_p=0.0)
    return attn.c_proj(attn._merge_heads(out)), key, value


class GPT2SdpaWithPast(GPT2LMHeadModel):
    """make_models.py's GPT2DecoderWithPast (the same interface: input_ids, past_key_0,
    past_value_0, ... -> logits, present_key_0, present_value_0, ...) through the sdpa core."""

    def forward(self, input_ids, *past):
        past_length = past[0].size(-2)
        position_ids = torch.arange(past_length, past_length + input_ids.size(-1), dtype=torch.long,
                                    device=input_ids.device).unsqueeze(0)
        hidden_states = self.wte(input_ids) + self.wpe(position_ids)
        presents = []
        for i, block in enumerate(self.h):
            attn_out, key, value = sdpa_attention_with_past(block.attn, block.ln_1(hidden_states), past[2 * i],
                                                            past[2 * i + 1])
            hidden_states = hidden_states + attn_out
            hidden_states = hidden_states + block.mlp(block.ln_2(hidden_states))
            presents += [key, value]
        return (self.lm_head(self.ln_f(hidden_states)), *presents)


def export(path, decoder=False):
    torch.manual_seed(SEED)
    c = GPT2Config()
    # Built right after the seed, as make_models.py's gpt2_small and gpt2_decoder: the same weights.
    model = GPT2SdpaWithPast(c) if decoder else GPT2Sdpa(c)
    model.eval()
    batch = torch.export.Dim("batch", max=64)
    if not decoder:
        args = (torch.randint(0, c.vocab_size, (2, 16)),)
        input_names, output_names = ["input_ids"], ["logits"]
        dynamic = {"input_ids": {0: batch, 1: torch.export.Dim("sequence", min=2, max=c.n_positions)}}
    else:
        # Traced with batch 2, seq 2, past 3 (all different and above 1); every size dynamic.
        seq = torch.export.Dim("seq", max=c.n_positions)
        past_seq = torch.export.Dim("past_seq", max=c.n_positions)
        head_dim = c.n_embd // c.n_head
        args = [torch.randint(0, c.vocab_size, (2, 2))]
        input_names, output_names = ["input_ids"], ["logits"]
        dynamic = {"input_ids": {0: batch, 1: seq}}
        past_axes = []
        for i in range(c.n_layer):
            for kind in ("key", "value"):
                args.append(torch.randn(2, c.n_head, 3, head_dim))
                input_names.append(f"past_{kind}_{i}")
                output_names.append(f"present_{kind}_{i}")
                past_axes.append({0: batch, 2: past_seq})
        args = tuple(args)
        dynamic = {"input_ids": {0: batch, 1: seq}, "past": tuple(past_axes)}
    tmp = path + ".tmp"
    with torch.no_grad():
        program = torch.onnx.export(model, args, dynamo=True, opset_version=OPSET,
                                    input_names=input_names, output_names=output_names,
                                    dynamic_shapes=dynamic, optimize=True, external_data=False)
        program.save(tmp, external_data=False)
    os.replace(tmp, path)  # a killed export leaves no half-written model to be skipped next time


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?", default=os.path.join(HERE, "models"))
    ap.add_argument("--models", default="gpt2_small_dynamo",
                    help="gpt2_small_dynamo and/or gpt2_decoder_dynamo (comma-separated)")
    ap.add_argument("--force", action="store_true", help="rebuild a model that already exists")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    print(f"torch {torch.__version__}, dynamo, opset {OPSET}, seed {SEED}, into {a.outdir}")
    for name in [m.strip() for m in a.models.split(",") if m.strip()]:
        if name not in ("gpt2_small_dynamo", "gpt2_decoder_dynamo"):
            sys.exit(f"unknown model '{name}' (known: gpt2_small_dynamo, gpt2_decoder_dynamo)")
        path = os.path.join(a.outdir, name + ".onnx")
        if os.path.exists(path) and not a.force:
            print(f"{name}: present, skipped ({os.path.getsize(path) / 1e6:.1f} MB: {path})")
            continue
        t0 = time.time()
        export(path, decoder=name == "gpt2_decoder_dynamo")
        print(f"{name}: exported in {time.time() - t0:.1f} s, {os.path.getsize(path) / 1e6:.1f} MB: {path}")
        print(f"  {describe(path)}")


if __name__ == "__main__":
    main()
