"""pip install --no-build-isolation .   builds the tigris Python module with CMake and installs it.

The extension is the CMake target _tigris (python/CMakeLists.txt), built in build/pip-<python>
(or $TIGRIS_BUILD_DIR, e.g. an existing `make build` tree configured for the same Python) for
the interpreter that runs pip. Everything comes from Debian packages (docs/python.md): no
network is needed, which is why build isolation is turned off.
"""

import os
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)  # setuptools' own files go under build/


def project_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        return re.search(r"project\(tigris VERSION ([0-9.]+)", f.read()).group(1)


def cached(build_dir, name):
    """A CMake cache entry of an existing build tree, or None."""
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith(name + ":"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        tag = sysconfig.get_config_var("SOABI") or f"py{sys.version_info[0]}{sys.version_info[1]}"
        build_dir = os.environ.get("TIGRIS_BUILD_DIR") or os.path.join(ROOT, "build", f"pip-{tag}")
        build_dir = os.path.abspath(build_dir)
        python = os.path.realpath(sys.executable)
        configured = cached(build_dir, "TIGRIS_PYTHON")
        if configured is None:
            args = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release", "-DTIGRIS_BUILD_TESTS=OFF",
                    f"-DTIGRIS_PYTHON={python}"]
            if shutil.which("ccache"):
                args += ["-DCMAKE_C_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
            subprocess.check_call(args)
        elif os.path.realpath(configured) != python:
            sys.exit(f"{build_dir} builds the module for {configured}, not {python}; "
                     "set TIGRIS_BUILD_DIR to another folder")
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "tigris_python", "-j", jobs])
        built_dir = os.path.join(build_dir, "python", "tigris")
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = os.path.join(built_dir, "_tigris" + suffix)
        if not os.path.exists(built):
            sys.exit(f"CMake built no {built}: is pybind11-dev installed? (see {build_dir}/CMakeCache.txt)")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)


setup(
    name="tigris",
    version=project_version(),
    description="TiGrIS: fit ONNX and TFLite models into the memory of microcontrollers",
    packages=["tigris"],
    package_dir={"tigris": "python/tigris"},
    ext_modules=[Extension("tigris._tigris", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    install_requires=["numpy"],
    options={"build": {"build_base": os.path.join("build", "setuptools")}, "egg_info": {"egg_base": "build"}},
    zip_safe=False,
)
