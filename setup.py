"""pip install of the heptapod Python module from this source tree, without the network.

setup.py drives CMake itself (Debian 12 has no scikit-build): it configures a build of the module alone (no
tests, no benchmarks) for the Python running pip and copies the module it builds. Debian marks its Python as
externally managed (PEP 668), so install into a virtual environment that sees Debian's packages:

    /usr/bin/python3 -m venv --system-site-packages ~/venv && ~/venv/bin/pip install --no-build-isolation .

(or `/usr/bin/python3 -m pip install --no-build-isolation --break-system-packages .` for the system).
The build needs what README.md's set-up installs (scripts/install-deps.sh)."""
import os
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        os.makedirs(build_dir, exist_ok=True)
        source = os.path.dirname(os.path.abspath(__file__))
        subprocess.run(["cmake", "-S", source, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                        "-DHEPTAPOD_BUILD_TESTS=OFF", "-DHEPTAPOD_BUILD_BENCH=OFF",
                        f"-DPython_EXECUTABLE={sys.executable}"], check=True)
        jobs = str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", build_dir, "--target", "heptapod_python", "-j", jobs], check=True)
        built = os.path.join(build_dir, "python", os.path.basename(self.get_ext_fullpath(ext.name)))
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        self.copy_file(built, target)


def version():
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "CMakeLists.txt")) as f:
        for line in f:
            if line.startswith("project(heptapod VERSION"):
                return line.split()[2]
    raise RuntimeError("no version in CMakeLists.txt")


setup(
    name="heptapod",
    version=version(),
    description="The original Transformer as a toolkit: train, translate, score, evaluate",
    ext_modules=[Extension("heptapod", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
)
