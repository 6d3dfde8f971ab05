"""Report objects: the JSON a command prints with ``--json``, readable as attributes or as a
dict, whose ``str()`` is the command's text."""

import json
from collections.abc import Mapping


def _wrap(value):
    if isinstance(value, dict):
        return Fields(value)
    if isinstance(value, list):
        return [_wrap(v) for v in value]
    return value


class Fields(Mapping):
    """A read-only mapping whose keys are also attributes (``r.fast.verdict`` is
    ``r["fast"]["verdict"]``); nested objects are Fields too, lists stay lists."""

    def __init__(self, data):
        self._data = data

    def __getitem__(self, key):
        return _wrap(self._data[key])

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"no field {name!r}; the fields are {', '.join(self._data)}") from None

    def __dir__(self):
        return list(self._data) + list(super().__dir__())

    def to_dict(self):
        """The fields as plain dicts and lists (a deep copy of the JSON)."""
        return json.loads(json.dumps(self._data))

    def __repr__(self):
        return f"{type(self).__name__}({self._data!r})"


class Report(Fields):
    """A command's report. ``str(report)`` is the text the command prints; ``report.text(verbose=True)``
    adds what ``-v`` adds; ``report.json()`` is ``--json``'s text."""

    def __init__(self, data, text, verbose_text=None, warnings=()):
        super().__init__(data)
        self._text = text
        self._verbose_text = verbose_text if verbose_text is not None else text
        self.warnings = list(warnings)

    def text(self, verbose=False):
        return self._verbose_text if verbose else self._text

    def json(self, indent=2):
        return json.dumps(self._data, indent=indent)

    def __str__(self):
        return self._text

    def __repr__(self):
        first = self._text.splitlines()[0] if self._text else ""
        return f"<tigris.{type(self).__name__} {first}>"

    def _repr_pretty_(self, printer, cycle):
        printer.text(self._text.rstrip("\n"))


class AnalysisReport(Report):
    """``tigris analyze``'s report. In a notebook it shows the memory timeline of a traced run
    of the plan compile would write (when the model fits the budget), then the text."""

    def __init__(self, data, text, verbose_text, warnings, plan, budget, name):
        super().__init__(data, text, verbose_text, warnings)
        self._plan = plan
        self._budget = budget
        self._name = name
        self._svg = None

    def timeline_svg(self):
        """The memory timeline (``analyze --svg``) as SVG text, or None when no plan fits."""
        if self._plan is None:
            return None
        if self._svg is None:
            from . import _tigris

            self._svg = _tigris.timeline_svg(self._plan, self._name, self._budget)
        return self._svg

    def _repr_svg_(self):
        return self.timeline_svg()

    def _repr_html_(self):
        import html

        svg = self.timeline_svg() or ""
        return f"<div>{svg}<pre>{html.escape(self._text)}</pre></div>"
