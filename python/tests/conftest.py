"""Fixtures for the Python tests: the CLI to compare with, the demo model, shared models.

CTest (python/tests/CMakeLists.txt) sets the environment: PYTHONPATH to the build's module,
TIGRIS_CLI, TIGRIS_DEMO_MODEL, TIGRIS_STATEFUL_PLAN, TIGRIS_MODELS_DIR, TIGRIS_SOURCE_DIR."""

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

MODELS = Path(os.environ.get("TIGRIS_MODELS_DIR", "/nonexistent"))
SOURCE = Path(os.environ.get("TIGRIS_SOURCE_DIR", Path(__file__).resolve().parents[2]))


def _tool(var):
    path = os.environ.get(var)
    if not path or not os.path.exists(path):
        pytest.skip(f"{var} is not set to a built program (run the tests through ctest)")
    return path


@dataclass
class CliResult:
    status: int
    out: str
    err: str


def run_cli(args, cwd):
    """Runs the tigris command; its stdout, stderr and exit status."""
    p = subprocess.run([_tool("TIGRIS_CLI"), *map(str, args)], cwd=cwd, capture_output=True, text=True)
    return CliResult(p.returncode, p.stdout, p.stderr)


def error_message(result):
    """The message of the CLI's one `Error: ...` line, without the usage hint."""
    line = result.err.strip().splitlines()[-1]
    assert line.startswith("Error: "), result.err
    message = line[len("Error: ") :]
    hint = message.rfind(" (see 'tigris")
    return message[:hint] if hint >= 0 else message


def python_words(message):
    """A CLI message as the Python call words it: keywords for the flags (-m is fast=, -f flash=)."""
    return message.replace("for --mem:", "for fast:").replace("--flash must", "flash must")


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory):
    """A folder with demo.onnx, demo_input.npy and demo_expected.npy (tigris-demo-model write)."""
    d = tmp_path_factory.mktemp("demo")
    subprocess.run([_tool("TIGRIS_DEMO_MODEL"), "write", str(d)], check=True, capture_output=True)
    return d


@pytest.fixture
def in_demo(demo_dir, monkeypatch):
    """Runs the test in the demo folder, so paths read `demo.onnx` as on the command line."""
    monkeypatch.chdir(demo_dir)
    return demo_dir


@pytest.fixture(scope="session")
def stateful_plan(tmp_path_factory):
    """A crafted plan that keeps a variable between runs (python/tests/stateful_plan.cpp)."""
    path = tmp_path_factory.mktemp("state") / "accumulator.tgrs"
    subprocess.run([_tool("TIGRIS_STATEFUL_PLAN"), str(path)], check=True)
    return path


def shared_model(relative):
    """A file of the shared models folder, or the test is skipped when it is absent."""
    path = MODELS / relative
    if not path.exists():
        pytest.skip(f"{path} is not available")
    return path
