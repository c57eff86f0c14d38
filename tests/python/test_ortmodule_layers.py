"""Common torch.nn layers under ORTModule give PyTorch's outputs and parameter gradients: the
export's forms of layer norm without affine parameters, group norm, multi-head attention, a
whole transformer encoder layer, 1-D convolution with pooling, norms and variances, embeddings
with max_norm. Each is differentiated against a random weighting of its output (not a loss that
a normalisation makes constant). Needs PyTorch; skipped without it."""
import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")
nn, F = torch.nn, torch.nn.functional
from onyx.training.ortmodule import ORTModule  # noqa: E402


class Apply(nn.Module):
    def __init__(self, fn, *modules):
        super().__init__()
        self.fn, self.parts = fn, nn.ModuleList(modules)

    def forward(self, x):
        return self.fn(self.parts, x)


LAYERS = {
    "layer norm without affine": (lambda: Apply(lambda m, x: m[1](F.layer_norm(m[0](x), (6,))), nn.Linear(5, 6),
                                                nn.Linear(6, 2)), lambda: torch.randn(3, 5)),
    "group norm": (lambda: Apply(lambda m, x: m[1](m[0](x)), nn.Conv2d(4, 4, 3), nn.GroupNorm(2, 4)),
                   lambda: torch.randn(2, 4, 6, 6)),
    "multi-head attention": (lambda: Apply(lambda m, x: m[0](x, x, x)[0], nn.MultiheadAttention(8, 2, batch_first=True)),
                             lambda: torch.randn(2, 5, 8)),
    "transformer encoder layer": (lambda: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
                                  lambda: torch.randn(2, 5, 8)),
    "conv1d and max pool": (lambda: Apply(lambda m, x: F.max_pool1d(m[0](x), 2), nn.Conv1d(3, 4, 3, padding=1)),
                            lambda: torch.randn(2, 3, 10)),
    "norm, std and var": (lambda: Apply(lambda m, x: m[0](x).norm(dim=1) + m[0](x).std(1) + m[0](x).var(1),
                                        nn.Linear(5, 6)), lambda: torch.randn(3, 5)),
    "embedding with max_norm": (lambda: Apply(lambda m, x: m[0](x).sum(1), nn.Embedding(10, 4, max_norm=1.0)),
                                lambda: torch.tensor([[5, 1, 2, 5]])),
    "instance norm": (lambda: Apply(lambda m, x: m[1](m[0](x)), nn.Conv2d(3, 4, 3), nn.InstanceNorm2d(4, affine=True)),
                      lambda: torch.randn(2, 3, 7, 7)),
    "activations": (lambda: Apply(lambda m, x: F.silu(F.mish(F.elu(F.leaky_relu(F.softplus(F.hardswish(m[0](x))), 0.1)))),
                                  nn.Linear(5, 6)), lambda: torch.randn(3, 5)),
    "pixel shuffle": (lambda: Apply(lambda m, x: F.pixel_shuffle(m[0](x), 2), nn.Conv2d(3, 8, 3)),
                      lambda: torch.randn(2, 3, 8, 8)),
    "cumsum and masked_fill": (lambda: Apply(lambda m, x: torch.cumsum(m[0](x).masked_fill(x[:, :1] > 0, 0.0), 1),
                                             nn.Linear(5, 6)), lambda: torch.randn(3, 5)),
    "topk": (lambda: Apply(lambda m, x: torch.topk(m[0](x), 3, dim=1)[0], nn.Linear(5, 6)), lambda: torch.randn(3, 5)),
    "clamp and maximum": (lambda: Apply(lambda m, x: torch.clamp(m[0](x), -0.2, 0.3) * torch.maximum(m[0](x), m[1](x)),
                                        nn.Linear(5, 6), nn.Linear(5, 6)), lambda: torch.randn(3, 5)),
    "nearest upsampling": (lambda: Apply(lambda m, x: F.interpolate(m[0](x), scale_factor=2, mode="nearest"),
                                         nn.Conv2d(3, 4, 3)), lambda: torch.randn(2, 3, 8, 8)),
    "bilinear upsampling": (lambda: Apply(lambda m, x: F.interpolate(m[0](x), scale_factor=2, mode="bilinear",
                                                                     align_corners=False), nn.Conv2d(3, 4, 3)),
                            lambda: torch.randn(2, 3, 8, 8)),
    "average pools": (lambda: Apply(lambda m, x: F.avg_pool2d(m[0](x), 3, 2, padding=1, ceil_mode=True,
                                                          count_include_pad=False) + F.avg_pool2d(m[0](x), 2, 2, ceil_mode=True),
                                    nn.Conv2d(4, 4, 1)), lambda: torch.randn(2, 4, 9, 9)),
    "transposed convolution": (lambda: nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1),
                               lambda: torch.randn(2, 4, 5, 5)),
    "flip, roll and strided slices": (lambda: Apply(lambda m, x: torch.roll(torch.flip(m[0](x), [1]), 2, 1)[:, ::2],
                                                    nn.Linear(5, 6)), lambda: torch.randn(3, 5)),
    "normalize and cosine similarity": (lambda: Apply(lambda m, x: F.normalize(m[0](x), dim=1)
                                                      + F.cosine_similarity(m[0](x), m[1](x), dim=1).unsqueeze(1),
                                                      nn.Linear(5, 6), nn.Linear(5, 6)), lambda: torch.randn(3, 5)),
    "tril, prod and global max pool": (lambda: Apply(lambda m, x: torch.tril(m[0](x)).prod(2).sum((1, 2))
                                                     + F.adaptive_max_pool2d(m[0](x), 1).flatten(1).sum(1),
                                                     nn.Conv2d(2, 3, 1)), lambda: torch.randn(2, 2, 4, 4)),
    "kl divergence": (lambda: Apply(lambda m, x: F.kl_div(F.log_softmax(m[0](x), 1), torch.softmax(x[:, :6].repeat(1, 2)[:, :6], 1),
                                                          reduction="batchmean").reshape(1), nn.Linear(5, 6)),
                      lambda: torch.randn(3, 5)),
    "expm1": (lambda: Apply(lambda m, x: torch.expm1(m[0](x) * 0.3), nn.Linear(5, 4)), lambda: torch.randn(6, 5)),
    "trigonometric and hyperbolic": (lambda: Apply(lambda m, x: torch.atan(m[0](x)) + torch.asin(torch.tanh(m[0](x)) * 0.5)
                                                    + torch.sinh(m[0](x) * 0.1) + torch.cosh(m[0](x) * 0.1)
                                                    + torch.asinh(m[0](x)) + torch.atanh(torch.tanh(m[0](x)) * 0.5)
                                                    + torch.acosh(m[0](x).abs() + 1.5) + F.softsign(m[0](x)),
                                                    nn.Linear(5, 4)), lambda: torch.randn(6, 5)),
    "einsum": (lambda: Apply(lambda m, x: torch.einsum("bi,bj->bij", m[0](x), x).sum(2), nn.Linear(5, 6)),
               lambda: torch.randn(3, 5)),
    "two-layer bidirectional LSTM": (lambda: Apply(lambda m, x: m[0](x)[0], nn.LSTM(4, 6, num_layers=2, batch_first=True,
                                                                               bidirectional=True)),
                                     lambda: torch.randn(3, 5, 4)),
    "GRU": (lambda: Apply(lambda m, x: m[0](x)[0], nn.GRU(4, 6, batch_first=True)), lambda: torch.randn(3, 5, 4)),
    "RNN with relu": (lambda: Apply(lambda m, x: m[0](x)[0], nn.RNN(4, 6, nonlinearity="relu", batch_first=True)),
                      lambda: torch.randn(3, 5, 4)),
    "indexing": (lambda: Apply(lambda m, x: m[0](x)[:, 0:1] + m[0](x)[..., -1:] + m[0](x)[x[:, :6].repeat(1, 2)[:, :6] > 0].sum()
                               + torch.zeros(3, 6).scatter(1, torch.tensor([[0, 2], [1, 3], [4, 5]]), m[0](x)[:, :2])
                               + m[0](x).index_put((torch.tensor([0, 2]),), m[0](x)[1:2].expand(2, 6) * 2),
                               nn.Linear(5, 6)), lambda: torch.randn(3, 5)),
    "unfold": (lambda: Apply(lambda m, x: F.unfold(m[0](x), 2), nn.Conv2d(3, 4, 1)), lambda: torch.randn(2, 3, 4, 4)),
    "logsumexp and amax": (lambda: Apply(lambda m, x: torch.logsumexp(m[0](x), 1) + m[0](x).amax(1), nn.Linear(5, 6)),
                           lambda: torch.randn(3, 5)),
}


@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_gives_pytorchs_outputs_and_gradients(name):
    make, example = LAYERS[name]
    torch.manual_seed(0)
    theirs = make()
    ours = copy.deepcopy(theirs)
    wrapped = ORTModule(ours)
    x = example()
    expected, got = theirs(x), wrapped(x)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-5)
    weights = torch.randn(expected.shape)
    (expected * weights).sum().backward()
    (got * weights).sum().backward()
    for (param, p), q in zip(theirs.named_parameters(), ours.parameters()):
        assert (p.grad is None) == (q.grad is None), param
        if p.grad is not None:
            np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-4, atol=1e-5, err_msg=param)
