#!/usr/bin/python3
"""Kernel cases for recurrent ops (RNN, GRU, LSTM), signal ops (DFT, STFT, window functions,
MelWeightMatrix) and text ops (TfIdfVectorizer, StringNormalizer).

Usage: gen_rnn_signal.py OUT_DIR (see kcase.py for the layout)."""
import numpy as np
from onnx import TensorProto as TP
from onnx import helper

from kcase import Writer, model, value_info

w = Writer()
rng = np.random.default_rng(404)
f32 = np.float32

# ---------------------------------------------------------------- recurrent ops
# activation name -> (function of x, alpha, beta; default alpha; default beta)
ACTS = {
    "tanh": (lambda x, a, b: np.tanh(x), None, None),
    "sigmoid": (lambda x, a, b: 1 / (1 + np.exp(-x)), None, None),
    "relu": (lambda x, a, b: np.maximum(x, 0), None, None),
    "leakyrelu": (lambda x, a, b: np.where(x >= 0, x, a * x), 0.01, None),
    "thresholdedrelu": (lambda x, a, b: np.where(x > a, x, 0), 1.0, None),
    "elu": (lambda x, a, b: np.where(x >= 0, x, a * (np.exp(x) - 1)), 1.0, None),
    "hardsigmoid": (lambda x, a, b: np.clip(a * x + b, 0, 1), 0.2, 0.5),
    "scaledtanh": (lambda x, a, b: a * np.tanh(b * x), 1.0, 1.0),
    "affine": (lambda x, a, b: a * x + b, 1.0, 0.0),
    "softsign": (lambda x, a, b: x / (1 + np.abs(x)), None, None),
    "softplus": (lambda x, a, b: np.log1p(np.exp(x)), None, None),
}


def bind_activations(names, alphas, betas):
    """activation_alpha/beta are consumed in the order of the functions. The cases list the
    functions taking alpha and beta first, then those taking alpha only, then the rest, so that
    reading the lists positionally or skipping functions without the parameter agree."""
    fns, ai, bi = [], 0, 0
    for n in names:
        fn, da, db = ACTS[n.lower()]
        a = b = None
        if da is not None:
            a = alphas[ai] if ai < len(alphas) else da
            ai += 1
        if db is not None:
            b = betas[bi] if bi < len(betas) else db
            bi += 1
        fns.append(lambda x, fn=fn, a=a, b=b: fn(x, a, b))
    return fns


def rnn_reference(op, X, W, R, B, lens, h0, c0, P, direction, fns, clip, lbr, input_forget):
    """Layout-0 reference in float64. Y is zero past each sequence's length."""
    S, batch, _ = X.shape
    D, H = W.shape[0], R.shape[2]
    G = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    nf = {"RNN": 1, "GRU": 2, "LSTM": 3}[op]
    B = np.zeros((D, 2 * G * H)) if B is None else B
    lens = np.full(batch, S) if lens is None else lens
    h0 = np.zeros((D, batch, H)) if h0 is None else h0
    c0 = np.zeros((D, batch, H)) if c0 is None else c0
    P = np.zeros((D, 3 * H)) if P is None else P
    cl = (lambda v: np.clip(v, -clip, clip)) if clip else (lambda v: v)
    Y, Yh, Yc = np.zeros((S, D, batch, H)), np.zeros((D, batch, H)), np.zeros((D, batch, H))
    for d in range(D):
        f, g, hf = (fns[d * nf:(d + 1) * nf] + [None, None])[:3]
        Wd, Rd, Wb, Rb = W[d].astype(np.float64), R[d].astype(np.float64), B[d][:G * H], B[d][G * H:]
        for b in range(batch):
            h, c = h0[d, b].astype(np.float64), c0[d, b].astype(np.float64)
            steps = range(lens[b] - 1, -1, -1) if (direction == "reverse" or d == 1) else range(lens[b])
            for t in steps:
                x = X[t, b].astype(np.float64)
                if op == "RNN":
                    h = f(cl(Wd @ x + Rd @ h + Wb + Rb))
                elif op == "GRU":
                    (wz, wr, wh), (rz, rr, rh) = np.split(Wd, 3), np.split(Rd, 3)
                    (wbz, wbr, wbh), (rbz, rbr, rbh) = np.split(Wb, 3), np.split(Rb, 3)
                    z = f(cl(wz @ x + rz @ h + wbz + rbz))
                    r = f(cl(wr @ x + rr @ h + wbr + rbr))
                    if lbr:
                        hh = g(cl(wh @ x + r * (rh @ h + rbh) + wbh))
                    else:
                        hh = g(cl(wh @ x + rh @ (r * h) + rbh + wbh))
                    h = (1 - z) * hh + z * h
                else:
                    gi, go, gf, gc = np.split(Wd @ x + Rd @ h + Wb + Rb, 4)
                    pi, po, pf = np.split(P[d], 3)
                    i = f(cl(gi + pi * c))
                    fg = 1 - i if input_forget else f(cl(gf + pf * c))
                    c = fg * c + i * g(cl(gc))
                    o = f(cl(go + po * c))
                    # With clip, the cases keep |c| below the threshold, so whether h() sees a
                    # clipped c does not matter.
                    assert not clip or np.all(np.abs(c) < clip)
                    h = o * hf(c)
                Y[t, d, b] = h
            Yh[d, b], Yc[d, b] = h, c
    return Y, Yh, Yc


def rnn_case(name, op, S=4, batch=3, I=5, H=4, direction="forward", layout=0, use_B=True, use_lens=False,
             use_h0=False, use_c0=False, use_P=False, acts=None, alphas=(), betas=(), clip=None, lbr=0,
             input_forget=0, dtype=np.float32, outputs=("Y", "Y_h", "Y_c"), wscale=0.5):
    D = 2 if direction == "bidirectional" else 1
    G = {"RNN": 1, "GRU": 3, "LSTM": 4}[op]
    X = rng.standard_normal((S, batch, I)).astype(dtype)
    W = (rng.standard_normal((D, G * H, I)) * wscale).astype(dtype)
    R = (rng.standard_normal((D, G * H, H)) * wscale).astype(dtype)
    B = (rng.standard_normal((D, 2 * G * H)) * wscale).astype(dtype) if use_B else None
    lens = rng.integers(1, S + 1, batch).astype(np.int32) if use_lens else None
    if use_lens:
        lens[0] = S
    h0 = rng.standard_normal((D, batch, H)).astype(dtype) if use_h0 else None
    c0 = rng.standard_normal((D, batch, H)).astype(dtype) if use_c0 else None
    P = (rng.standard_normal((D, 3 * H)) * wscale).astype(dtype) if use_P else None
    default = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}[op]
    fns = bind_activations(acts or default * D, list(alphas), list(betas))
    Y, Yh, Yc = rnn_reference(op, X, W, R, B, lens, h0, c0, P, direction, fns, clip, lbr, input_forget)
    if layout == 1:  # batch first
        X = X.transpose(1, 0, 2)
        h0, c0 = [None if v is None else v.transpose(1, 0, 2) for v in (h0, c0)]
        Y, Yh, Yc = Y.transpose(2, 0, 1, 3), Yh.transpose(1, 0, 2), Yc.transpose(1, 0, 2)
    inputs = [("X", X), ("W", W), ("R", R), ("B", B), ("sequence_lens", lens), ("initial_h", h0)]
    if op == "LSTM":
        inputs += [("initial_c", c0), ("P", P)]
    vals = {"Y": Y, "Y_h": Yh, "Y_c": Yc}
    out_names = [n if n in outputs else "" for n in ["Y", "Y_h", "Y_c"][:2 + (op == "LSTM")]]
    while out_names[-1] == "":
        out_names.pop()
    outs = [(n, vals[n].astype(dtype)) for n in out_names if n]
    attrs = dict(hidden_size=H, direction=direction)
    for key, val in [("layout", layout), ("activations", acts), ("activation_alpha", list(alphas)),
                     ("activation_beta", list(betas)), ("clip", clip), ("linear_before_reset", lbr), ("input_forget", input_forget)]:
        if val:
            attrs[key] = val
    in_names = [n if v is not None else "" for n, v in inputs]
    while in_names[-1] == "":
        in_names.pop()
    node = helper.make_node(op, in_names, out_names, **attrs)
    m = model([node], [value_info(n, v) for n, v in inputs if v is not None], [value_info(n, v) for n, v in outs], opset=14)
    w.model_case(name, m, [v for _, v in inputs if v is not None], [v for _, v in outs])


for op in ["RNN", "GRU", "LSTM"]:
    o = op.lower()
    rnn_case(f"{o}_forward", op)
    rnn_case(f"{o}_reverse_lens", op, direction="reverse", use_lens=True, use_h0=True, use_c0=True)
    rnn_case(f"{o}_bidirectional", op, direction="bidirectional", use_lens=True, use_h0=True, use_c0=True, use_P=True)
    rnn_case(f"{o}_bidirectional_layout1", op, direction="bidirectional", layout=1, use_lens=True, use_h0=True, use_c0=True, use_P=True)
    rnn_case(f"{o}_reverse_layout1_no_bias_only_yh", op, direction="reverse", layout=1, use_B=False, outputs=("Y_h",))
    rnn_case(f"{o}_double", op, dtype=np.float64, direction="bidirectional", use_lens=True)
rnn_case("rnn_clip", "RNN", clip=0.7, direction="bidirectional", wscale=1.0)
rnn_case("gru_clip", "GRU", clip=0.7, direction="bidirectional", wscale=1.0)
rnn_case("lstm_clip", "LSTM", S=3, clip=3.2, direction="bidirectional", wscale=1.5)
rnn_case("gru_linear_before_reset", "GRU", lbr=1, direction="bidirectional", use_lens=True, use_h0=True)
rnn_case("gru_linear_before_reset_layout1", "GRU", lbr=1, layout=1, use_h0=True)
rnn_case("lstm_input_forget", "LSTM", input_forget=1, use_P=True, use_h0=True, use_c0=True)
rnn_case("rnn_activations", "RNN", direction="bidirectional", acts=["HardSigmoid", "LeakyRelu"], alphas=(0.3, 0.2), betas=(0.4,))
rnn_case("rnn_relu", "RNN", acts=["Relu"])
rnn_case("gru_activations", "GRU", direction="bidirectional", acts=["HardSigmoid", "ScaledTanh", "Sigmoid", "Softsign"],
         alphas=(0.25, 0.9), betas=(0.45, 1.1))
rnn_case("lstm_activations", "LSTM", direction="bidirectional",
         acts=["HardSigmoid", "ScaledTanh", "Affine", "Elu", "ThresholdedRelu", "Softplus"],
         alphas=(0.3, 0.8, 0.5, 0.6, 0.1), betas=(0.6, 1.2, 0.2), use_P=True)
rnn_case("lstm_odd_sizes", "LSTM", S=7, batch=5, I=19, H=11, direction="bidirectional", use_lens=True, use_P=True)
rnn_case("gru_odd_sizes", "GRU", S=6, batch=9, I=17, H=13, direction="bidirectional", use_lens=True)
rnn_case("rnn_odd_sizes", "RNN", S=6, batch=7, I=33, H=21, direction="bidirectional", use_lens=True, use_h0=True)
rnn_case("lstm_f16", "LSTM", dtype=np.float16, direction="bidirectional", use_lens=True)
rnn_case("gru_f16_layout1", "GRU", dtype=np.float16, layout=1)
# Empty sequence and empty batch give empty outputs.
z = lambda *s: np.zeros(s, f32)
w.case("lstm_seq_length0", "LSTM", [("X", z(0, 3, 4)), ("W", np.ones((2, 8, 4), f32)), ("R", np.ones((2, 8, 2), f32))],
       [("Y", z(0, 2, 3, 2))], opset=14, hidden_size=2, direction="bidirectional")
w.case("gru_batch0_layout1", "GRU", [("X", z(0, 3, 4)), ("W", np.ones((1, 6, 4), f32)), ("R", np.ones((1, 6, 2), f32))],
       [("Y", z(0, 3, 1, 2)), ("Y_h", z(0, 1, 2))], opset=14, hidden_size=2, layout=1)
w.bad("gru_weight_rows", "GRU", [("X", z(2, 3, 4)), ("W", np.ones((1, 5, 4), f32)), ("R", np.ones((1, 6, 2), f32))],
      [("Y", TP.FLOAT), ("Y_h", TP.FLOAT)], "expected [1,6,4]", opset=14, hidden_size=2)
w.bad("rnn_sequence_lens_too_long", "RNN", [("X", z(2, 3, 4)), ("W", np.ones((1, 2, 4), f32)), ("R", np.ones((1, 2, 2), f32)),
      ("B", None), ("L", np.array([1, 5, 2], np.int32))], [("Y", TP.FLOAT), ("Y_h", TP.FLOAT)], "sequence_lens value 5", opset=14, hidden_size=2)
w.bad("rnn_unknown_activation", "RNN", [("X", z(2, 3, 4)), ("W", np.ones((1, 2, 4), f32)), ("R", np.ones((1, 2, 2), f32))],
      [("Y", TP.FLOAT), ("Y_h", TP.FLOAT)], "activation function 'Foo'", opset=14, hidden_size=2, activations=["Foo"])

# ---------------------------------------------------------------- signal ops


def as_complex_pairs(y, dtype):
    return np.stack((y.real, y.imag), axis=-1).astype(dtype)


def dft_case(name, shape, axis, complex_in=False, inverse=0, onesided=0, length=None, dtype=f32, opset=17):
    """DFT along `axis` of the signal (the trailing [re, im] dim not counted for negative axes)."""
    x = rng.standard_normal(shape + (2 if complex_in else 1,))
    xc = x[..., 0] + (1j * x[..., 1] if complex_in else 0)
    ax = axis if axis >= 0 else axis + 1
    n = length or shape[ax]
    y = (np.fft.ifft if inverse else np.fft.fft)(xc, n=n, axis=ax)
    if onesided:
        y = np.take(y, range(n // 2 + 1), axis=ax)
    inputs = [("x", x.astype(dtype)), ("len", None if length is None else np.array(length, np.int64))]
    attrs = dict(inverse=inverse, onesided=onesided)
    if opset >= 20:
        inputs.append(("axis", np.array(axis, np.int64)))
    else:
        attrs["axis"] = axis
    w.case(name, "DFT", inputs, [("y", as_complex_pairs(y, dtype))], opset=opset, **attrs)


dft_case("dft_zero_pad", (2, 10, 3), 1, length=16)
dft_case("dft_truncate", (2, 10, 3), 1, length=7)
dft_case("dft_onesided", (2, 12, 3), 1, onesided=1)
dft_case("dft_onesided_odd_axis2", (2, 3, 13), 2, onesided=1)
dft_case("dft_complex_inverse_axis2", (2, 3, 9), 2, complex_in=True, inverse=1)
dft_case("dft_prime_length_f64", (1, 1009), 1, complex_in=True, dtype=np.float64)
dft_case("dft_pow2_f64", (2, 1024), 1, dtype=np.float64)
dft_case("dft_mixed_radix", (3, 600), 1)
dft_case("dft_opset20_negative_axis", (2, 5, 6), -2, complex_in=True, opset=20)
dft_case("dft_opset20_axis1_length", (2, 5, 6), 1, opset=20, length=8)
w.case("dft_empty_batch", "DFT", [("x", np.zeros((0, 5, 1), f32))], [("y", np.zeros((0, 5, 2), f32))], axis=1)
w.bad("dft_axis_is_complex_dim", "DFT", [("x", np.zeros((1, 5, 1), f32))], [("y", TP.FLOAT)], "axis 2 is out of range", axis=2)
w.bad("dft_length_zero", "DFT", [("x", np.zeros((1, 5, 1), f32)), ("n", np.array(0, np.int64))], [("y", TP.FLOAT)], "must be positive", axis=1)


def irfft_case(name, shape, axis, length=None, dtype=f32, opset=20):
    """DFT with inverse=1 and onesided=1: numpy's irfft of a half spectrum, a real signal out."""
    x = rng.standard_normal(shape + (2,))
    ax = axis if axis >= 0 else axis + 1
    y = np.fft.irfft(x[..., 0] + 1j * x[..., 1], n=length, axis=ax)
    inputs = [("x", x.astype(dtype)), ("len", None if length is None else np.array(length, np.int64))]
    attrs = dict(inverse=1, onesided=1)
    if opset >= 20:
        inputs.append(("axis", np.array(axis, np.int64)))
    else:
        attrs["axis"] = axis
    w.case(name, "DFT", inputs, [("y", y[..., np.newaxis].astype(dtype))], opset=opset, **attrs)


irfft_case("dft_irfft_default_length", (2, 6, 3), 1)
irfft_case("dft_irfft_odd_length", (2, 6, 3), 1, length=11)
irfft_case("dft_irfft_pad_spectrum", (2, 4, 3), -2, length=16)
irfft_case("dft_irfft_truncate_spectrum", (3, 9), 1, length=6, dtype=np.float64)
irfft_case("dft_irfft_opset17_axis2", (2, 3, 7), 2, opset=17)
w.bad("dft_irfft_length_one_input", "DFT", [("x", np.zeros((1, 1, 2), f32))], [("y", TP.FLOAT)], "must be positive",
      axis=1, inverse=1, onesided=1)


def stft_case(name, batch, L, step, n, window=False, complex_in=False, onesided=1, give_len=True, dtype=f32):
    x = rng.standard_normal((batch, L, 2 if complex_in else 1))
    xc = x[..., 0] + (1j * x[..., 1] if complex_in else 0)
    win = rng.random(n) if window else np.ones(n)
    frames, bins = (L - n) // step + 1, (n // 2 + 1 if onesided else n)
    y = np.array([[np.fft.fft(xc[b, f * step:f * step + n] * win)[:bins] for f in range(frames)] for b in range(batch)])
    inputs = [("signal", x.astype(dtype)), ("step", np.array(step, np.int64)), ("window", win.astype(dtype) if window else None),
              ("len", np.array(n, np.int64) if give_len else None)]
    w.case(name, "STFT", inputs, [("y", as_complex_pairs(y, dtype))], onesided=onesided)


stft_case("stft_window_and_length", 3, 50, 5, 12, window=True)
stft_case("stft_complex_two_sided", 2, 40, 3, 10, complex_in=True, onesided=0)
stft_case("stft_window_only_f64", 2, 64, 16, 16, window=True, give_len=False, dtype=np.float64)
w.bad("stft_frame_longer_than_signal", "STFT", [("s", np.zeros((1, 5, 1), f32)), ("st", np.array(2, np.int64)), ("w", None),
      ("n", np.array(8, np.int64))], [("y", TP.FLOAT)], "frame length 8")


def window_case(name, op, size, periodic, coeffs, out_type=None, np_dtype=f32):
    """Generalized cosine window sum_k (-1)^k a_k cos(2 pi k j / N), N = size (periodic) or size - 1."""
    N = size if periodic else size - 1
    j = np.arange(size)
    y = sum(((-1) ** k) * a * np.cos(2 * np.pi * k * j / N) for k, a in enumerate(coeffs))
    attrs = dict(periodic=periodic) if out_type is None else dict(periodic=periodic, output_datatype=out_type)
    w.case(name, op, [("size", np.array(size, np.int64))], [("y", np.asarray(y).astype(np_dtype))], **attrs)


window_case("hann_periodic_f64", "HannWindow", 17, 1, [0.5, 0.5], TP.DOUBLE, np.float64)
window_case("hamming_symmetric_f64", "HammingWindow", 33, 0, [25 / 46, 21 / 46], TP.DOUBLE, np.float64)
window_case("blackman_periodic_1000", "BlackmanWindow", 1000, 1, [0.42, 0.5, 0.08])
window_case("blackman_symmetric_f16", "BlackmanWindow", 9, 0, [0.42, 0.5, 0.08], TP.FLOAT16, np.float16)
w.case("hann_size0", "HannWindow", [("n", np.array(0, np.int64))], [("y", np.zeros(0, f32))])


def mel_case(name, bins, dft, rate, lo, hi):
    """MelWeightMatrix: triangles between mel-spaced bin edges, as the spec's reference computes them."""
    mel = lambda hz: 2595 * np.log10(1 + hz / 700)
    edges = np.arange(bins + 2) * (mel(hi) - mel(lo)) / (bins + 2) + mel(lo)
    edges = (((dft + 1) * (700 * (10 ** (edges / 2595) - 1))) // rate).astype(int)
    out = np.zeros((dft // 2 + 1, bins))
    for i in range(bins):
        l, c, h = edges[i:i + 3]
        if c == l:
            out[c, i] = 1
        else:
            out[l:c + 1, i] = (np.arange(l, c + 1) - l) / (c - l)
        if h > c:
            out[c:h, i] = (h - np.arange(c, h)) / (h - c)
    w.case(name, "MelWeightMatrix", [("bins", np.array(bins, np.int64)), ("dft", np.array(dft, np.int64)),
           ("rate", np.array(rate, np.int64)), ("lo", np.array(lo, f32)), ("hi", np.array(hi, f32))], [("y", out.astype(f32))])


mel_case("mel_40_512", 40, 512, 16000, 20.0, 8000.0)
mel_case("mel_10_256", 10, 256, 22050, 100.0, 5000.0)

# ---------------------------------------------------------------- text ops


def tfidf(x, mode, mn, mx, skip, counts, indexes, pool, weights=None):
    """Brute force: every n-gram (min <= n <= max) with every skip 0..max_skip, looked up in the pool."""
    table, pos = {}, 0
    for k, first in enumerate(counts):
        end = counts[k + 1] if k + 1 < len(counts) else len(pool)
        for s in range(first, end, k + 1):
            table.setdefault(tuple(pool[s:s + k + 1]), pos)
            pos += 1
    rows = x if x.ndim == 2 else x[None]
    Y = np.zeros((rows.shape[0], max(indexes) + 1), f32)
    for r, row in enumerate(rows):
        freq = np.zeros(len(indexes))
        for n in range(mn, mx + 1):
            for sk in range(skip + 1 if n > 1 else 1):
                for st in range(len(row) - (n - 1) * (sk + 1)):
                    g = tuple(row[st + q * (sk + 1)] for q in range(n))
                    if g in table:
                        freq[table[g]] += 1
        for i, f in enumerate(freq):
            if f:
                wt = weights[i] if weights else 1.0
                Y[r, indexes[i]] += {"TF": f, "IDF": wt, "TFIDF": f * wt}[mode]
    return Y if x.ndim == 2 else Y[0]


def tfidf_case(name, x, mode, mn, mx, skip, counts, indexes, pool, weights=None, strings=False):
    attrs = dict(mode=mode, min_gram_length=mn, max_gram_length=mx, max_skip_count=skip, ngram_counts=counts, ngram_indexes=indexes)
    attrs["pool_strings" if strings else "pool_int64s"] = list(pool)
    if weights:
        attrs["weights"] = weights
    w.case(name, "TfIdfVectorizer", [("x", x)], [("y", tfidf(x, mode, mn, mx, skip, counts, indexes, pool, weights))], opset=9, **attrs)


xi = rng.integers(0, 6, (3, 20)).astype(np.int64)
pool = [0, 1, 2, 3, 4, 5] + [0, 1, 1, 2, 2, 2, 3, 4, 5, 0] + [0, 1, 2, 2, 2, 2, 5, 5, 5]  # 6 unigrams, 5 bigrams, 3 trigrams
counts, idx = [0, 6, 16], list(range(14))[::-1]
weights = [i / 3 for i in range(14)]
tfidf_case("tfidf_tf_trigrams_skip3", xi, "TF", 1, 3, 3, counts, idx, pool)
tfidf_case("tfidf_idf_bi_trigrams", xi, "IDF", 2, 3, 2, counts, idx, pool, weights)
tfidf_case("tfidf_tfidf_1d_int32", xi[0].astype(np.int32), "TFIDF", 1, 2, 1, counts, idx, pool, weights)
words = np.array(list("abcdef"), dtype=object)
tfidf_case("tfidf_strings", words[xi], "TF", 1, 3, 4, counts, idx, [str(words[p]) for p in pool], strings=True)
tfidf_attrs = dict(mode="TF", min_gram_length=1, max_gram_length=2, max_skip_count=9, ngram_indexes=[0, 1, 2])
w.case("tfidf_empty_rows", "TfIdfVectorizer", [("x", np.zeros((2, 0), np.int64))], [("y", np.zeros((2, 3), f32))], opset=9,
       ngram_counts=[0, 2], pool_int64s=[1, 2, 1, 2], **tfidf_attrs)
w.bad("tfidf_pool_not_whole_ngrams", "TfIdfVectorizer", [("x", np.zeros((2, 3), np.int64))], [("y", TP.FLOAT)], "whole 2-grams",
      opset=9, ngram_counts=[0, 3], pool_int64s=[1, 2, 1, 2], **tfidf_attrs)

x = np.array(["Façade", "Ÿes", "ÉCOLE", "Ωmega", "Привет", "Stop", "ĀĂĹŽ", "ñ"], dtype=object)
sn = lambda name, x, y, **attrs: w.case(name, "StringNormalizer", [("x", x)], [("y", y)], opset=10, **attrs)
sn("string_normalizer_upper", x, np.array([s.upper() for s in x if s != "Stop"], dtype=object), case_change_action="UPPER", stopwords=["STOP"])
sn("string_normalizer_lower_2d", x.reshape(1, -1), np.array([[s.lower() for s in x if s != "Ωmega"]], dtype=object),
   case_change_action="LOWER", stopwords=["ωMEGA", "Stop2"])
sn("string_normalizer_case_sensitive", x, np.array([s for s in x if s != "Stop"], dtype=object), is_case_sensitive=1,
   stopwords=["Stop", "stop", "ÉCOLe"])
sn("string_normalizer_all_dropped", np.array([["a", "A"]], dtype=object), np.array([[""]], dtype=object), stopwords=["a"])
sn("string_normalizer_empty_2d", np.zeros((1, 0), dtype=object), np.array([[""]], dtype=object), case_change_action="LOWER")
w.done()
