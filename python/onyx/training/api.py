"""onnxruntime.training.api for onyx: CheckpointState, Module, Optimizer, LinearLRScheduler, with
ONNX Runtime's names and call forms, over onyx's C++ training API (src/training/module.h,
checkpoint.h) and the artifacts onyx.training.artifacts writes.

A step: Module(*inputs) runs the training model (forward, backward and gradient accumulation
in one onyx session; the parameters are fed without a copy), Optimizer.step() runs the
optimizer model and writes the new parameters and moments into the checkpoint state's tensors
in place, and Module.lazy_reset_grad() makes the next step start its gradients afresh.
Parameter.data and .grad are numpy views of the state's own tensors: a step's changes show
through them, and writes into them reach the next step.
"""
import collections.abc
import os

import numpy as np

from onyx.capi import onnxruntime_pybind11_state as C


class Parameter:
    """A parameter of a CheckpointState: name, data (numpy, updated in place by steps), grad
    (the accumulated gradient, or None before a Module trains it) and requires_grad."""

    def __init__(self, state, name):
        self._state, self.name = state, name

    @property
    def data(self):
        return self._state._native.data(self.name)

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
        return self._state._native.grad(self.name)

    @property
    def requires_grad(self):
        return self._state._native.requires_grad(self.name)

    def __repr__(self):
        return f"Parameter(name={self.name!r}, shape={list(self.data.shape)}, requires_grad={self.requires_grad})"


class _Parameters:
    """state.parameters: parameters by name; iterating gives (name, Parameter) pairs, as in
    ONNX Runtime; assigning an array sets a parameter's values."""

    def __init__(self, state):
        self._state = state

    def _check(self, name):
        if not self._state._native.has(name):
            raise KeyError(f"the checkpoint has no parameter '{name}'")
        if self._state._native.nominal:
            raise C.Fail("Please load the parameter states first: this is a nominal checkpoint (names and shapes "
                         "only); Module.copy_buffer_to_parameters loads the values")

    def __getitem__(self, name):
        self._check(name)
        return Parameter(self._state, name)

    def __setitem__(self, name, value):
        if self._state._native.nominal:
            raise C.Fail("Please load all the parameter states first (a nominal checkpoint holds no values)")
        self._check(name)
        Parameter(self._state, name).data = value

    def __contains__(self, name):
        return self._state._native.has(name)

    def __iter__(self):
        return ((name, Parameter(self._state, name)) for name in self._state._native.names())

    def __len__(self):
        return len(self._state._native.names())


class _Properties(collections.abc.MutableMapping):
    """state.properties: the user's int, float and str values, saved with the checkpoint."""

    def __init__(self, native):
        self._native = native

    def __getitem__(self, key):
        return self._native.get_property(key)

    def __setitem__(self, key, value):
        if not isinstance(key, str):
            raise C.InvalidArgument(f"checkpoint property {key!r}: names are strings")
        self._native.set_property(key, value)

    def __delitem__(self, key):
        self._native.del_property(key)

    def __iter__(self):
        return iter(self._native.property_names())

    def __len__(self):
        return len(self._native.property_names())


class CheckpointState:
    """Parameters, their gradients, the optimizer's state and user properties
    (state.properties["epoch"] = 3: ints, floats and strings)."""

    def __init__(self, native):
        if not isinstance(native, C._CheckpointState):
            raise TypeError("CheckpointState is made by CheckpointState.load_checkpoint(path)")
        self._native = native
        self.parameters = _Parameters(self)
        self.properties = _Properties(native)

    @staticmethod
    def load_checkpoint(checkpoint_uri):
        return CheckpointState(C._CheckpointState.load(os.fspath(checkpoint_uri)))

    @staticmethod
    def save_checkpoint(state, checkpoint_uri, include_optimizer_state=False):
        state._native.save(os.fspath(checkpoint_uri), bool(include_optimizer_state))


class Module:
    """The model being trained: __call__(*inputs) runs a training step (train mode) or the eval
    model (eval mode) and returns the loss (a numpy scalar), or a list of the loss and the
    additional outputs when the artifacts named some."""

    def __init__(self, train_model_uri, state, eval_model_uri=None, device="cpu", session_options=None):
        if device not in ("cpu", None):
            raise C.NotImplemented(f"onyx.training.api.Module on '{device}': training runs on the CPU in this release")
        self._state = state
        self._native = C._Module(os.fspath(train_model_uri), state._native,
                                 os.fspath(eval_model_uri) if eval_model_uri else "", session_options)
        self._training = True

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
        self._native.lazy_reset_grad()

    def input_names(self):
        return self._native.input_names(self._training or not self._native.has_eval_model())

    def output_names(self):
        return self._native.output_names()

    def __call__(self, *user_inputs):
        """The loss (and the additional outputs): numpy, or OrtValues when every input is one."""
        if self._training:
            outs = self._native.train_step(list(user_inputs))
        else:
            if not self._native.has_eval_model():
                raise C.Fail("Module.eval(): no eval model was given")
            outs = self._native.eval_step(list(user_inputs))
        if user_inputs and all(isinstance(v, C.OrtValue) for v in user_inputs):
            outs = [C.OrtValue.ortvalue_from_numpy(np.require(o, requirements="C")) for o in outs]
        return outs[0] if len(outs) == 1 else outs

    def get_parameters_size(self, trainable_only=True):
        return int(self._native.parameters_size(bool(trainable_only)))

    def get_contiguous_parameters(self, trainable_only=False):
        """The parameters flattened into one float32 OrtValue, in the model's order (a copy)."""
        return C.OrtValue.ortvalue_from_numpy(self._native.contiguous_parameters(bool(trainable_only)))

    def copy_buffer_to_parameters(self, buffer, trainable_only=True):
        """Writes a flat buffer (as get_contiguous_parameters gives) back into the parameters."""
        flat = np.asarray(buffer.numpy() if isinstance(buffer, C.OrtValue) else buffer).reshape(-1)
        self._native.copy_buffer_to_parameters(np.ascontiguousarray(flat, np.float32), bool(trainable_only))

    def export_model_for_inferencing(self, inference_model_uri, graph_output_names):
        """Writes the eval model with the current parameters as initializers and the given
        outputs, without the loss and anything only it needed."""
        self._native.export_model_for_inferencing(os.fspath(inference_model_uri), list(graph_output_names))


class Optimizer:
    """Steps the trainable parameters of `module` with the optimizer model (AdamW or SGD as the
    artifacts wrote it). The learning rate starts at 1e-3."""

    def __init__(self, optimizer_uri, module):
        self._module = module
        self._native = C._Optimizer(os.fspath(optimizer_uri), module._native)

    def set_learning_rate(self, learning_rate):
        self._native.learning_rate = float(learning_rate)

    def get_learning_rate(self):
        return self._native.learning_rate

    def step(self):
        """One update of every trainable parameter and its moments, written in place."""
        self._native.step()


class LinearLRScheduler:
    """Linear warm-up from 0 to initial_lr over warmup_step_count steps, then linear decay to 0 at
    total_step_count (ONNX Runtime's LinearLRScheduler). step() advances it and sets the
    optimizer's learning rate."""

    def __init__(self, optimizer, warmup_step_count, total_step_count, initial_lr):
        self._native = C._LinearLRScheduler(optimizer._native, int(warmup_step_count), int(total_step_count),
                                            float(initial_lr))

    def step(self):
        self._native.step()
