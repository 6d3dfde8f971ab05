"""`pip install --no-build-isolation .` with Debian's setuptools and no network: the
package installs and imports. It reuses this build tree (TIGRIS_BUILD_DIR), so the extension
is not compiled again."""

import os
import subprocess
import sys

import pytest
from conftest import SOURCE


def test_pip_installs_an_importable_package(tmp_path, demo_dir):
    build_dir = os.environ.get("TIGRIS_BINARY_DIR")
    if not build_dir:
        pytest.skip("TIGRIS_BINARY_DIR is not set (run the tests through ctest)")
    if subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode != 0:
        pytest.skip(f"{sys.executable} has no pip (apt-get install python3-pip)")
    target = tmp_path / "site"
    env = dict(os.environ, TIGRIS_BUILD_DIR=build_dir, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    p = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--target", str(target), "."],
        cwd=SOURCE, env=env, capture_output=True, text=True, timeout=600,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert (target / "tigris" / "__init__.py").exists()
    check = (
        "import tigris, sys; "
        "assert tigris.__file__.startswith(sys.argv[1]), tigris.__file__; "
        "r = tigris.analyze(sys.argv[2], fast='96K'); print(r.fast.verdict, tigris.__version__)"
    )
    q = subprocess.run(
        [sys.executable, "-c", check, str(target), str(demo_dir / "demo.onnx")],
        env=dict(env, PYTHONPATH=str(target)), capture_output=True, text=True,
    )
    assert q.returncode == 0, q.stderr
    assert q.stdout.split()[0] == "fits"
