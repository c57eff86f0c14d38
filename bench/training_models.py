"""The models issue 23 trains, as PyTorch modules of any size (the tests use them small, the
benchmark full size): an MLP, a BERT-like classifier, a GPT-2-like language model, and
torchvision's ResNet-18. Each `make_*` returns (module, example input, batch maker), the batch
maker taking a numpy Generator and giving (input, labels) as numpy arrays; GPT-2's logits are
flattened to [batch * seq, vocab] so that the CrossEntropy loss reads classes on axis 1."""
import numpy as np
import torch


class Mlp(torch.nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i + 1 < len(self.layers):
                x = torch.relu(x)
        return x


class Attention(torch.nn.Module):
    def __init__(self, hidden, heads, causal_len=0):
        super().__init__()
        self.hidden, self.heads = hidden, heads
        self.qkv = torch.nn.Linear(hidden, 3 * hidden)
        self.out = torch.nn.Linear(hidden, hidden)
        if causal_len:
            self.register_buffer("causal", torch.tril(torch.ones(causal_len, causal_len, dtype=torch.bool)))
        else:
            self.causal = None

    def forward(self, h):
        b, s, _ = h.shape
        q, k, v = self.qkv(h).split(self.hidden, dim=-1)
        split = lambda t: t.reshape(b, s, self.heads, self.hidden // self.heads).transpose(1, 2)  # noqa: E731
        scores = split(q) @ split(k).transpose(-1, -2) / (self.hidden // self.heads) ** 0.5
        if self.causal is not None:
            scores = torch.where(self.causal[:s, :s], scores, torch.tensor(-1e4))
        ctx = (torch.softmax(scores, dim=-1) @ split(v)).transpose(1, 2).reshape(b, s, self.hidden)
        return self.out(ctx)


class Encoder(torch.nn.Module):
    """BERT-like: token + position embeddings, LayerNorm, post-norm blocks of self-attention and
    an erf-GELU feed-forward, mean pooling, a linear head."""

    def __init__(self, vocab, seq, hidden, heads, layers, classes):
        super().__init__()
        self.tok = torch.nn.Embedding(vocab, hidden)
        self.pos = torch.nn.Parameter(torch.randn(seq, hidden) * 0.02)
        self.ln0 = torch.nn.LayerNorm(hidden)
        self.blocks = torch.nn.ModuleList(torch.nn.ModuleDict({
            "attn": Attention(hidden, heads), "ln1": torch.nn.LayerNorm(hidden),
            "ff1": torch.nn.Linear(hidden, 4 * hidden), "ff2": torch.nn.Linear(4 * hidden, hidden),
            "ln2": torch.nn.LayerNorm(hidden)}) for _ in range(layers))
        self.head = torch.nn.Linear(hidden, classes)

    def forward(self, ids):
        h = self.ln0(self.tok(ids) + self.pos)  # sequences of exactly `seq` tokens
        for blk in self.blocks:
            h = blk["ln1"](h + blk["attn"](h))
            h = blk["ln2"](h + blk["ff2"](torch.nn.functional.gelu(blk["ff1"](h))))
        return self.head(h.mean(dim=1))


class Decoder(torch.nn.Module):
    """GPT-2-like: token and position embeddings, pre-norm causal blocks with gelu_new (tanh),
    a final LayerNorm and the output projection tied to the token embedding."""

    def __init__(self, vocab, seq, hidden, heads, layers):
        super().__init__()
        self.wte = torch.nn.Embedding(vocab, hidden)
        self.wpe = torch.nn.Embedding(seq, hidden)
        self.blocks = torch.nn.ModuleList(torch.nn.ModuleDict({
            "ln1": torch.nn.LayerNorm(hidden), "attn": Attention(hidden, heads, causal_len=seq),
            "ln2": torch.nn.LayerNorm(hidden), "fc": torch.nn.Linear(hidden, 4 * hidden),
            "proj": torch.nn.Linear(4 * hidden, hidden)}) for _ in range(layers))
        self.lnf = torch.nn.LayerNorm(hidden)

    def forward(self, ids):
        b, s = ids.shape
        h = self.wte(ids) + self.wpe(torch.arange(s, device=ids.device))
        for blk in self.blocks:
            h = h + blk["attn"](blk["ln1"](h))
            f = blk["fc"](blk["ln2"](h))
            f = 0.5 * f * (1 + torch.tanh(0.7978845608 * (f + 0.044715 * torch.pow(f, 3))))
            h = h + blk["proj"](f)
        return (self.lnf(h) @ self.wte.weight.t()).reshape(b * s, -1)


class TinyCnn(torch.nn.Module):
    """ResNet's pieces, small: conv-BN-ReLU, max pooling, a residual conv-BN block, global
    average pooling and a linear head (batch normalization in training mode)."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False), torch.nn.BatchNorm2d(8),
                                        torch.nn.ReLU(), torch.nn.MaxPool2d(3, stride=2, padding=1))
        self.block = torch.nn.Sequential(torch.nn.Conv2d(8, 8, 3, padding=1, bias=False), torch.nn.BatchNorm2d(8))
        self.head = torch.nn.Linear(8, 5)

    def forward(self, x):
        h = self.stem(x)
        h = torch.relu(h + self.block(h))
        return self.head(torch.nn.functional.adaptive_avg_pool2d(h, 1).flatten(1))


def make_mlp(sizes=(784, 512, 512, 10), batch=64):
    net = Mlp(list(sizes))
    return net, torch.zeros(2, sizes[0]), lambda g: (g.standard_normal((batch, sizes[0])).astype(np.float32),
                                                     g.integers(0, sizes[-1], batch).astype(np.int64))


def make_encoder(vocab=30522, seq=128, hidden=256, heads=4, layers=4, classes=2, batch=8):
    net = Encoder(vocab, seq, hidden, heads, layers, classes)
    return net, torch.zeros(2, seq, dtype=torch.long), lambda g: (g.integers(0, vocab, (batch, seq)).astype(np.int64),
                                                                  g.integers(0, classes, batch).astype(np.int64))


def make_decoder(vocab=50257, seq=128, hidden=768, heads=12, layers=12, batch=1):
    net = Decoder(vocab, seq, hidden, heads, layers)

    def batch_of(g):
        tokens = g.integers(0, vocab, (batch, seq + 1)).astype(np.int64)
        return np.ascontiguousarray(tokens[:, :seq]), tokens[:, 1:].reshape(-1)
    return net, torch.zeros(1, seq, dtype=torch.long), batch_of


def make_resnet18(classes=10, size=64, batch=8):
    import torchvision

    net = torchvision.models.resnet18(num_classes=classes)
    return net, torch.zeros(2, 3, size, size), lambda g: (g.standard_normal((batch, 3, size, size)).astype(np.float32),
                                                          g.integers(0, classes, batch).astype(np.int64))


MODELS = {"mlp": make_mlp, "bert": make_encoder, "gpt2": make_decoder, "resnet18": make_resnet18}


def export(net, example, path):
    torch.onnx.export(net, (example,), path, input_names=["input"], output_names=["output"], opset_version=17,
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                      dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
