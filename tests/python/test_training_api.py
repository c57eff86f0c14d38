"""onnxruntime's training API through onyx (onyx.training.artifacts, onyx.training.api): a small
MLP exported from PyTorch trains step for step as PyTorch trains it, checkpoints round-trip
and bad input is refused. Needs PyTorch (Debian's python3-torch); skipped without it."""
import os
import sys

import numpy as np
import onnx
import pytest

import onyx
from onyx.training import api, artifacts

torch = pytest.importorskip("torch")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
from training_models import Decoder, Encoder, Mlp, TinyCnn  # noqa: E402  (the benchmark's models, small here)


def export(module, example, path):
    torch.onnx.export(module, (example,), path, input_names=["input"], output_names=["output"], opset_version=17,
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False,
                      dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    return onnx.load(path)


def data(seed, batch, features, classes):
    g = np.random.default_rng(seed)
    return g.standard_normal((batch, features)).astype(np.float32), g.integers(0, classes, batch).astype(np.int64)


def make_artifacts(tmp_path, loss, optimizer, sizes=(20, 16, 16, 4), seed=0, **kw):
    torch.manual_seed(seed)
    os.makedirs(tmp_path, exist_ok=True)
    module = Mlp(list(sizes))
    model = export(module, torch.zeros(2, sizes[0]), str(tmp_path / "mlp.onnx"))
    names = [n for n, _ in module.named_parameters()]
    artifacts.generate_artifacts(model, requires_grad=names, loss=loss, optimizer=optimizer,
                                 artifact_directory=str(tmp_path / "out"), **kw)
    return module, tmp_path / "out"


def onyx_training(out):
    state = api.CheckpointState.load_checkpoint(str(out / "checkpoint"))
    module = api.Module(str(out / "training_model.onnx"), state, str(out / "eval_model.onnx"))
    optimizer = api.Optimizer(str(out / "optimizer_model.onnx"), module)
    return state, module, optimizer


def adamw(net, lr):
    """PyTorch's AdamW with onnxruntime's defaults (betas 0.9/0.999, eps 1e-6, no weight decay)."""
    return torch.optim.AdamW(net.parameters(), lr=lr, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0)


def train_side_by_side(net, module, optimizer, reference, batch_for, steps=100):
    """`steps` CrossEntropy steps of onyx (module, optimizer) and PyTorch (net, reference) on the
    batches batch_for(step) gives; returns both runs' losses."""
    ours, theirs = [], []
    for step in range(steps):
        x, y = batch_for(step)
        ours.append(float(module(x, y)))
        optimizer.step()
        module.lazy_reset_grad()
        reference.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(torch.from_numpy(x)), torch.from_numpy(y))
        loss.backward()
        reference.step()
        theirs.append(float(loss))
    return ours, theirs


def artifacts_for(net, example, tmp_path, optimizer=artifacts.OptimType.AdamW):
    """Exports `net` in training mode and writes its CrossEntropy artifacts; (state, module, optimizer)."""
    torch.onnx.export(net, (example,), str(tmp_path / "model.onnx"), input_names=["input"], output_names=["output"],
                      opset_version=17, training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
    artifacts.generate_artifacts(onnx.load(str(tmp_path / "model.onnx")),
                                 requires_grad=[n for n, _ in net.named_parameters()],
                                 loss=artifacts.LossType.CrossEntropyLoss, optimizer=optimizer,
                                 artifact_directory=str(tmp_path / "out"))
    return onyx_training(tmp_path / "out")


@pytest.mark.parametrize("optim", ["AdamW", "SGD"])
def test_mlp_steps_equal_pytorchs(tmp_path, optim):
    torch_module, out = make_artifacts(tmp_path, artifacts.LossType.CrossEntropyLoss, artifacts.OptimType[optim])
    state, module, optimizer = onyx_training(out)
    lr = 1e-2 if optim == "AdamW" else 5e-2
    optimizer.set_learning_rate(lr)
    reference = adamw(torch_module, lr) if optim == "AdamW" else torch.optim.SGD(torch_module.parameters(), lr=lr)
    ours, theirs = train_side_by_side(torch_module, module, optimizer, reference,
                                      lambda step: data(step % 5, 8, 20, 4))  # five fixed batches, cycled
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)
    assert np.mean(ours[-5:]) < 0.95 * np.mean(ours[:5]), "the loss falls"
    for name, p in torch_module.named_parameters():
        np.testing.assert_allclose(state.parameters[name].data, p.detach().numpy(), rtol=1e-3, atol=1e-5)


def test_gradients_accumulate_until_reset(tmp_path):
    _, out = make_artifacts(tmp_path, artifacts.LossType.MSELoss, artifacts.OptimType.SGD, sizes=(3, 2))
    state, module, _ = onyx_training(out)
    x, t = np.ones((2, 3), np.float32), np.zeros((2, 2), np.float32)
    module(x, t)
    once = state.parameters["layers.0.weight"].grad.copy()
    module(x, t)
    np.testing.assert_allclose(state.parameters["layers.0.weight"].grad, 2 * once, rtol=1e-6)
    module.lazy_reset_grad()
    module(x, t)
    np.testing.assert_allclose(state.parameters["layers.0.weight"].grad, once, rtol=1e-6)


@pytest.mark.parametrize("loss", ["MSELoss", "L1Loss", "BCEWithLogitsLoss"])
def test_regression_losses_match_pytorchs(tmp_path, loss):
    torch_module, out = make_artifacts(tmp_path, artifacts.LossType[loss], artifacts.OptimType.SGD, sizes=(5, 3))
    state, module, optimizer = onyx_training(out)
    g = np.random.default_rng(3)
    x = g.standard_normal((4, 5)).astype(np.float32)
    t = (g.random((4, 3)) > 0.5).astype(np.float32) if loss == "BCEWithLogitsLoss" else g.standard_normal((4, 3)).astype(np.float32)
    ours = float(module(x, t))
    theirs = getattr(torch.nn, loss)()(torch_module(torch.from_numpy(x)), torch.from_numpy(t))
    theirs.backward()
    np.testing.assert_allclose(ours, float(theirs), rtol=1e-5)
    for name, p in torch_module.named_parameters():
        np.testing.assert_allclose(state.parameters[name].grad, p.grad.numpy(), rtol=1e-4, atol=1e-6)


def test_checkpoint_save_load_and_continue_equals_continuing(tmp_path):
    _, out = make_artifacts(tmp_path, artifacts.LossType.CrossEntropyLoss, artifacts.OptimType.AdamW)
    state, module, optimizer = onyx_training(out)

    def steps(module, optimizer, n, start):
        losses = []
        for s in range(start, start + n):
            x, y = data(s, 8, 20, 4)
            losses.append(float(module(x, y)))
            optimizer.step()
            module.lazy_reset_grad()
        return losses

    steps(module, optimizer, 5, 0)
    state.properties["epoch"] = 2
    api.CheckpointState.save_checkpoint(state, str(tmp_path / "ckpt"), include_optimizer_state=True)
    straight = steps(module, optimizer, 5, 5)
    resumed_state = api.CheckpointState.load_checkpoint(str(tmp_path / "ckpt"))
    assert resumed_state.properties["epoch"] == 2
    resumed = api.Module(str(out / "training_model.onnx"), resumed_state, str(out / "eval_model.onnx"))
    resumed_opt = api.Optimizer(str(out / "optimizer_model.onnx"), resumed)
    assert steps(resumed, resumed_opt, 5, 5) == straight


def test_eval_export_and_contiguous_parameters(tmp_path):
    torch_module, out = make_artifacts(tmp_path, artifacts.LossType.CrossEntropyLoss, artifacts.OptimType.SGD)
    state, module, _ = onyx_training(out)
    x, y = data(1, 8, 20, 4)
    module.eval()
    assert not module.training
    eval_loss = float(module(x, y))
    np.testing.assert_allclose(eval_loss, float(torch.nn.CrossEntropyLoss()(torch_module(torch.from_numpy(x)),
                                                                            torch.from_numpy(y))), rtol=1e-5)
    module.export_model_for_inferencing(str(tmp_path / "infer.onnx"), ["output"])
    (logits,) = onyx.InferenceSession(str(tmp_path / "infer.onnx")).run(None, {"input": x})
    np.testing.assert_allclose(logits, torch_module(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    flat = module.get_contiguous_parameters()
    assert flat.shape() == [module.get_parameters_size(False)]
    module.copy_buffer_to_parameters(np.zeros(flat.shape(), np.float32))
    assert all(not p.data.any() for _, p in state.parameters)
    module.copy_buffer_to_parameters(flat)
    assert state.parameters["layers.0.bias"].data.any()


def test_bad_input_is_refused_with_reasons(tmp_path):
    torch.manual_seed(0)
    model = export(Mlp([4, 3]), torch.zeros(2, 4), str(tmp_path / "m.onnx"))
    with pytest.raises(RuntimeError, match="'nope' is not an initializer"):
        artifacts.generate_artifacts(model, requires_grad=["nope"], loss=artifacts.LossType.MSELoss,
                                     artifact_directory=str(tmp_path / "a"))
    assert not os.path.exists(tmp_path / "a" / "training_model.onnx")
    _, out = make_artifacts(tmp_path, artifacts.LossType.MSELoss, artifacts.OptimType.SGD, sizes=(3, 2))
    good = (out / "checkpoint").read_bytes()
    for name, damaged in {"truncated": good[: len(good) // 2], "garbage": b"\x0a\xff\xff\xff\x0f" + good[:50],
                          "empty": b""}.items():
        (tmp_path / name).write_bytes(damaged)
        with pytest.raises(RuntimeError):
            api.CheckpointState.load_checkpoint(str(tmp_path / name))
    # A checkpoint of another model does not fit this training model.
    _, other = make_artifacts(tmp_path / "o", artifacts.LossType.MSELoss, artifacts.OptimType.SGD, sizes=(5, 2))
    state = api.CheckpointState.load_checkpoint(str(other / "checkpoint"))
    with pytest.raises(RuntimeError, match="shape"):
        api.Module(str(out / "training_model.onnx"), state)


def test_a_bert_like_encoder_trains_as_in_pytorch(tmp_path):
    torch.manual_seed(0)
    net = Encoder(vocab=30, seq=6, hidden=16, heads=2, layers=1, classes=3)
    state, module, optimizer = artifacts_for(net, torch.zeros(4, 6, dtype=torch.long), tmp_path)
    optimizer.set_learning_rate(5e-3)
    g = np.random.default_rng(5)
    batches = [(g.integers(0, 30, (4, 6)).astype(np.int64), g.integers(0, 3, 4).astype(np.int64)) for _ in range(4)]
    ours, theirs = train_side_by_side(net, module, optimizer, adamw(net, 5e-3), lambda step: batches[step % 4])
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)
    assert np.mean(ours[-4:]) < 0.5 * np.mean(ours[:4]), "the loss falls"


def test_a_small_cnn_with_batch_norm_trains_as_in_pytorch(tmp_path):
    torch.manual_seed(0)
    net = TinyCnn().train()
    state, module, optimizer = artifacts_for(net, torch.zeros(4, 3, 16, 16), tmp_path)
    optimizer.set_learning_rate(3e-3)
    g = np.random.default_rng(9)
    batches = [(g.standard_normal((4, 3, 16, 16)).astype(np.float32), g.integers(0, 5, 4).astype(np.int64))
               for _ in range(3)]
    ours, theirs = train_side_by_side(net, module, optimizer, adamw(net, 3e-3), lambda step: batches[step % 3])
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)
    assert np.mean(ours[-3:]) < 0.5 * np.mean(ours[:3]), "the loss falls"


def test_a_gpt2_like_decoder_trains_as_in_pytorch(tmp_path):
    torch.manual_seed(0)
    net = Decoder(vocab=20, seq=5, hidden=12, heads=3, layers=1)
    state, module, optimizer = artifacts_for(net, torch.zeros(2, 5, dtype=torch.long), tmp_path)
    optimizer.set_learning_rate(5e-3)
    g = np.random.default_rng(11)
    sequences = [g.integers(0, 20, (2, 6)).astype(np.int64) for _ in range(3)]
    batches = [(np.ascontiguousarray(t[:, :5]), t[:, 1:].reshape(-1)) for t in sequences]  # next-token targets
    ours, theirs = train_side_by_side(net, module, optimizer, adamw(net, 5e-3), lambda step: batches[step % 3])
    np.testing.assert_allclose(ours, theirs, rtol=1e-4)
    assert np.mean(ours[-3:]) < 0.5 * np.mean(ours[:3]), "the loss falls"
    # Memory shape of the training graph. The tied table's two gradients (the output
    # projection's and the embedding's scattered rows) make one tensor: the rows are added
    # into the other gradient, with no dense table of their own and no Sum of the two.
    nodes = list(onnx.load(str(tmp_path / "out" / "training_model.onnx")).graph.node)
    producer = {o: n for n in nodes for o in n.output}
    for n in nodes:
        if n.op_type == "Sum":
            assert all(producer[i].op_type != "GatherGrad" for i in n.input if i in producer), n.name
    assert sum(n.op_type == "GatherGrad" and len(n.input) == 5 for n in nodes) == 2  # wte and wpe
    # Each gradient accumulates right where it is made (after its producer, only other
    # accumulations between), so its temporary dies there.
    position = {id(n): i for i, n in enumerate(nodes)}
    for n in nodes:
        if n.op_type == "GradAccumulate":
            between = nodes[position[id(producer[n.input[1]])] + 1:position[id(n)]]
            assert all(b.op_type == "GradAccumulate" for b in between), n.name


def test_onnxruntime_call_forms(tmp_path):
    """What ONNX Runtime's own training tests expect beyond the basics: parameters iterate as
    (name, Parameter) and take assignment, gradients are zeros before the first step,
    OrtValue inputs give OrtValue outputs, and nominal checkpoints (names and shapes only)
    refuse to run until the values are loaded."""
    _, out = make_artifacts(tmp_path, artifacts.LossType.CrossEntropyLoss, artifacts.OptimType.AdamW,
                            nominal_checkpoint=True)
    state, module, optimizer = onyx_training(out)
    names = [name for name, _ in state.parameters]
    assert names and all(not state.parameters[n].grad.any() for n in names)
    state.parameters[names[0]] = np.ones_like(state.parameters[names[0]].data)
    assert state.parameters[names[0]].data.all()
    with pytest.raises(RuntimeError):
        state.parameters[names[0]] = np.ones((1, 1), np.float32)
    x, y = data(0, 8, 20, 4)
    loss = module(onyx.OrtValue.ortvalue_from_numpy(x), onyx.OrtValue.ortvalue_from_numpy(y))
    assert isinstance(loss, onyx.OrtValue) and loss.shape() == []
    nominal = api.CheckpointState.load_checkpoint(str(out / "nominal_checkpoint"))
    assert os.path.getsize(out / "nominal_checkpoint") < os.path.getsize(out / "checkpoint") / 4
    with pytest.raises(RuntimeError, match="Please load the parameter states first"):
        nominal.parameters[names[0]]
    empty = api.Module(str(out / "training_model.onnx"), nominal, str(out / "eval_model.onnx"))
    with pytest.raises(RuntimeError, match="Please load the model parameters first"):
        empty(x, y)
    assert empty.get_parameters_size(False) == module.get_parameters_size(False)
    empty.copy_buffer_to_parameters(module.get_contiguous_parameters(), trainable_only=False)
    np.testing.assert_allclose(float(empty(x, y)), float(module.train()(x, y)), rtol=1e-6)


def test_batch_norm_running_statistics_follow_pytorchs_and_eval_uses_them(tmp_path):
    torch.manual_seed(0)
    net = TinyCnn().train()
    state, module, optimizer = artifacts_for(net, torch.zeros(4, 3, 16, 16), tmp_path, artifacts.OptimType.SGD)
    optimizer.set_learning_rate(1e-3)
    g = np.random.default_rng(2)
    train_side_by_side(net, module, optimizer, torch.optim.SGD(net.parameters(), lr=1e-3),
                       lambda step: (g.standard_normal((4, 3, 16, 16)).astype(np.float32),
                                     g.integers(0, 5, 4).astype(np.int64)), steps=3)
    buffers = dict(net.named_buffers())
    stats = [n for n in buffers if n.endswith(("running_mean", "running_var"))]
    assert stats
    for name in stats:
        assert not state.parameters[name].requires_grad
        # ONNX's BatchNormalization updates the running variance with the batch's population
        # variance (its spec says so); PyTorch uses the sample variance, n / (n - 1) larger (n = 64
        # for the block's BN here): with momentum 0.1, about 1.6e-3 apart per step, 3 steps.
        tol = 1e-4 if name.endswith("running_mean") else 6e-3
        np.testing.assert_allclose(state.parameters[name].data, buffers[name].numpy(), rtol=tol, atol=1e-6)
        assert not np.allclose(state.parameters[name].data, 0 if name.endswith("mean") else 1), "updated"
    net.eval()
    module.eval()
    x, y = g.standard_normal((4, 3, 16, 16)).astype(np.float32), g.integers(0, 5, 4).astype(np.int64)
    theirs = float(torch.nn.functional.cross_entropy(net(torch.from_numpy(x)), torch.from_numpy(y)))
    np.testing.assert_allclose(float(module(x, y)), theirs, rtol=1e-3)  # eval: the running statistics


def test_default_requires_grad_leaves_batch_norm_statistics_to_the_step(tmp_path):
    """Without requires_grad, every floating initializer trains except BatchNormalization's
    running statistics, which the training model updates as buffers."""
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.BatchNorm2d(2), torch.nn.Flatten(), torch.nn.Linear(8, 3))
    torch.onnx.export(net, (torch.zeros(2, 1, 4, 4),), str(tmp_path / "m.onnx"), input_names=["input"], output_names=["output"],
                      opset_version=17, training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)
    artifacts.generate_artifacts(onnx.load(str(tmp_path / "m.onnx")), loss=artifacts.LossType.CrossEntropyLoss,
                                 optimizer=artifacts.OptimType.SGD, artifact_directory=str(tmp_path / "out"))
    state = api.CheckpointState.load_checkpoint(str(tmp_path / "out" / "checkpoint"))
    trains = {name: p.requires_grad for name, p in state.parameters}
    assert trains["1.running_mean"] is False and trains["1.running_var"] is False
    assert trains["0.weight"] and trains["1.weight"] and trains["3.bias"]
    module = api.Module(str(tmp_path / "out" / "training_model.onnx"), state)
    before = state.parameters["1.running_mean"].data.copy()
    module(np.random.default_rng(0).standard_normal((2, 1, 4, 4)).astype(np.float32), np.array([0, 2], np.int64))
    assert not np.array_equal(state.parameters["1.running_mean"].data, before), "the step updates the statistics"
