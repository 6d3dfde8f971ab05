"""examples/python: the budget-sweep script runs, and its notebook is the same code and runs."""

import json
import os
import shutil
import subprocess
import sys

import pytest
from conftest import SOURCE

EXAMPLE = SOURCE / "examples" / "python"


def script_cells():
    """The script's cells: the text after each `# %%` marker."""
    parts = (EXAMPLE / "budget_sweep.py").read_text().split("# %%\n")[1:]
    return [p.rstrip("\n") for p in parts]


def notebook_cells():
    nb = json.loads((EXAMPLE / "budget_sweep.ipynb").read_text())
    return [("".join(c["source"])).rstrip("\n") for c in nb["cells"] if c["cell_type"] == "code"]


def example_env(demo_dir, tmp_path):
    env = dict(os.environ)
    env["TIGRIS_EXAMPLE_MODEL"] = str(demo_dir / "demo.onnx")
    env["TIGRIS_EXAMPLE_INPUT"] = str(demo_dir / "demo_input.npy")
    env["TIGRIS_EXAMPLE_PLOT"] = str(tmp_path / "peak.png")
    env["MPLBACKEND"] = "Agg"
    env["MPLCONFIGDIR"] = str(tmp_path / "mpl")
    return env


def test_the_notebook_is_the_script_cell_for_cell():
    assert notebook_cells() == script_cells()
    nb = json.loads((EXAMPLE / "budget_sweep.ipynb").read_text())
    assert all(not c.get("outputs") for c in nb["cells"] if c["cell_type"] == "code"), "commit it without outputs"


def test_the_script_sweeps_compiles_and_runs(demo_dir, tmp_path):
    p = subprocess.run(
        [sys.executable, str(EXAMPLE / "budget_sweep.py")],
        cwd=tmp_path, env=example_env(demo_dir, tmp_path), capture_output=True, text=True, timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert "demo.onnx   float32, 7 operators after normalization (11 in the file)" in p.stdout
    assert "does_not_fit" in p.stdout and "the floor is" in p.stdout
    assert "logits (1, 10) float32" in p.stdout
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "matplotlib is not installed: no plot" in p.stdout
    else:
        assert (tmp_path / "peak.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_notebook_runs(demo_dir, tmp_path):
    nbconvert = shutil.which("jupyter-nbconvert")
    if not nbconvert:
        pytest.skip("jupyter-nbconvert is not installed (apt-get install jupyter-nbconvert python3-ipykernel): "
                    "the notebook is not executed")
    shutil.copy(EXAMPLE / "budget_sweep.ipynb", tmp_path / "nb.ipynb")
    env = example_env(demo_dir, tmp_path)
    env["JUPYTER_CONFIG_DIR"] = str(tmp_path / "jupyter")
    env["JUPYTER_RUNTIME_DIR"] = str(tmp_path / "jupyter-runtime")
    env["IPYTHONDIR"] = str(tmp_path / "ipython")
    p = subprocess.run(
        [nbconvert, "--to", "notebook", "--execute", "--ExecutePreprocessor.timeout=300", "--output", "ran.ipynb",
         "nb.ipynb"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600,
    )
    if p.returncode != 0 and "No such kernel" in p.stderr:
        pytest.skip("no Python kernel for jupyter (apt-get install python3-ipykernel): the notebook is not executed")
    assert p.returncode == 0, p.stderr
    ran = json.loads((tmp_path / "ran.ipynb").read_text())
    outputs = [o for c in ran["cells"] if c["cell_type"] == "code" for o in c["outputs"]]
    assert not [o for o in outputs if o["output_type"] == "error"]
    text = "".join("".join(o.get("text", "")) for o in outputs)
    assert "logits (1, 10) float32" in text
    # The last cell shows the analysis report: the timeline as SVG and HTML, the text as plain.
    last = ran["cells"][-1]["outputs"][-1]["data"]
    svg = last["image/svg+xml"]
    assert ("".join(svg) if isinstance(svg, list) else svg).lstrip().startswith("<svg")
    assert "fits" in "".join(last["text/plain"])
