"""TiGrIS from Python: the ``tigris`` command's analyze, compile, inspect and export as
functions, and the host runtime as :class:`Session`.

    import tigris
    report = tigris.analyze("model.onnx", fast="256K", slow="4M")
    print(report)                      # the text `tigris analyze` prints
    report.fast.verdict                # the fields of `tigris analyze --json`
    plan = tigris.compile("model.onnx", fast="256K")
    with tigris.Session(plan) as s:
        outputs = s.run({"image": x})  # NumPy arrays in the model's own axis order

Models are paths, ``bytes`` or an ``onnx.ModelProto``; sizes are bytes or strings the
command reads (``"256K"``, ``"1.5M"``). Failures raise :class:`Error` with the command's
message. docs/python.md describes every function.
"""

import os

from . import _tigris
from ._errors import Error
from ._plan import ExportResult, Plan
from ._report import AnalysisReport, Fields, Report
from ._session import Session, TensorInfo
from ._sources import input_shapes as _input_shapes
from ._sources import source as _source

__version__ = _tigris.version
runtime_version = _tigris.runtime_version

__all__ = [
    "AnalysisReport",
    "Error",
    "ExportResult",
    "Fields",
    "Plan",
    "Report",
    "Session",
    "TensorInfo",
    "analyze",
    "compile",
    "export",
    "inspect",
    "parse_size",
]


def parse_size(value):
    """Bytes of a size as the command reads it: ``parse_size("1.5M") == 1572864``."""
    return _tigris.parse_size(value, "size")


def _warn(warnings):
    import warnings as w

    for message in warnings:
        w.warn(message, stacklevel=3)


def analyze(model, fast="256K", slow="4M", flash=None, *, input_shapes=None, name=None):
    """Will the model fit the budget, and if not, why: ``tigris analyze MODEL -m FAST+SLOW -f FLASH``.

    ``fast=None`` gives the memory figures alone (no budget). ``input_shapes`` binds free
    dimensions: ``{"x": (1, 3, 224, 224)}``. Returns an :class:`AnalysisReport`; the verdict is
    data (``report.fast.verdict``), not an exception. Loading warnings are Python warnings.
    """
    data, label = _source(model, name)
    r = _tigris.analyze(data, label, fast, slow, flash, _input_shapes(input_shapes))
    _warn(r["warnings"])
    import json

    return AnalysisReport(
        json.loads(r["json"]), r["text"], r["verbose_text"], r["warnings"], r["plan"], r["budget"], label
    )


def compile(model, fast="256K", slow="4M", flash=None, *, compress="none", xip=False, input_shapes=None, name=None):
    """The plan ``tigris compile`` would write, as a :class:`Plan` (nothing is written).

    Raises :class:`Error` ``no plan written: <reason>`` when the model does not compile or fit;
    the error's ``report`` is the summary compile prints. ``compress="lz4"`` and ``xip=True`` are
    ``-c lz4`` and ``--xip``.
    """
    data, label = _source(model, name)
    r = _tigris.compile(data, label, fast, slow, flash, _input_shapes(input_shapes), compress, bool(xip))
    _warn(r["warnings"])
    import json

    summary = Report(json.loads(r["json"]), r["text"], r["verbose_text"], r["warnings"])
    if r["plan"] is None:
        raise Error("no plan written: " + r["refusal"], 1, summary)
    if r["limits_warning"]:
        _warn([r["limits_warning"]])
    stem = os.path.splitext(os.path.basename(label))[0] if not label.startswith("<") else "model"
    return Plan(r["plan"], summary, name=stem + ".tgrs")


def inspect(file, *, name=None):
    """What a plan, an ONNX or a TFLite model holds: ``tigris inspect FILE``. A :class:`Report`
    whose ``kind`` is ``"plan"``, ``"onnx"`` or ``"tflite"``; ``text(verbose=True)`` is ``-v``."""
    data, label = _source(file, name, what="file")
    r = _tigris.inspect(data, label)
    import json

    report = Report(json.loads(r["json"]), r["text"], r["verbose_text"])
    report.kind = r["kind"]
    return report


def export(model, target="arm-none-eabi", *, max_runs=1, name=None):
    """The banded TFLite model ``tigris export`` would write, as an :class:`ExportResult`: its bytes
    (``bytes(result)``, ``result.save(path)``) and the figures. Raises :class:`Error`
    ``no model written: <reason>`` when no rewrite lowers TensorFlow Lite Micro's arena."""
    data, label = _source(model, name)
    r = _tigris.export(data, label, target, int(max_runs))
    return ExportResult(r["model"], r["figures"], r["text"])
