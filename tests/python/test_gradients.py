"""The gradient builder through ONNX's Gradient op (ai.onnx.preview.training): each rule
against central finite differences in float64, broadcasting undone, values read twice summed,
and the errors for what has no rule."""
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onyx
from conftest import tensor_info

D = TensorProto.DOUBLE


def gradient_model(nodes, inputs, y, initializers=(), opset=17, domains=()):
    """The forward nodes, then Gradient(xs = every input, y) as outputs dy_d<x>."""
    names = [name for name, _ in inputs]
    grad = helper.make_node("Gradient", names, [f"d_{n}" for n in names], domain="ai.onnx.preview.training",
                            xs=names, y=y)
    graph = helper.make_graph(
        list(nodes) + [grad], "g", [tensor_info(n, D, list(shape)) for n, shape in inputs],
        [tensor_info(y, D, None)] + [tensor_info(f"d_{n}", D, list(shape)) for n, shape in inputs],
        list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset),
                                                    helper.make_opsetid("ai.onnx.preview.training", 1)]
                              + [helper.make_opsetid(d, 1) for d in domains])
    model.ir_version = 8
    return model.SerializeToString()


def check_against_finite_differences(nodes, inputs, y, feeds, initializers=(), opset=17, eps=1e-6, tol=1e-6,
                                     domains=()):
    sess = onyx.InferenceSession(gradient_model(nodes, inputs, y, initializers, opset, domains))
    outs = sess.run(None, feeds)
    grads = dict(zip([n for n, _ in inputs], outs[1:]))
    for name, _ in inputs:
        x = feeds[name]
        numeric = np.zeros_like(x)
        for i in range(x.size):
            plus, minus = dict(feeds), dict(feeds)
            plus[name] = x.copy()
            plus[name].flat[i] += eps
            minus[name] = x.copy()
            minus[name].flat[i] -= eps
            numeric.flat[i] = (sess.run([y], plus)[0].sum() - sess.run([y], minus)[0].sum()) / (2 * eps)
        assert grads[name].shape == x.shape, name
        np.testing.assert_allclose(grads[name], numeric, rtol=tol, atol=tol, err_msg=f"d{y}/d{name}")


rng = np.random.default_rng(7)


def r(*shape, low=-1.0, high=1.0):
    return rng.uniform(low, high, shape)


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
def test_binary_ops_with_broadcasting(op):
    nodes = [helper.make_node(op, ["a", "b"], ["y"])]
    b = r(1, 4, low=0.5, high=2.0)  # Div: away from zero
    check_against_finite_differences(nodes, [("a", (3, 4)), ("b", (1, 4))], "y", {"a": r(3, 4), "b": b})
    check_against_finite_differences(nodes, [("a", (2, 3, 4)), ("b", (4,))], "y",
                                     {"a": r(2, 3, 4), "b": r(4, low=0.5, high=2.0)})
    check_against_finite_differences(nodes, [("a", ()), ("b", (2, 2))], "y",
                                     {"a": np.array(0.7), "b": r(2, 2, low=0.5, high=2.0)})


@pytest.mark.parametrize("op,low", [("Neg", -1), ("Identity", -1), ("Sigmoid", -2), ("Tanh", -2), ("Exp", -1),
                                    ("Log", 0.5), ("Sqrt", 0.5), ("Relu", -1)])
def test_unary_ops(op, low):
    x = r(3, 5, low=low, high=2.0)
    if op == "Relu":
        x[np.abs(x) < 1e-3] = 0.5  # away from the kink
    check_against_finite_differences([helper.make_node(op, ["x"], ["y"])], [("x", (3, 5))], "y", {"x": x})


@pytest.mark.parametrize("a_shape,b_shape", [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)),
                                             ((2, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2))])
def test_matmul_with_batch_broadcasting(a_shape, b_shape):
    check_against_finite_differences([helper.make_node("MatMul", ["a", "b"], ["y"])],
                                     [("a", a_shape), ("b", b_shape)], "y", {"a": r(*a_shape), "b": r(*b_shape)})


def test_reshape_transpose_and_reductions():
    shape = numpy_helper.from_array(np.array([4, 6], np.int64), "shape")
    axes = numpy_helper.from_array(np.array([1], np.int64), "axes")
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["r"]),
             helper.make_node("Transpose", ["r"], ["t"], perm=[1, 0]),
             helper.make_node("ReduceSum", ["t", "axes"], ["s"], keepdims=0),
             helper.make_node("Mul", ["s", "s"], ["y"])]
    check_against_finite_differences(nodes, [("x", (2, 3, 4))], "y", {"x": r(2, 3, 4)}, [shape, axes])
    mean = [helper.make_node("ReduceMean", ["x"], ["m"], axes=[0, 2], keepdims=1),
            helper.make_node("Mul", ["m", "x"], ["y"])]
    check_against_finite_differences(mean, [("x", (2, 3, 4))], "y", {"x": r(2, 3, 4)})
    everything = [helper.make_node("ReduceSum", ["x"], ["y"], keepdims=0)]
    check_against_finite_differences(everything, [("x", (2, 3))], "y", {"x": r(2, 3)})


def test_values_read_twice_sum_and_unrelated_inputs_get_zeros():
    # y = (a + b) * a: dy/da = 2a + b, dy/db = a; c does not reach y.
    nodes = [helper.make_node("Add", ["a", "b"], ["c"]), helper.make_node("Mul", ["c", "a"], ["y"]),
             helper.make_node("Neg", ["z"], ["unused"])]
    sess = onyx.InferenceSession(gradient_model(nodes, [("a", (3,)), ("b", (3,)), ("z", (2,))], "y"))
    a, b, z = r(3), r(3), r(2)
    _, da, db, dz = sess.run(None, {"a": a, "b": b, "z": z})
    np.testing.assert_allclose(da, 2 * a + b)
    np.testing.assert_allclose(db, a)
    np.testing.assert_array_equal(dz, np.zeros(2))


def test_a_small_mlp_loss():
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h"]), helper.make_node("Add", ["h", "b1"], ["hb"]),
             helper.make_node("Tanh", ["hb"], ["t"]), helper.make_node("MatMul", ["t", "w2"], ["o"]),
             helper.make_node("Sub", ["o", "target"], ["e"]), helper.make_node("Mul", ["e", "e"], ["sq"]),
             helper.make_node("ReduceMean", ["sq"], ["y"], keepdims=0)]
    inputs = [("x", (4, 3)), ("w1", (3, 5)), ("b1", (5,)), ("w2", (5, 2)), ("target", (4, 2))]
    check_against_finite_differences(nodes, inputs, "y", {n: r(*s) for n, s in inputs})


def test_an_op_without_a_rule_is_named_with_its_path():
    nodes = [helper.make_node("Hardmax", ["x"], ["s"], name="the_hardmax"), helper.make_node("Neg", ["s"], ["y"], name="neg")]
    with pytest.raises(onyx.NotImplemented, match=r"no gradient rule for Hardmax \(node 'the_hardmax' "
                                                   r"\(Hardmax\), on the path 'y' <- 'neg' \(Neg\) <- "
                                                   r"'the_hardmax' \(Hardmax\)\)"):
        onyx.InferenceSession(gradient_model(nodes, [("x", (2,))], "y"))


def test_bad_gradient_nodes_are_refused():
    nodes = [helper.make_node("Neg", ["x"], ["y"])]
    bad_y = helper.make_node("Gradient", ["x"], ["dx"], domain="ai.onnx.preview.training", xs=["x"], y="nope")
    graph = helper.make_graph(nodes + [bad_y], "g", [tensor_info("x", D, [2])],
                              [tensor_info("y", D, [2]), tensor_info("dx", D, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("ai.onnx.preview.training", 1)])
    model.ir_version = 8
    with pytest.raises(RuntimeError, match="no value 'nope' to differentiate"):
        onyx.InferenceSession(model.SerializeToString())


@pytest.mark.parametrize("trans_a,trans_b", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_gemm(trans_a, trans_b):
    a = (4, 3) if trans_a else (3, 4)
    b = (5, 4) if trans_b else (4, 5)
    node = helper.make_node("Gemm", ["a", "b", "c"], ["y"], transA=trans_a, transB=trans_b, alpha=0.5, beta=2.0)
    check_against_finite_differences([node], [("a", a), ("b", b), ("c", (5,))], "y",
                                     {"a": r(*a), "b": r(*b), "c": r(5)})


@pytest.mark.parametrize("op,axis", [("Softmax", -1), ("Softmax", 1), ("LogSoftmax", -1), ("LogSoftmax", 0)])
def test_softmax_family(op, axis):
    # Weighted so the sum over the softmax axis is not constant (its gradient would vanish).
    w = numpy_helper.from_array(r(2, 3, 4), "w")
    nodes = [helper.make_node(op, ["x"], ["s"], axis=axis), helper.make_node("Mul", ["s", "w"], ["y"])]
    check_against_finite_differences(nodes, [("x", (2, 3, 4))], "y", {"x": r(2, 3, 4)}, [w])


def loss_model(op, scores_shape, labels, weights=None, opset=17, log_prob_out=False, **attrs):
    inits = [numpy_helper.from_array(labels, "labels")]
    inputs = ["x", "labels"]
    if weights is not None:
        inits.append(numpy_helper.from_array(weights, "weights"))
        inputs.append("weights")
    outs = ["y", "lp"] if log_prob_out else ["y"]
    nodes = [helper.make_node(op, inputs, outs, **attrs)]
    if log_prob_out:  # the log_prob output read too: its gradient joins the loss's
        nodes = [helper.make_node(op, inputs, ["loss", "lp"], **attrs), helper.make_node("ReduceMean", ["lp"], ["m"]),
                 helper.make_node("Add", ["loss", "m"], ["y"])]
    return nodes, inits


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore", [None, 2])
def test_softmax_cross_entropy_and_nll(reduction, weighted, ignore):
    labels = np.array([[0, 2, 1], [2, 3, 0]], np.int64)  # [N=2, d=3] over C=4 classes
    weights = r(4, low=0.5, high=1.5) if weighted else None
    attrs = {"reduction": reduction}
    if ignore is not None:
        attrs["ignore_index"] = ignore
    x = r(2, 4, 3, low=-2, high=2)
    nodes, inits = loss_model("SoftmaxCrossEntropyLoss", (2, 4, 3), labels, weights, **attrs)
    check_against_finite_differences(nodes, [("x", (2, 4, 3))], "y", {"x": x}, inits)
    logp = x - np.log(np.exp(x).sum(axis=1, keepdims=True))
    nodes, inits = loss_model("NegativeLogLikelihoodLoss", (2, 4, 3), labels, weights, **attrs)
    check_against_finite_differences(nodes, [("x", (2, 4, 3))], "y", {"x": logp}, inits)


def test_softmax_cross_entropy_with_its_log_prob_read():
    nodes, inits = loss_model("SoftmaxCrossEntropyLoss", (3, 5), np.array([1, 4, 0], np.int64), log_prob_out=True)
    check_against_finite_differences(nodes, [("x", (3, 5))], "y", {"x": r(3, 5)}, inits)


def test_shape_ops_cast_pow_where_sum_and_erf():
    axes = numpy_helper.from_array(np.array([0], np.int64), "axes")
    nodes = [helper.make_node("Unsqueeze", ["x", "axes"], ["u"]), helper.make_node("Squeeze", ["u", "axes"], ["q"]),
             helper.make_node("Flatten", ["q"], ["f"], axis=1), helper.make_node("Cast", ["f"], ["c"], to=D),
             helper.make_node("Erf", ["c"], ["e"]), helper.make_node("Pow", ["e", "p"], ["w"]),
             helper.make_node("Greater", ["x2", "zero"], ["cond"]),
             helper.make_node("Where", ["cond", "w", "x2"], ["s"]), helper.make_node("Sum", ["s", "w", "p"], ["y"])]
    zero = numpy_helper.from_array(np.array(0.0), "zero")
    x = r(2, 3, low=0.3, high=1.0)
    check_against_finite_differences(nodes, [("x", (2, 3)), ("p", (3,)), ("x2", (2, 3))], "y",
                                     {"x": x, "p": r(3, low=1.5, high=2.5), "x2": r(2, 3)}, [axes, zero])


def test_concat_and_embedding_gather():
    ids = numpy_helper.from_array(np.array([[1, 3, 1], [-1, 0, 1]], np.int64), "ids")  # repeats and a negative
    nodes = [helper.make_node("Gather", ["table", "ids"], ["g"]),
             helper.make_node("Concat", ["g", "extra"], ["c"], axis=-1),
             helper.make_node("Mul", ["c", "c"], ["y"])]
    check_against_finite_differences(nodes, [("table", (4, 2)), ("extra", (2, 3, 1))], "y",
                                     {"table": r(4, 2), "extra": r(2, 3, 1)}, [ids])


@pytest.mark.parametrize("axis", [-1, 1])
def test_layer_normalization(axis):
    nodes = [helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["n"], axis=axis, epsilon=1e-5),
             helper.make_node("Mul", ["n", "w"], ["y"])]
    shape = (2, 3, 4)
    norm = shape[axis:] if axis >= 0 else shape[axis:]
    w = numpy_helper.from_array(r(*shape), "w")  # weighted: sum(n) alone has no gradient in x
    check_against_finite_differences(nodes, [("x", shape), ("scale", norm), ("bias", norm)], "y",
                                     {"x": r(*shape), "scale": r(*norm), "bias": r(*norm)}, [w], tol=1e-5)


def test_slice_split_expand_and_dropout_off():
    consts = [numpy_helper.from_array(np.array(v, np.int64), n) for n, v in
              [("starts", [1, -3]), ("ends", [3, 100]), ("axes", [0, 1]), ("shape", [2, 2, 4])]]
    ratio = numpy_helper.from_array(np.array(0.0, np.float32), "ratio")
    training = numpy_helper.from_array(np.array(True), "training")
    nodes = [helper.make_node("Slice", ["x", "starts", "ends", "axes"], ["s"]),  # [2, 3] of [4, 6]
             helper.make_node("Dropout", ["s", "ratio", "training"], ["d"]),
             helper.make_node("Split", ["d"], ["a", "b", "c"], axis=1),
             helper.make_node("Expand", ["a", "shape"], ["e"]),
             helper.make_node("Mul", ["e", "e"], ["y"])]
    check_against_finite_differences(nodes, [("x", (4, 6))], "y", {"x": r(4, 6)}, consts + [ratio, training])


def test_dropout_in_training_mode_without_its_mask_is_refused():
    ratio = numpy_helper.from_array(np.array(0.3, np.float32), "ratio")
    training = numpy_helper.from_array(np.array(True), "training")
    nodes = [helper.make_node("Dropout", ["x", "ratio", "training"], ["y"])]
    with pytest.raises(onyx.NotImplemented, match="needs its mask output"):
        onyx.InferenceSession(gradient_model(nodes, [("x", (3,))], "y", [ratio, training]))


def test_broadcasting_known_only_at_run_time():
    # a [N, 3] + b [M, 3] with M = 1 at run time: the sum over dim 0 is found from the shapes then.
    nodes = [helper.make_node("Add", ["a", "b"], ["s"]), helper.make_node("Mul", ["s", "s"], ["y"])]
    check_against_finite_differences(nodes, [("a", ("N", 3)), ("b", ("M", 3))], "y", {"a": r(4, 3), "b": r(1, 3)})
    check_against_finite_differences(nodes, [("a", ("N", 3)), ("b", ("M", 3))], "y", {"a": r(4, 3), "b": r(4, 3)})


@pytest.mark.parametrize("attrs", [{}, {"strides": [2, 2], "pads": [1, 0, 1, 1]}, {"dilations": [2, 1], "pads": [1, 1, 1, 1]},
                                   {"strides": [2, 1], "dilations": [1, 2], "pads": [0, 2, 1, 0]}])
def test_conv(attrs):
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], **attrs), helper.make_node("Mul", ["c", "c"], ["y"])]
    check_against_finite_differences(nodes, [("x", (2, 3, 6, 5)), ("w", (4, 3, 3, 2)), ("b", (4,))], "y",
                                     {"x": r(2, 3, 6, 5), "w": r(4, 3, 3, 2), "b": r(4)}, tol=1e-5)


def test_grouped_and_strided_conv():  # the weights' gradient through onyx's ConvWeightGrad kernel
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], group=2, pads=[1, 0, 1, 1], strides=[2, 1], dilations=[1, 2]),
             helper.make_node("Mul", ["c", "c"], ["y"])]
    check_against_finite_differences(nodes, [("x", (2, 4, 7, 6)), ("w", (6, 2, 3, 2))], "y",
                                     {"x": r(2, 4, 7, 6), "w": r(6, 2, 3, 2)}, tol=1e-5)


@pytest.mark.parametrize("attrs", [{"kernel_shape": [2, 2], "strides": [2, 2]},
                                   {"kernel_shape": [3, 3], "strides": [1, 1], "pads": [1, 1, 1, 1]},
                                   {"kernel_shape": [3, 2], "strides": [2, 1], "dilations": [1, 2], "pads": [1, 0, 0, 1],
                                    "ceil_mode": 1}])
def test_max_and_global_average_pooling(attrs):  # onyx's MaxPoolGrad kernel
    nodes = [helper.make_node("MaxPool", ["x"], ["m"], **attrs), helper.make_node("GlobalAveragePool", ["m"], ["g"]),
             helper.make_node("Mul", ["m", "m"], ["mm"]), helper.make_node("ReduceSum", ["mm"], ["s"], keepdims=1),
             helper.make_node("Add", ["s", "g"], ["y"])]
    x = rng.permutation(2 * 3 * 4 * 4).reshape(2, 3, 4, 4) / 10.0  # distinct values: no ties at the maxima
    check_against_finite_differences(nodes, [("x", (2, 3, 4, 4))], "y", {"x": x})


@pytest.mark.parametrize("training", [0, 1])
def test_batch_normalization(training):
    stats = [numpy_helper.from_array(r(3), "mean"), numpy_helper.from_array(r(3, low=0.5, high=1.5), "var")]
    outs = ["n", "rm", "rv"] if training else ["n"]
    nodes = [helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], outs, training_mode=training,
                              epsilon=1e-5, momentum=0.9),
             helper.make_node("Mul", ["n", "w"], ["y"])]
    w = numpy_helper.from_array(r(2, 3, 2, 2), "w")
    check_against_finite_differences(nodes, [("x", (2, 3, 2, 2)), ("scale", (3,)), ("bias", (3,))], "y",
                                     {"x": r(2, 3, 2, 2), "scale": r(3), "bias": r(3)}, stats + [w], tol=1e-5)


@pytest.mark.parametrize("attrs", [{"kernel_shape": [2, 2], "strides": [2, 2]},
                                   {"kernel_shape": [3, 2], "strides": [2, 1], "pads": [1, 0, 1, 1]},
                                   {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "count_include_pad": 1}])
def test_average_pool(attrs):
    nodes = [helper.make_node("AveragePool", ["x"], ["p"], **attrs), helper.make_node("Mul", ["p", "p"], ["y"])]
    check_against_finite_differences(nodes, [("x", (2, 3, 5, 4))], "y", {"x": r(2, 3, 5, 4)})


def test_a_parameter_read_inside_a_subgraph_is_an_error_not_a_zero():
    # y = If(cond, then: w * 2, else: w): w reaches y only through the branches' captures.
    two = numpy_helper.from_array(np.array(2.0), "two")
    then_g = helper.make_graph([helper.make_node("Mul", ["w", "two"], ["t"])], "then", [], [tensor_info("t", D, [2])], [two])
    else_g = helper.make_graph([helper.make_node("Identity", ["w"], ["e"])], "else", [], [tensor_info("e", D, [2])])
    cond = numpy_helper.from_array(np.array(True), "cond")
    nodes = [helper.make_node("If", ["cond"], ["y"], then_branch=then_g, else_branch=else_g, name="branch")]
    with pytest.raises(onyx.NotImplemented, match=r"no gradient rule for If \(node 'branch' \(If\)"):
        onyx.InferenceSession(gradient_model(nodes, [("w", (2,))], "y", [cond]))


@pytest.mark.parametrize("form", ["onnx_none", "onnx_tanh", "com_microsoft", "fast_gelu", "fast_gelu_bias"])
def test_gelu_family_through_the_fused_gelu_grad_kernel(form):
    x = r(3, 4, low=-3.0, high=3.0)
    if form.startswith("onnx"):
        node = helper.make_node("Gelu", ["x"], ["y"], approximate=form[5:])
        check_against_finite_differences([node], [("x", (3, 4))], "y", {"x": x}, opset=20)
    elif form == "com_microsoft":
        node = helper.make_node("Gelu", ["x"], ["y"], domain="com.microsoft")
        check_against_finite_differences([node], [("x", (3, 4))], "y", {"x": x}, domains=["com.microsoft"])
    else:
        inputs = [("x", (3, 4))] + ([("b", (4,))] if form == "fast_gelu_bias" else [])
        node = helper.make_node("FastGelu", [n for n, _ in inputs], ["y"], domain="com.microsoft")
        feeds = {"x": x, "b": r(4)} if form == "fast_gelu_bias" else {"x": x}
        check_against_finite_differences([node], inputs, "y", feeds, domains=["com.microsoft"])


@pytest.mark.parametrize("ta,tb", [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("a_core,b_core,batch_a,batch_b", [((3, 4), (4, 5), (), ()), ((3, 4), (4, 5), (2,), ()),
                                                           ((3, 4), (4, 5), (2, 1), (3,))])
def test_fused_matmul_every_transpose_with_broadcasting(ta, tb, a_core, b_core, batch_a, batch_b):
    a_shape = batch_a + (a_core[::-1] if ta else a_core)
    b_shape = batch_b + (b_core[::-1] if tb else b_core)
    node = helper.make_node("FusedMatMul", ["a", "b"], ["y"], domain="com.microsoft", transA=ta, transB=tb, alpha=0.75)
    check_against_finite_differences([node], [("a", a_shape), ("b", b_shape)], "y",
                                     {"a": r(*a_shape), "b": r(*b_shape)}, domains=["com.microsoft"])


def test_a_node_with_too_few_inputs_on_the_path_is_a_clear_error():
    # Mul with one input (a broken model): its rule reads input 1; the builder reports the node.
    nodes = [helper.make_node("Mul", ["x"], ["y"], name="half_mul")]
    with pytest.raises(RuntimeError, match=r"'half_mul' \(Mul\) has too few inputs or outputs for Mul"):
        onyx.InferenceSession(gradient_model(nodes, [("x", (2,))], "y"))
