#!/usr/bin/env python3
"""The benchmark GPT-2 small as today's torch exports it: torch.onnx.export(dynamo=True,
opset_version=23), attention through F.scaled_dot_product_attention as transformers' GPT2 runs it
by default ("sdpa"), so the exporter writes ai.onnx Attention-23 nodes.

    <torch venv>/bin/python bench/make_gpt2_dynamo.py [OUTDIR] [--force]
    (torch 2.x with onnxscript: scripts/test_venv.sh --torch; onnxscript on PYTHONPATH if the
    venv lacks it)

Writes OUTDIR/gpt2_small_dynamo.onnx (OUTDIR defaults to bench/models/, gitignored like the other
benchmark models): the same weights as make_models.py's gpt2_small (the same GPT2LMHeadModel class
built right after the same seed), the same interface (int64 input_ids [batch, sequence] -> logits
[batch, sequence, 50257]), both axes dynamic. Only the attention's core differs in the source:
F.scaled_dot_product_attention(q, k, v, is_causal=True) instead of the explicit matmul / where /
softmax / matmul of the TorchScript-era model (transformers' sdpa path with no padding mask passes
is_causal for a prompt the same way). LayerNorm stays nn.LayerNorm (LayerNormalization-17 in the
export) and the GELU transformers' gelu_new (tanh formula, exported as Mul/Pow/Tanh/Add).
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


def export(path):
    torch.manual_seed(SEED)
    model = GPT2Sdpa(GPT2Config())  # built right after the seed, as make_models.py's gpt2_small
    model.eval()
    input_ids = torch.randint(0, GPT2Config.vocab_size, (2, 16))
    batch = torch.export.Dim("batch", max=64)
    sequence = torch.export.Dim("sequence", min=2, max=GPT2Config.n_positions)
    tmp = path + ".tmp"
    with torch.no_grad():
        program = torch.onnx.export(model, (input_ids,), dynamo=True, opset_version=OPSET,
                                    input_names=["input_ids"], output_names=["logits"],
                                    dynamic_shapes={"input_ids": {0: batch, 1: sequence}},
                                    optimize=True, external_data=False)
        program.save(tmp, external_data=False)
    os.replace(tmp, path)  # a killed export leaves no half-written model to be skipped next time


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?", default=os.path.join(HERE, "models"))
    ap.add_argument("--force", action="store_true", help="rebuild the model if it already exists")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    path = os.path.join(a.outdir, "gpt2_small_dynamo.onnx")
    print(f"torch {torch.__version__}, dynamo, opset {OPSET}, seed {SEED}, into {a.outdir}")
    if os.path.exists(path) and not a.force:
        print(f"gpt2_small_dynamo: present, skipped ({os.path.getsize(path) / 1e6:.1f} MB: {path})")
        return
    t0 = time.time()
    export(path)
    print(f"gpt2_small_dynamo: exported in {time.time() - t0:.1f} s, {os.path.getsize(path) / 1e6:.1f} MB: {path}")
    print(f"  {describe(path)}")


if __name__ == "__main__":
    main()
