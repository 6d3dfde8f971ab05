"""Plans and exported models as bytes in memory, saved only when asked."""

import os
import tempfile

from ._errors import Error
from ._report import Fields


def _write_atomic(path, data, replace_if):
    """Writes `data` to `path` through a temporary file beside it, so a failed write leaves no
    partial file. An existing file is replaced only when replace_if(its first bytes) holds."""
    path = os.fspath(path)
    if os.path.isdir(path):
        raise Error(f"{path}: is a directory")
    if os.path.exists(path):
        with open(path, "rb") as f:
            head = f.read(8)
        if not replace_if(head):
            raise Error(f"{path} exists and is not what this would write; not replaced")
    directory = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(prefix=".tigris-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


class Plan:
    """A ``.tgrs`` plan: ``bytes(plan)``, ``len(plan)``, ``plan.save(path)``; ``plan.summary`` is the
    report ``tigris compile`` prints (a :class:`tigris.Report`). Sessions and ``inspect`` take it."""

    def __init__(self, data, summary=None, name="model.tgrs"):
        self._data = bytes(data)
        self.summary = summary
        self.name = name

    @classmethod
    def load(cls, path):
        """A plan read from a file (checked by the runtime loader when a Session or inspect uses it)."""
        from ._sources import read_file

        return cls(read_file(path), None, os.fspath(path))

    @property
    def data(self):
        return self._data

    @property
    def _tigris_plan_bytes(self):
        return self._data

    def __bytes__(self):
        return self._data

    def __len__(self):
        return len(self._data)

    def save(self, path):
        """Writes the plan; an earlier plan at `path` is replaced, any other file is refused
        (as ``tigris compile -o`` does). Returns the path."""
        return _write_atomic(path, self._data, lambda head: head[:4] == b"TGRS")

    def inspect(self):
        """``tigris inspect`` of this plan."""
        from . import inspect

        return inspect(self)

    def __repr__(self):
        return f"<tigris.Plan {self.name} {len(self._data)} bytes>"


class ExportResult:
    """What ``tigris export`` would write: ``bytes(result)`` is the rewritten TFLite model,
    ``result.figures`` the search's figures (attributes or keys: ``head_before_bytes``,
    ``head_after_bytes``, ``total_change_bytes``, ``runs``, ...), ``str(result)`` the report."""

    def __init__(self, data, figures, text):
        self._data = bytes(data)
        self.figures = Fields(figures)
        self._text = text

    @property
    def data(self):
        return self._data

    def __bytes__(self):
        return self._data

    def __len__(self):
        return len(self._data)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.figures, name)

    def save(self, path):
        """Writes the model; an earlier TFLite file at `path` is replaced, any other file refused."""
        return _write_atomic(path, self._data, lambda head: head[4:8] == b"TFL3")

    def __str__(self):
        return self._text

    def __repr__(self):
        return f"<tigris.ExportResult {self.figures['description']}>"
