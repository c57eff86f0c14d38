"""onnxruntime.training.api for onyx: CheckpointState, Module, Optimizer, LinearLRScheduler, with
ONNX Runtime's names and call forms, over the artifacts onyx.training.artifacts writes.

A step: Module(*inputs) runs the training model (forward, backward and gradient accumulation
in one onyx session, parameters fed without a copy), Optimizer.step() runs the optimizer model
and writes the new parameters and moments into the checkpoint state's arrays in place, and
Module.lazy_reset_grad() makes the next step start its gradients afresh.
"""
import os

import numpy as np
import onnx
from onnx import numpy_helper

from onyx.capi import onnxruntime_pybind11_state as C
from onyx.capi.onnxruntime_inference_collection import InferenceSession
from onyx.training import checkpoint as _checkpoint


class Parameter:
    """A parameter of a CheckpointState: name, data (numpy, updated in place by steps), grad
    (the accumulated gradient, or None before the first step) and requires_grad."""

    def __init__(self, state, name):
        self._state, self.name = state, name

    @property
    def data(self):
        return self._state._data.parameters[self.name]

    @data.setter
    def data(self, value):
        current = self.data
        value = np.asarray(value)
        if value.shape != current.shape or value.dtype != current.dtype:
            raise C.InvalidArgument(f"parameter '{self.name}' is {current.dtype}{list(current.shape)}, "
                                    f"got {value.dtype}{list(value.shape)}")
        np.copyto(current, value)

    @property
    def grad(self):
        return self._state._grads.get(self.name)

    @property
    def requires_grad(self):
        return self._state._data.requires_grad[self.name]

    def __repr__(self):
        return f"Parameter(name={self.name!r}, shape={list(self.data.shape)}, requires_grad={self.requires_grad})"


class _Parameters:
    """state.parameters: parameters by name; iterating gives (name, Parameter) pairs, as in
    ONNX Runtime; assigning an array sets a parameter's values."""

    def __init__(self, state):
        self._state = state

    def __getitem__(self, name):
        if name not in self._state._data.parameters:
            raise KeyError(f"the checkpoint has no parameter '{name}'")
        if self._state._data.nominal:
            raise C.Fail("Please load the parameter states first: this is a nominal checkpoint (names and shapes "
                         "only); Module.copy_buffer_to_parameters loads the values")
        return Parameter(self._state, name)

    def __setitem__(self, name, value):
        if self._state._data.nominal:
            raise C.Fail("Please load all the parameter states first (a nominal checkpoint holds no values)")
        if name not in self._state._data.parameters:
            raise KeyError(f"the checkpoint has no parameter '{name}'")
        Parameter(self._state, name).data = value

    def __contains__(self, name):
        return name in self._state._data.parameters

    def __iter__(self):
        return ((name, Parameter(self._state, name)) for name in self._state._data.parameters)

    def __len__(self):
        return len(self._state._data.parameters)


class CheckpointState:
    """Parameters, their gradients, the optimizer's state and user properties
    (state.properties["epoch"] = 3: ints, floats and strings)."""

    def __init__(self, data):
        self._data = data
        self._grads = {}
        self.parameters = _Parameters(self)
        self.properties = data.properties

    @staticmethod
    def load_checkpoint(checkpoint_uri):
        return CheckpointState(_checkpoint.read(os.fspath(checkpoint_uri)))

    @staticmethod
    def save_checkpoint(state, checkpoint_uri, include_optimizer_state=False):
        for k, v in state.properties.items():
            if not isinstance(k, str) or not isinstance(v, (int, float, str)):
                raise C.InvalidArgument(f"checkpoint property {k!r}: only int, float and str values are saved")
        _checkpoint.write(state._data, os.fspath(checkpoint_uri), include_optimizer_state)


class Module:
    """The model being trained: __call__(*inputs) runs a training step (train mode) or the eval
    model (eval mode) and returns the loss (a numpy scalar), or a list of the loss and the
    additional outputs when the artifacts named some."""

    def __init__(self, train_model_uri, state, eval_model_uri=None, device="cpu", session_options=None):
        if device not in ("cpu", None):
            raise C.NotImplemented(f"onyx.training.api.Module on '{device}': training runs on the CPU in this release")
        self._state = state
        self._train = InferenceSession(os.fspath(train_model_uri), session_options)
        self._eval = InferenceSession(os.fspath(eval_model_uri), session_options) if eval_model_uri else None
        self._eval_uri = os.fspath(eval_model_uri) if eval_model_uri else None
        names = [i.name for i in self._train.get_inputs()]
        params = set(state._data.parameters)
        missing = [n for n in names if n.endswith(".accumulation.buffer") and n[:-len("_grad.accumulation.buffer")] not in params]
        if missing or "lazy_reset_grad" not in names:
            raise C.InvalidArgument("Module: the training model does not match the checkpoint "
                                    f"(inputs {names}, checkpoint parameters {sorted(params)})")
        for n in names:
            if n in params and self._train_input_shape(n) not in (None, list(state._data.parameters[n].shape)):
                raise C.InvalidArgument(f"Module: parameter '{n}' in the checkpoint has shape "
                                        f"{list(state._data.parameters[n].shape)}, the model {self._train_input_shape(n)}")
        self._user_inputs = [n for n in names if n not in params and not n.endswith("_grad.accumulation.buffer")
                             and n != "lazy_reset_grad"]
        self._trainable = [n[:-len("_grad.accumulation.buffer")] for n in names if n.endswith("_grad.accumulation.buffer")]
        all_outputs = [o.name for o in self._train.get_outputs()]
        # Running statistics the step updates (BatchNormalization in training mode).
        self._updates = [n for n in all_outputs if n.endswith(".updated") and n[:-len(".updated")] in params]
        self._outputs = [n for n in all_outputs if not n.endswith("_grad.accumulation.out") and n not in self._updates]
        self._all_outputs = all_outputs
        self._training = True
        self._reset = True
        for name in self._trainable:  # as in ONNX Runtime: zeros until a step accumulates into them
            self._state._grads.setdefault(name, np.zeros_like(state._data.parameters[name]))

    def _check_loaded(self):
        if self._state._data.nominal:
            raise C.Fail("Please load the model parameters first. (the checkpoint is nominal: "
                         "copy_buffer_to_parameters(buffer, trainable_only=False) loads them)")

    def _train_input_shape(self, name):
        for i in self._train.get_inputs():
            if i.name == name:
                return [d if isinstance(d, int) else None for d in i.shape] if i.shape else None
        return None

    def train(self, mode=True):
        self._training = bool(mode)
        return self

    def eval(self):
        return self.train(False)

    @property
    def training(self):
        return self._training

    def lazy_reset_grad(self):
        """The next training step starts its gradients from zero instead of adding to them."""
        self._reset = True

    def input_names(self):
        return list(self._user_inputs)

    def output_names(self):
        return list(self._outputs)

    def __call__(self, *user_inputs):
        """The loss (and the additional outputs): numpy, or OrtValues when every input is one."""
        self._check_loaded()
        if len(user_inputs) != len(self._user_inputs):
            raise ValueError(f"Module takes {len(self._user_inputs)} inputs ({', '.join(self._user_inputs)}), "
                             f"got {len(user_inputs)}")
        feeds = dict(zip(self._user_inputs, user_inputs))
        data = self._state._data
        for name, value in data.parameters.items():
            feeds[name] = C.OrtValue.ortvalue_from_numpy(value)  # the state's memory, not a copy
        as_ortvalues = bool(user_inputs) and all(isinstance(v, C.OrtValue) for v in user_inputs)
        if not self._training:
            if self._eval is None:
                raise C.Fail("Module.eval(): no eval model was given")
            sess = self._eval
            outs = sess.run(None, {k: v for k, v in feeds.items() if k in {i.name for i in sess.get_inputs()}})
        else:
            for name in self._trainable:
                buffer = self._state._grads.get(name)
                feeds[name + "_grad.accumulation.buffer"] = buffer if buffer is not None else np.zeros_like(
                    data.parameters[name])
            feeds["lazy_reset_grad"] = np.array(self._reset)
            named = dict(zip(self._all_outputs, self._train.run(None, feeds)))
            for name in self._trainable:
                self._state._grads[name] = named[name + "_grad.accumulation.out"]
            for name in self._updates:  # kept in place: the arrays the next step feeds
                np.copyto(data.parameters[name[:-len(".updated")]], named[name])
            self._reset = False
            outs = [named[n] for n in self._outputs]
        if as_ortvalues:
            outs = [C.OrtValue.ortvalue_from_numpy(np.require(o, requirements="C")) for o in outs]
        return outs[0] if len(outs) == 1 else outs

    def get_parameters_size(self, trainable_only=True):
        data = self._state._data
        return int(sum(v.size for k, v in data.parameters.items() if data.requires_grad[k] or not trainable_only))

    def get_contiguous_parameters(self, trainable_only=False):
        """The parameters flattened into one float32 OrtValue, in the model's order (a copy)."""
        self._check_loaded()
        data = self._state._data
        parts = [v.reshape(-1) for k, v in data.parameters.items() if data.requires_grad[k] or not trainable_only]
        return C.OrtValue.ortvalue_from_numpy(np.concatenate(parts) if parts else np.zeros(0, np.float32))

    def copy_buffer_to_parameters(self, buffer, trainable_only=True):
        """Writes a flat buffer (as get_contiguous_parameters gives) back into the parameters."""
        flat = np.asarray(buffer.numpy() if isinstance(buffer, C.OrtValue) else buffer).reshape(-1)
        data = self._state._data
        names = [k for k in data.parameters if data.requires_grad[k] or not trainable_only]
        need = sum(data.parameters[k].size for k in names)
        if flat.size != need:
            raise C.InvalidArgument(f"copy_buffer_to_parameters: the buffer holds {flat.size} values, the parameters {need}")
        at = 0
        for k in names:
            p = data.parameters[k]
            np.copyto(p, flat[at:at + p.size].reshape(p.shape).astype(p.dtype, copy=False))
            at += p.size
        if not trainable_only:
            data.nominal = False  # every value is loaded now

    def export_model_for_inferencing(self, inference_model_uri, graph_output_names):
        """Writes the eval model with the current parameters as initializers and the given
        outputs, without the loss and anything only it needed."""
        if self._eval_uri is None:
            raise C.Fail("export_model_for_inferencing needs the eval model")
        model = onnx.load(self._eval_uri)
        g = model.graph
        params = self._state._data.parameters
        wanted = list(graph_output_names)
        produced = {o for n in g.node for o in n.output} | {i.name for i in g.input}
        for name in wanted:
            if name not in produced:
                raise C.InvalidArgument(f"export_model_for_inferencing: the model has no value '{name}'")
        needed, keep = set(wanted), []
        for node in reversed(g.node):  # the nodes the outputs need
            if any(o in needed for o in node.output):
                keep.append(node)
                needed.update(i for i in node.input if i)
        del g.node[:]
        g.node.extend(reversed(keep))
        inputs = [i for i in g.input if i.name not in params and i.name in needed]
        del g.input[:]
        g.input.extend(inputs)
        g.initializer.extend(numpy_helper.from_array(v, k) for k, v in params.items() if k in needed)
        del g.output[:]
        g.output.extend(onnx.helper.make_empty_tensor_value_info(n) for n in wanted)
        onnx.save(model, os.fspath(inference_model_uri))


class Optimizer:
    """Steps the trainable parameters of `module` with the optimizer model (AdamW or SGD as the
    artifacts wrote it). The learning rate starts at 1e-3."""

    def __init__(self, optimizer_uri, module):
        self._module = module
        self._sess = InferenceSession(os.fspath(optimizer_uri))
        self._inputs = [i.name for i in self._sess.get_inputs()]
        self._lr = 1e-3
        data = module._state._data
        for name in module._trainable:
            if name not in self._inputs:
                raise C.InvalidArgument(f"Optimizer: the optimizer model has no input for parameter '{name}'")
            if name + ".exp_avg" in self._inputs:
                data.exp_avg.setdefault(name, np.zeros_like(data.parameters[name]))
                data.exp_avg_sq.setdefault(name, np.zeros_like(data.parameters[name]))

    def set_learning_rate(self, learning_rate):
        self._lr = float(learning_rate)

    def get_learning_rate(self):
        return self._lr

    def step(self):
        """One update of every trainable parameter, written in place: the optimizer model's
        outputs are bound to the state's own arrays (each output is computed by one elementwise
        node after every read of the value it replaces), so nothing is copied."""
        self._module._check_loaded()
        state = self._module._state
        data = state._data
        binding = self._sess.io_binding()
        binding.bind_cpu_input("learning_rate", np.array(self._lr, np.float32))
        binding.bind_cpu_input("step", np.array(data.step + 1, np.int64))
        for name in self._module._trainable:
            grad = state._grads.get(name)
            if grad is None:
                raise C.Fail("Optimizer.step() before any training step: there are no gradients yet")
            places = [(name, data.parameters[name])]
            if name + ".exp_avg" in self._inputs:
                places += [(name + ".exp_avg", data.exp_avg[name]), (name + ".exp_avg_sq", data.exp_avg_sq[name])]
            binding.bind_cpu_input(name + ".gradient", np.ascontiguousarray(grad))
            for value_name, array in places:
                value = C.OrtValue.ortvalue_from_numpy(array)  # the state's memory
                binding.bind_ortvalue_input(value_name, value)
                binding.bind_ortvalue_output(value_name + ".updated", value)
        self._sess.run_with_iobinding(binding)
        data.step += 1


class LinearLRScheduler:
    """Linear warm-up from 0 to initial_lr over warmup_step_count steps, then linear decay to 0 at
    total_step_count (ONNX Runtime's LinearLRScheduler). step() advances it and sets the
    optimizer's learning rate."""

    def __init__(self, optimizer, warmup_step_count, total_step_count, initial_lr):
        if warmup_step_count < 0 or total_step_count < warmup_step_count:
            raise C.InvalidArgument("LinearLRScheduler: 0 <= warmup_step_count <= total_step_count")
        self._opt, self._warm, self._total, self._lr0 = optimizer, warmup_step_count, total_step_count, initial_lr
        self._step = 0
        optimizer.set_learning_rate(self._rate())

    def _rate(self):
        if self._step < self._warm:
            return self._lr0 * self._step / max(1, self._warm)
        return self._lr0 * max(0.0, (self._total - self._step) / max(1, self._total - self._warm))

    def step(self):
        self._step += 1
        self._opt.set_learning_rate(self._rate())
