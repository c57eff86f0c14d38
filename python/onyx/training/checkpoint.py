"""onyx's training checkpoint file, read and written by the C++ training API
(src/training/checkpoint.h has the format): an ONNX ModelProto without nodes holding the
parameters, the optimizer's moments when saved with them, and the rest as JSON metadata.
Saved atomically (a crash mid-save leaves the old file whole); read with every field checked,
so a truncated or hostile file is an error, never a crash."""
import os

from onyx.capi import onnxruntime_pybind11_state as C


def read(path):
    """The native CheckpointState of the file at `path`."""
    return C._CheckpointState.load(os.fspath(path))


def write(state, path, include_optimizer_state=True):
    state.save(os.fspath(path), bool(include_optimizer_state))
