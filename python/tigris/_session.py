"""The host runtime from Python: a plan's arenas, workspace and state kept across runs."""

from collections import namedtuple

from . import _tigris
from ._errors import Error
from ._report import Fields
from ._sources import source

TensorInfo = namedtuple("TensorInfo", "name dtype shape")
TensorInfo.__doc__ = """A model input or output: its name, NumPy dtype and shape (the model's
declared axis order, or the plan's stored order for a Session(stored_order=True))."""


def _numpy():
    import numpy

    return numpy


class Session:
    """Runs a plan on the host build of the runtime, as ``tigris run`` does, many times.

    ``plan`` is a :class:`tigris.Plan`, a path or the bytes of a ``.tgrs``. The fast arena is
    exactly what the plan requires unless ``fast`` says otherwise; ``slow`` as ``tigris run
    --slow``. Arrays go in and come out in the model's own axis order (``stored_order=True``:
    the plan's). A plan that keeps state (variables) carries it from one ``run`` to the next,
    as on the device, until :meth:`reset_state`. Use it as a context manager, or :meth:`close`.
    """

    def __init__(self, plan, *, fast=None, slow=None, stored_order=False, name=None):
        data, label = source(plan, name, what="plan")
        self.name = label
        self._s = _tigris.Session(data, label, fast, slow, bool(stored_order))
        np = _numpy()
        self.inputs = [TensorInfo(t["name"], np.dtype(t["dtype"]), tuple(t["shape"])) for t in self._s.inputs()]
        self.outputs = [TensorInfo(t["name"], np.dtype(t["dtype"]), tuple(t["shape"])) for t in self._s.outputs()]

    # ---- running -------------------------------------------------------------

    def _arrays(self, inputs, kwargs):
        np = _numpy()
        names = [t.name for t in self.inputs]
        if inputs is None:
            given = dict(kwargs)
        elif isinstance(inputs, dict):
            if kwargs:
                raise Error("give the inputs as one dict or as keywords, not both", 2)
            given = dict(inputs)
        elif isinstance(inputs, (list, tuple)):
            if len(inputs) != len(names):
                raise Error(f"the plan takes {len(names)} inputs, {len(inputs)} given")
            given = dict(zip(names, inputs))
        else:
            if len(names) != 1:
                raise Error("multiple-input models take a dict {name: array}; its inputs are " + ", ".join(names))
            given = {names[0]: inputs}
        for key in given:
            if key not in names:
                raise Error(f"'{key}' names no input of the model; its inputs are " + ", ".join(names))
        arrays = []
        for name in names:
            if name not in given:
                raise Error(f"input '{name}' is missing")
            a = np.ascontiguousarray(given[name])
            if a.dtype.byteorder == ">" or (a.dtype.byteorder == "=" and not np.little_endian):
                a = a.astype(a.dtype.newbyteorder("<"))
            arrays.append((a.dtype.str, tuple(a.shape), a.tobytes()))
        return arrays

    @staticmethod
    def _outputs(raw):
        np = _numpy()
        return {name: np.frombuffer(data, dtype=np.dtype(descr)).reshape(shape).copy() for name, descr, shape, data in raw}

    def run(self, inputs=None, **kwargs):
        """One inference: ``run({"image": x})``, ``run(x)`` for a one-input model, ``run([x, y])`` in
        the plan's input order, or ``run(image=x)``. Returns {output name: ndarray}. An array whose
        dtype or shape is not the input's is refused with the CLI's message; nothing is converted."""
        return self._outputs(self._s.run(self._arrays(inputs, kwargs)))

    def trace(self, inputs=None, **kwargs):
        """A run with the runtime's trace hook: (outputs, events, counters). ``events`` lists every
        allocation, load, spill, tile and operator as dicts (``kind``, ``stage``, ``tensor``, ``bytes``,
        ``fast_used``, ``text`` as ``analyze --trace -v`` prints it, ...); ``counters`` has the
        runtime's statistics, the peaks and the events' own byte sums (``mismatches`` lists any
        disagreement). The run counts as a run: a stateful plan's state moves on."""
        raw, events, counters = self._s.trace(self._arrays(inputs, kwargs))
        return self._outputs(raw), events, Fields(counters)

    @property
    def memory(self):
        """What ``tigris run --json`` reports under "memory", for the last run: ``fast_peak_bytes``,
        ``slow_peak_bytes`` (None before the first run), ``fast_capacity_bytes``,
        ``slow_capacity_bytes``, ``fast_required_bytes``, ``workspace_bytes``, ``state_bytes``;
        and ``runs``, the runs so far."""
        return Fields(self._s.memory())

    @property
    def stats(self):
        """The runtime's statistics (tigris_exec_stats_t) of the last run."""
        return Fields(self._s.stats())

    @property
    def kernels(self):
        """``"int8"`` or ``"float32"``: the reference kernels the plan runs on."""
        return self._s.kernels()

    @property
    def state_bytes(self):
        return self._s.memory()["state_bytes"]

    def reset_state(self):
        """Writes every variable's initial value again, as after loading (tigris_state_init)."""
        self._s.reset_state()

    # ---- lifetime ------------------------------------------------------------

    def close(self):
        """Frees the arenas; later calls raise tigris.Error."""
        self._s.close()

    @property
    def closed(self):
        return self._s.closed()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        ins = ", ".join(f"{t.name} {'x'.join(map(str, t.shape))} {t.dtype}" for t in self.inputs)
        return f"<tigris.Session {self.name} ({ins})>"
