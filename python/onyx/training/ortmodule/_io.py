"""ORTModule's one set of primitives for nested inputs and outputs: flatten a structure of
tensors (tuples, lists, dicts, None, plain constants, keyword arguments) into a schema and a
flat list of tensors, and rebuild it from the two.

The schema is hashable and describes everything that changes the exported graph: the
nesting, dict keys, constants' values, and per tensor its dtype, rank and whether it requires
a gradient. Tensor sizes are left out: dims are dynamic in the export, so a new batch size
keeps the graph."""
import torch

_TENSOR, _NONE, _CONST, _TUPLE, _LIST, _DICT = "tensor", "none", "const", "tuple", "list", "dict"


def flatten(value):
    """(schema, [tensors]) for a nested structure."""
    tensors = []

    def walk(v):
        if isinstance(v, torch.Tensor):
            tensors.append(v)
            return (_TENSOR, str(v.dtype), v.dim(), bool(v.requires_grad), v.device.type)
        if v is None:
            return (_NONE,)
        if isinstance(v, (bool, int, float, str)):
            return (_CONST, type(v).__name__, v)
        if isinstance(v, tuple):
            return (_TUPLE, tuple(walk(x) for x in v))
        if isinstance(v, list):
            return (_LIST, tuple(walk(x) for x in v))
        if isinstance(v, dict):
            keys = list(v.keys())
            return (_DICT, tuple(keys), tuple(walk(v[k]) for k in keys))
        raise TypeError(f"ORTModule: inputs and outputs must be tensors, None, numbers, strings, or tuples, lists "
                        f"and dicts of them; got {type(v).__name__}")

    return walk(value), tensors


def unflatten(schema, tensors):
    """The structure `schema` describes, with `tensors` (in flatten's order) at its leaves."""
    it = iter(tensors)

    def build(s):
        kind = s[0]
        if kind == _TENSOR:
            return next(it)
        if kind == _NONE:
            return None
        if kind == _CONST:
            return s[2]
        if kind == _TUPLE:
            return tuple(build(x) for x in s[1])
        if kind == _LIST:
            return [build(x) for x in s[1]]
        if kind == _DICT:
            return {k: build(x) for k, x in zip(s[1], s[2])}
        raise ValueError(f"ORTModule: unknown schema node {kind!r}")

    out = build(schema)
    if next(it, None) is not None:
        raise ValueError("ORTModule: more tensors than the schema holds")
    return out


def describe_change(old, new):
    """A short reason why two input schemas differ, for the re-export log."""
    if old is None:
        return "first call"
    _, old_leaves = _leaves(old)
    _, new_leaves = _leaves(new)
    if len(old_leaves) != len(new_leaves):
        return f"the number of inputs changed ({len(old_leaves)} -> {len(new_leaves)})"
    for i, (a, b) in enumerate(zip(old_leaves, new_leaves)):
        if a != b:
            return f"input {i} changed: {a} -> {b}"
    return "the nesting of the inputs changed"


def _leaves(schema):
    out = []

    def walk(s):
        if s[0] in (_TUPLE, _LIST):
            for x in s[1]:
                walk(x)
        elif s[0] == _DICT:
            for x in s[2]:
                walk(x)
        else:
            out.append(s)

    walk(schema)
    return schema, out
