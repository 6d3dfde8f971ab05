"""What a model or plan argument may be: a path, bytes, an ``onnx.ModelProto`` (or anything
with ``SerializeToString()``), or a ``tigris.Plan``. Each becomes (bytes, name); the name
stands for the file in messages and reports, as the path does on the command line."""

import os


def read_file(path):
    """The file's bytes, read as the CLI reads them (``<path>: no such file`` and so on)."""
    from . import _tigris

    return _tigris.read_file(os.fspath(path))


def source(value, name=None, what="model"):
    """(bytes, name) for a path, bytes-like object, serializable message or Plan."""
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        return read_file(path), name or path
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value), name or f"<{what} bytes>"
    plan_bytes = getattr(value, "_tigris_plan_bytes", None)
    if plan_bytes is not None:
        return plan_bytes, name or value.name
    serialize = getattr(value, "SerializeToString", None)
    if callable(serialize):
        # onnx.ModelProto, duck-typed: onnx need not be installed for tigris to take one.
        data = serialize()
        graph = getattr(value, "graph", None)
        graph_name = getattr(graph, "name", "") if graph is not None else ""
        return bytes(data), name or f"<{type(value).__name__} {graph_name}>".replace(" >", ">")
    raise TypeError(
        f"{what} must be a path, bytes, an onnx.ModelProto or a tigris.Plan, not {type(value).__name__}"
    )


def input_shapes(shapes):
    """--input-shape values from {name: dims} or ["name:1x3x224x224", ...]."""
    if shapes is None:
        return []
    if isinstance(shapes, dict):
        return [f"{k}:{'x'.join(str(int(d)) for d in v)}" for k, v in shapes.items()]
    if isinstance(shapes, str):
        return [shapes]
    return [str(s) for s in shapes]
