#!/usr/bin/python3
"""Builds the benchmark models: random weights, fixed seeds, torch.onnx.export at opset 17.

    /usr/bin/python3 bench/make_models.py [OUTDIR] [--models a,b] [--force]

OUTDIR defaults to bench/models/ (gitignored: the models are never committed). A model that is
already there is skipped unless --force. Needs torch + torchvision (bench/setup.sh).

  resnet50.onnx      torchvision ResNet-50      input  float32 input [batch,3,224,224] -> logits [batch,1000]
  mobilenet_v2.onnx  torchvision MobileNetV2    input  float32 input [batch,3,224,224] -> logits [batch,1000]
  bert_base.onnx     BERT-base encoder written like Hugging Face's BertModel (no pooler)
                     int64 input_ids, attention_mask, token_type_ids [batch,sequence]
                     -> last_hidden_state [batch,sequence,768]
  gpt2_small.onnx    GPT-2-small decoder written like Hugging Face's GPT2LMHeadModel (no KV cache)
                     int64 input_ids [batch,sequence] -> logits [batch,sequence,50257]
  gpt2_decoder.onnx  the same GPT-2 small (same seed, same weights) with a KV cache, for
                     token-by-token decoding (bench/decode_compare.py):
                     int64 input_ids [batch,seq], float32 past_key_{i}, past_value_{i}
                     [batch,12,past_seq,64] for i = 0..11 -> logits [batch,seq,50257],
                     present_key_{i}, present_value_{i} [batch,12,past_seq+seq,64]

--check-decoder (with onyx's Python API on PYTHONPATH, e.g. build/python) runs gpt2_decoder
under onyx on a 16-token prompt (empty past) and then 4 single tokens, and on a 12-token prompt,
a 4-token chunk (seq > 1 with past > 0) and the same 4 single tokens, and compares its logits with
gpt2_small's on the 20 tokens; exits 1 beyond 1e-4 (max abs difference).
"""
import argparse
import inspect
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

OPSET = 17
SEED = 0


# ---------------------------------------------------------------------------------------------
# BERT-base, after transformers' modeling_bert.py (BertModel without the pooler), eval mode:
# dropout is omitted.

class BertConfig:
    vocab_size = 30522
    hidden_size = 768
    num_hidden_layers = 12
    num_attention_heads = 12
    intermediate_size = 3072
    max_position_embeddings = 512
    type_vocab_size = 2
    layer_norm_eps = 1e-12
    initializer_range = 0.02


class BertEmbeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.word_embeddings = nn.Embedding(c.vocab_size, c.hidden_size)
        self.position_embeddings = nn.Embedding(c.max_position_embeddings, c.hidden_size)
        self.token_type_embeddings = nn.Embedding(c.type_vocab_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.register_buffer("position_ids", torch.arange(c.max_position_embeddings).expand((1, -1)))

    def forward(self, input_ids, token_type_ids):
        seq_length = input_ids.size(1)
        position_ids = self.position_ids[:, :seq_length]
        embeddings = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        embeddings = embeddings + self.position_embeddings(position_ids)
        return self.LayerNorm(embeddings)


class BertSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.num_attention_heads = c.num_attention_heads
        self.attention_head_size = c.hidden_size // c.num_attention_heads
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(c.hidden_size, self.all_head_size)
        self.key = nn.Linear(c.hidden_size, self.all_head_size)
        self.value = nn.Linear(c.hidden_size, self.all_head_size)

    def transpose_for_scores(self, x):
        new_x_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
        return x.view(new_x_shape).permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask):
        query_layer = self.transpose_for_scores(self.query(hidden_states))
        key_layer = self.transpose_for_scores(self.key(hidden_states))
        value_layer = self.transpose_for_scores(self.value(hidden_states))
        attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
        attention_scores = attention_scores / math.sqrt(self.attention_head_size)
        attention_scores = attention_scores + attention_mask
        attention_probs = nn.functional.softmax(attention_scores, dim=-1)
        context_layer = torch.matmul(attention_probs, value_layer)
        context_layer = context_layer.permute(0, 2, 1, 3).contiguous()
        new_context_layer_shape = context_layer.size()[:-2] + (self.all_head_size,)
        return context_layer.view(new_context_layer_shape)


class BertSelfOutput(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(self.dense(hidden_states) + input_tensor)


class BertAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self = BertSelfAttention(c)
        self.output = BertSelfOutput(c)

    def forward(self, hidden_states, attention_mask):
        return self.output(self.self(hidden_states, attention_mask), hidden_states)


class BertIntermediate(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.intermediate_size)

    def forward(self, hidden_states):
        return F.gelu(self.dense(hidden_states))  # exact (erf) GELU, transformers' "gelu"


class BertOutput(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.intermediate_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(self.dense(hidden_states) + input_tensor)


class BertLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = BertAttention(c)
        self.intermediate = BertIntermediate(c)
        self.output = BertOutput(c)

    def forward(self, hidden_states, attention_mask):
        attention_output = self.attention(hidden_states, attention_mask)
        return self.output(self.intermediate(attention_output), attention_output)


class BertModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embeddings = BertEmbeddings(c)
        self.encoder = nn.ModuleList([BertLayer(c) for _ in range(c.num_hidden_layers)])
        self.apply(lambda m: init_hf_weights(m, c.initializer_range))

    def forward(self, input_ids, attention_mask, token_type_ids):
        # get_extended_attention_mask: [batch, 1, 1, seq], 0 where attended, finfo.min where masked.
        # In the weights' dtype, as transformers does (float32 when exported; float16 after .half()).
        dtype = self.embeddings.word_embeddings.weight.dtype
        extended = attention_mask[:, None, None, :].to(dtype)
        extended = (1.0 - extended) * torch.finfo(dtype).min
        hidden_states = self.embeddings(input_ids, token_type_ids)
        for layer in self.encoder:
            hidden_states = layer(hidden_states, extended)
        return hidden_states


# ---------------------------------------------------------------------------------------------
# GPT-2 small, after transformers' modeling_gpt2.py (GPT2LMHeadModel, no KV cache), eval mode.
# The HF Conv1D (addmm on a [in, out] weight) is an nn.Linear here.

class GPT2Config:
    vocab_size = 50257
    n_positions = 1024
    n_embd = 768
    n_layer = 12
    n_head = 12
    layer_norm_epsilon = 1e-5
    initializer_range = 0.02


def gelu_new(x):
    # transformers' NewGELUActivation: the tanh approximation, as GPT-2 was trained with.
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class GPT2Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        n = c.n_positions
        self.register_buffer("bias", torch.tril(torch.ones((n, n), dtype=torch.bool)).view(1, 1, n, n))
        self.embed_dim = c.n_embd
        self.num_heads = c.n_head
        self.head_dim = c.n_embd // c.n_head
        self.c_attn = nn.Linear(c.n_embd, 3 * c.n_embd)
        self.c_proj = nn.Linear(c.n_embd, c.n_embd)

    def _split_heads(self, tensor):
        new_shape = tensor.size()[:-1] + (self.num_heads, self.head_dim)
        return tensor.view(new_shape).permute(0, 2, 1, 3)  # (batch, head, seq, head_dim)

    def _merge_heads(self, tensor):
        tensor = tensor.permute(0, 2, 1, 3).contiguous()
        return tensor.view(tensor.size()[:-2] + (self.num_heads * self.head_dim,))

    def forward(self, hidden_states):
        query, key, value = self.c_attn(hidden_states).split(self.embed_dim, dim=2)
        query, key, value = self._split_heads(query), self._split_heads(key), self._split_heads(value)
        attn_weights = torch.matmul(query, key.transpose(-1, -2))
        attn_weights = attn_weights / (value.size(-1) ** 0.5)
        query_length, key_length = query.size(-2), key.size(-2)
        causal_mask = self.bias[:, :, key_length - query_length : key_length, :key_length]
        mask_value = torch.tensor(torch.finfo(attn_weights.dtype).min, dtype=attn_weights.dtype)
        attn_weights = torch.where(causal_mask, attn_weights, mask_value)
        attn_weights = nn.functional.softmax(attn_weights, dim=-1)
        attn_output = self._merge_heads(torch.matmul(attn_weights, value))
        return self.c_proj(attn_output)


class GPT2MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c_fc = nn.Linear(c.n_embd, 4 * c.n_embd)
        self.c_proj = nn.Linear(4 * c.n_embd, c.n_embd)

    def forward(self, hidden_states):
        return self.c_proj(gelu_new(self.c_fc(hidden_states)))


class GPT2Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ln_1 = nn.LayerNorm(c.n_embd, eps=c.layer_norm_epsilon)
        self.attn = GPT2Attention(c)
        self.ln_2 = nn.LayerNorm(c.n_embd, eps=c.layer_norm_epsilon)
        self.mlp = GPT2MLP(c)

    def forward(self, hidden_states):
        hidden_states = hidden_states + self.attn(self.ln_1(hidden_states))
        return hidden_states + self.mlp(self.ln_2(hidden_states))


class GPT2LMHeadModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.wte = nn.Embedding(c.vocab_size, c.n_embd)
        self.wpe = nn.Embedding(c.n_positions, c.n_embd)
        self.h = nn.ModuleList([GPT2Block(c) for _ in range(c.n_layer)])
        self.ln_f = nn.LayerNorm(c.n_embd, eps=c.layer_norm_epsilon)
        self.lm_head = nn.Linear(c.n_embd, c.vocab_size, bias=False)
        self.apply(lambda m: init_hf_weights(m, c.initializer_range))
        for name, p in self.named_parameters():  # GPT-2's scaled init of the residual projections
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, mean=0.0, std=c.initializer_range / math.sqrt(2 * c.n_layer))
        self.lm_head.weight = self.wte.weight  # tied

    def forward(self, input_ids):
        position_ids = torch.arange(0, input_ids.size(-1), dtype=torch.long, device=input_ids.device).unsqueeze(0)
        hidden_states = self.wte(input_ids) + self.wpe(position_ids)
        for block in self.h:
            hidden_states = block(hidden_states)
        return self.lm_head(self.ln_f(hidden_states))


class GPT2DecoderWithPast(GPT2LMHeadModel):
    """GPT2LMHeadModel with HF's `past_key_values` path: the same modules (so the same seed gives
    the same weights as gpt2_small), a forward that takes and returns the KV cache, flat:
    forward(input_ids, past_key_0, past_value_0, ..., past_key_11, past_value_11)
    -> (logits, present_key_0, present_value_0, ...). present = concat(past, new) on axis 2."""

    def forward(self, input_ids, *past):
        past_length = past[0].size(-2)
        position_ids = torch.arange(past_length, past_length + input_ids.size(-1), dtype=torch.long,
                                    device=input_ids.device).unsqueeze(0)
        hidden_states = self.wte(input_ids) + self.wpe(position_ids)
        presents = []
        for i, block in enumerate(self.h):
            attn_out, key, value = attention_with_past(block.attn, block.ln_1(hidden_states), past[2 * i], past[2 * i + 1])
            hidden_states = hidden_states + attn_out
            hidden_states = hidden_states + block.mlp(block.ln_2(hidden_states))
            presents += [key, value]
        return (self.lm_head(self.ln_f(hidden_states)), *presents)


def attention_with_past(attn, hidden_states, past_key, past_value):
    """GPT2Attention.forward with layer_past, as transformers writes it: the new keys/values go
    after the cached ones, and query t (absolute position past+t) sees keys j <= past+t through
    the rows key_length-query_length .. key_length of the lower-triangular buffer."""
    query, key, value = attn.c_attn(hidden_states).split(attn.embed_dim, dim=2)
    query, key, value = attn._split_heads(query), attn._split_heads(key), attn._split_heads(value)
    key = torch.cat((past_key, key), dim=-2)
    value = torch.cat((past_value, value), dim=-2)
    attn_weights = torch.matmul(query, key.transpose(-1, -2))
    attn_weights = attn_weights / (value.size(-1) ** 0.5)
    query_length, key_length = query.size(-2), key.size(-2)
    causal_mask = attn.bias[:, :, key_length - query_length : key_length, :key_length]
    mask_value = torch.tensor(torch.finfo(attn_weights.dtype).min, dtype=attn_weights.dtype)
    attn_weights = torch.where(causal_mask, attn_weights, mask_value)
    attn_weights = nn.functional.softmax(attn_weights, dim=-1)
    attn_output = attn._merge_heads(torch.matmul(attn_weights, value))
    return attn.c_proj(attn_output), key, value


def init_hf_weights(module, std):
    if isinstance(module, (nn.Linear, nn.Embedding)):
        nn.init.normal_(module.weight, mean=0.0, std=std)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)
    elif isinstance(module, nn.LayerNorm):
        nn.init.ones_(module.weight)
        nn.init.zeros_(module.bias)


# ---------------------------------------------------------------------------------------------

def make_vision(factory):
    def make():
        model = factory(weights=None)
        calibrate_batch_norm(model)
        image = torch.randn(1, 3, 224, 224)
        return model, (image,), ["input"], ["logits"], {"input": {0: "batch"}, "logits": {0: "batch"}}
    return make


def calibrate_batch_norm(model, images=8):
    """Sets every BatchNorm's running mean/var from one random batch (cumulative average), so that
    activations stay O(1) as in a trained network; with torchvision's fresh statistics (mean 0,
    var 1) MobileNetV2's logits shrink to ~1e-9 and ResNet-50's grow to ~1e2."""
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.reset_running_stats()
            m.momentum = None
    model.train()
    with torch.no_grad():
        model(torch.randn(images, 3, 224, 224))
    model.eval()


def make_bert():
    model = BertModel(BertConfig())
    batch, seq = 1, 16
    input_ids = torch.randint(0, BertConfig.vocab_size, (batch, seq))
    attention_mask = torch.ones(batch, seq, dtype=torch.long)
    token_type_ids = torch.zeros(batch, seq, dtype=torch.long)
    bs = {0: "batch", 1: "sequence"}
    return (model, (input_ids, attention_mask, token_type_ids), ["input_ids", "attention_mask", "token_type_ids"],
            ["last_hidden_state"], {"input_ids": bs, "attention_mask": bs, "token_type_ids": bs, "last_hidden_state": bs})


def make_gpt2():
    model = GPT2LMHeadModel(GPT2Config())
    input_ids = torch.randint(0, GPT2Config.vocab_size, (1, 16))
    bs = {0: "batch", 1: "sequence"}
    return model, (input_ids,), ["input_ids"], ["logits"], {"input_ids": bs, "logits": bs}


def make_gpt2_decoder():
    c = GPT2Config()
    model = GPT2DecoderWithPast(c)  # built right after the seed, as gpt2_small: the same weights
    # Traced with past 3, seq 2 (both non-zero and different, so that no size is mistaken for a
    # constant or for another size); every size is a dynamic axis.
    batch, seq, past_seq, head_dim = 1, 2, 3, c.n_embd // c.n_head
    input_ids = torch.randint(0, c.vocab_size, (batch, seq))
    past, input_names, output_names = [], ["input_ids"], ["logits"]
    axes = {"input_ids": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}}
    for i in range(c.n_layer):
        for kind in ("key", "value"):
            past.append(torch.randn(batch, c.n_head, past_seq, head_dim))
            input_names.append(f"past_{kind}_{i}")
            output_names.append(f"present_{kind}_{i}")
            axes[input_names[-1]] = {0: "batch", 2: "past_seq"}
            axes[output_names[-1]] = {0: "batch", 2: "total_seq"}
    return model, (input_ids, *past), input_names, output_names, axes


def check_decoder(outdir, prompt=16, steps=4, tol=1e-4):
    """gpt2_decoder against gpt2_small on the whole sequence, both under onyx: a PROMPT-token
    prompt with an empty past, then STEPS single tokens fed back with the presents; and (for the
    mask with seq > 1 and past > 0) a shorter prompt followed by a 4-token chunk, then the same
    single tokens. True when every logit is within TOL."""
    import numpy as np
    import onyx as ort
    c = GPT2Config()
    head_dim = c.n_embd // c.n_head
    rng = np.random.default_rng(SEED)
    ids = rng.integers(0, c.vocab_size, size=(1, prompt + steps), dtype=np.int64)
    full = ort.InferenceSession(os.path.join(outdir, "gpt2_small.onnx"))
    ref = full.run(["logits"], {"input_ids": ids})[0].astype(np.float64)
    dec = ort.InferenceSession(os.path.join(outdir, "gpt2_decoder.onnx"))
    outputs = [o.name for o in dec.get_outputs()]
    ok = True
    for chunks in ([prompt] + [1] * steps, [prompt - 4, 4] + [1] * steps):
        past = {f"past_{k}_{i}": np.zeros((1, c.n_head, 0, head_dim), np.float32)
                for i in range(c.n_layer) for k in ("key", "value")}
        got, pos = [], 0
        for n in chunks:
            res = dict(zip(outputs, dec.run(outputs, {"input_ids": ids[:, pos:pos + n], **past})))
            pos += n
            got.append(res["logits"])
            for name in past:
                present = res[name.replace("past_", "present_")]
                if present.shape != (1, c.n_head, pos, head_dim):
                    print(f"check-decoder: {name.replace('past_', 'present_')} has shape {present.shape} at length {pos}")
                    return False
                past[name] = present
        got = np.concatenate(got, axis=1)
        d = np.abs(got.astype(np.float64) - ref)
        per_pos = d.max(axis=(0, 2))
        print(f"check-decoder (onyx): gpt2_decoder fed {'+'.join(map(str, chunks))} tokens (empty past first) vs "
              f"gpt2_small on {prompt + steps}: max abs diff {d.max():.2e} (|logits| up to {np.abs(ref).max():.2f}); "
              f"last {steps + 1} positions {' '.join(f'{x:.1e}' for x in per_pos[-steps - 1:])}; argmax equal at "
              f"{int((got.argmax(-1) == ref.argmax(-1)).sum())}/{prompt + steps} positions")
        ok = ok and float(d.max()) <= tol
    return ok


def models():
    import torchvision
    return {
        "resnet50": make_vision(torchvision.models.resnet50),
        "mobilenet_v2": make_vision(torchvision.models.mobilenet_v2),
        "bert_base": make_bert,
        "gpt2_small": make_gpt2,
        "gpt2_decoder": make_gpt2_decoder,
    }


def export(name, make, path):
    torch.manual_seed(SEED)
    model, args, input_names, output_names, dynamic_axes = make()
    model.eval()
    tmp = path + ".tmp"
    with torch.no_grad():
        # torch >= 2.9 exports through dynamo by default; the TorchScript exporter gives the graphs
        # (and the fusion patterns) measured here with Debian's torch 1.13.
        legacy = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
        torch.onnx.export(model, args, tmp, opset_version=OPSET, input_names=input_names,
                          output_names=output_names, dynamic_axes=dynamic_axes, do_constant_folding=True, **legacy)
    os.replace(tmp, path)  # a killed export leaves no half-written model to be skipped next time


def describe(path):
    import onnx
    m = onnx.load(path, load_external_data=False)
    ops = {}
    for n in m.graph.node:
        ops[n.op_type] = ops.get(n.op_type, 0) + 1
    params = sum(int(math.prod(t.dims)) for t in m.graph.initializer)
    hist = " ".join(f"{k}:{v}" for k, v in sorted(ops.items(), key=lambda kv: -kv[1]))
    return f"{len(m.graph.node)} nodes, {params / 1e6:.1f}M initializer elements; {hist}"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir", nargs="?", default=os.path.join(here, "models"))
    ap.add_argument("--models", default="resnet50,mobilenet_v2,bert_base,gpt2_small,gpt2_decoder")
    ap.add_argument("--force", action="store_true", help="rebuild models that already exist")
    ap.add_argument("--check-decoder", action="store_true",
                    help="after the exports, check gpt2_decoder against gpt2_small under onyx (both must exist)")
    a = ap.parse_args()
    table = models()
    wanted = [m.strip() for m in a.models.split(",") if m.strip()]
    for m in wanted:
        if m not in table:
            sys.exit(f"unknown model '{m}' (known: {', '.join(table)})")
    os.makedirs(a.outdir, exist_ok=True)
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    print(f"torch {torch.__version__}, opset {OPSET}, seed {SEED}, into {a.outdir}")
    for m in wanted:
        path = os.path.join(a.outdir, m + ".onnx")
        if os.path.exists(path) and not a.force:
            print(f"{m}: present, skipped ({os.path.getsize(path) / 1e6:.1f} MB: {path})")
            continue
        t0 = time.time()
        export(m, table[m], path)
        dt = time.time() - t0
        print(f"{m}: exported in {dt:.1f} s, {os.path.getsize(path) / 1e6:.1f} MB: {path}")
        print(f"  {describe(path)}")
        sys.stdout.flush()
    if a.check_decoder and not check_decoder(a.outdir):
        sys.exit("check-decoder: gpt2_decoder's logits differ from gpt2_small's beyond 1e-4")


if __name__ == "__main__":
    main()
