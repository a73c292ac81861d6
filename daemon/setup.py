"""Build hooks of `pip install ./daemon` (metadata is in pyproject.toml).

- version: splayd.__version__; packages: splayd (not tests/);
- dependencies: daemon/requirements.txt, comments stripped (one source of truth with
  `pip install -r requirements.txt`);
- the runtime: node.lua and lib/ of the repository's sandbox/ (what the nodes run, the same
  files as splayd.docker_image.SANDBOX_INCLUDE), plus netmodel.py and data/cities.csv (the
  daemon compiles a job's emulated network with them, splayd.jobspec.compile_network), are copied
  into the built package as splayd/runtime/, where an installed splayd looks for them
  (splayd.config.DEFAULT_SANDBOX_DIR).
  An sdist carries them as runtime/ next to setup.py, so a wheel built from it has them too.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
RUNTIME_FILES = ("node.lua", "lib", "netmodel.py", "netmodel_placement.py", "data/cities.csv")


def requirements() -> list[str]:
    lines = (HERE / "requirements.txt").read_text().splitlines()
    return [r for r in (line.split("#", 1)[0].strip() for line in lines) if r]


def version() -> str:
    return re.search(r'^__version__ = "([^"]+)"', (HERE / "splayd" / "__init__.py").read_text(), re.M).group(1)


def runtime_source() -> Path:
    for candidate in (HERE.parent / "sandbox", HERE / "runtime"):  # checkout, then sdist
        if (candidate / "node.lua").is_file():
            return candidate
    raise SystemExit("splayd build: the Lua runtime was not found: neither ../sandbox/node.lua "
                     "(build from a SplayLab checkout: pip install ./daemon) nor runtime/node.lua (sdist)")


def copy_runtime(dest: Path) -> int:
    src = runtime_source()
    if dest.exists():
        shutil.rmtree(dest)
    count = 0
    for name in RUNTIME_FILES:
        path = src / name
        if path.is_dir():
            shutil.copytree(path, dest / name, ignore=shutil.ignore_patterns(
                "__pycache__", "*.pyc", ".*"), symlinks=False)
            count += sum(1 for p in (dest / name).rglob("*") if p.is_file())
        else:
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, dest / name)
            count += 1
    return count


class BuildPyWithRuntime(build_py):
    def run(self) -> None:
        super().run()
        n = copy_runtime(Path(self.build_lib) / "splayd" / "runtime")
        self.announce(f"splayd: copied the Lua runtime ({n} files) into splayd/runtime", level=2)


class SdistWithRuntime(sdist):
    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        copy_runtime(Path(base_dir) / "runtime")


setup(version=version(), packages=["splayd"], include_package_data=False,
      install_requires=requirements(),
      cmdclass={"build_py": BuildPyWithRuntime, "sdist": SdistWithRuntime})
