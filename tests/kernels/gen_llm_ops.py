#!/usr/bin/python3
"""Kernel cases for the ai.onnx ops of recent opsets that LLM graphs use: RMSNormalization
(23), RotaryEmbedding (23), SwiGLU (28), Swish (24), TensorScatter (24), LinearAttention (27)
and CausalConvWithState (27). References are numpy code written from the ops' ONNX
definitions (the schemas' documentation), computed in float64 and rounded to the output type.

Usage: gen_llm_ops.py OUT_DIR (see kcase.py for the layout)."""
import numpy as np
from onnx import TensorProto as TP

from kcase import Writer

w = Writer()
rng = np.random.default_rng(2323)
rnd = lambda *s: (rng.standard_normal(s) * 1.5).astype(np.float32)


# ---------------------------------------------------------------- RMSNormalization (23)
def rms_norm(x, scale, axis=-1, eps=1e-5):
    x64 = x.astype(np.float64)
    axis = axis % x.ndim
    ms = np.mean(x64 * x64, axis=tuple(range(axis, x.ndim)), keepdims=True)
    return x64 / np.sqrt(ms + eps) * scale.astype(np.float64)


def rms_case(name, x, scale, out_type=None, **attrs):
    y = rms_norm(x, scale, attrs.get("axis", -1), attrs.get("epsilon", 1e-5))
    w.case(name, "RMSNormalization", [("X", x), ("scale", scale)], [("Y", y.astype(out_type or scale.dtype))],
           opset=23, **attrs)


x = rnd(3, 5, 40)
rms_case("rms_norm_last", x, rnd(40))
rms_case("rms_norm_axis1", x, rnd(5, 40), axis=1)
rms_case("rms_norm_axis0_eps", x, rnd(3, 5, 40), axis=0, epsilon=0.25)
rms_case("rms_norm_axis_neg2", x, rnd(5, 40), axis=-2)
rms_case("rms_norm_scale_bcast_cols", x, rnd(1, 40), axis=1)  # (1, 40) stretched over (5, 40)
rms_case("rms_norm_scale_leading_ones", x, rnd(1, 1, 40))
rms_case("rms_norm_scale_per_row", x, rnd(3, 1, 1), axis=2)  # varies along a dim before axis
rms_case("rms_norm_scale_scalar", x, np.array(1.75, np.float32))
rms_case("rms_norm_long_rows", rnd(4, 1037), rnd(1037))
rms_case("rms_norm_1d", rnd(17), rnd(17), axis=0)
rms_case("rms_norm_f16", x.astype(np.float16), rnd(40).astype(np.float16))
rms_case("rms_norm_f64", x.astype(np.float64), rnd(40).astype(np.float64), axis=1 - 3)
rms_case("rms_norm_stash_double", x, rnd(40), stash_type=11)
rms_case("rms_norm_f16_x_f32_scale", x.astype(np.float16), rnd(40))  # Y has Scale's type
rms_case("rms_norm_empty_rows", np.zeros((0, 8), np.float32), rnd(8))
rms_case("rms_norm_zeros", np.zeros((2, 8), np.float32), rnd(8))  # 0 / sqrt(eps) = 0
w.bad("rms_norm_bad_scale", "RMSNormalization", [("X", x), ("scale", rnd(39))], [("Y", TP.FLOAT)],
      "does not broadcast", opset=23)
w.bad("rms_norm_bad_scale_rank", "RMSNormalization", [("X", rnd(4)), ("scale", rnd(1, 4))], [("Y", TP.FLOAT)],
      "higher rank", opset=23)
w.bad("rms_norm_bad_axis", "RMSNormalization", [("X", x), ("scale", rnd(40))], [("Y", TP.FLOAT)], "axis",
      opset=23, axis=3)
w.bad("rms_norm_bad_stash", "RMSNormalization", [("X", x), ("scale", rnd(40))], [("Y", TP.FLOAT)], "stash_type",
      opset=23, stash_type=10)

w.done()
