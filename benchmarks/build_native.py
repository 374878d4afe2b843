"""Compiles the native modules (welcometo_sim/native/*.pyx) in place, for
development and benchmarks in a checkout that is not pip-installed:

    python benchmarks/build_native.py            # translate with Cython, compile with this Python's C compiler
    python benchmarks/build_native.py --clean    # remove the compiled files (the Python reference runs)

`pip install -e .` builds the same modules (setup.py); this script exists
because ``python setup.py build_ext --inplace`` needs a newer setuptools
than some machines have. It needs Cython (``pip install 'Cython>=3.0,<4'``)
and a C compiler. Each module compiles with the flags of the package build
(-O2, no debug information).
"""

from __future__ import annotations

import argparse
import json
import runpy
import shlex
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
NATIVE = runpy.run_path(str(HERE / "welcometo_sim" / "native" / "modules.py"))
NATIVE_MODULES = NATIVE["NATIVE_MODULES"]
MANIFEST = HERE / "welcometo_sim" / "native" / NATIVE["manifest_name"]()
"""The record of the sources each module was compiled from, which the package
checks at import (as after pip install)."""
BUILD = HERE / "build" / "cython"


def compiled_path(module: str) -> Path:
    return HERE.joinpath(*module.split(".")).with_name(module.rsplit(".", 1)[1]
                                                       + sysconfig.get_config_var("EXT_SUFFIX"))


def build(module: str) -> str:
    """Translate one module to C and compile it next to its .pyx source;
    returns the digest of the sources compiled (the .pyx and the .pxd files
    it depends on: `modules.module_digest`), taken before Cython reads them."""
    from Cython.Build import cythonize

    source = HERE.joinpath(*module.split(".")).with_suffix(".pyx")
    digest = NATIVE["module_digest"](module, source.parent)
    started = time.monotonic()
    cythonize([str(source.relative_to(HERE))], build_dir=str(BUILD), compiler_directives={"language_level": 3},
              quiet=True)
    c_file = BUILD / source.relative_to(HERE).with_suffix(".c")
    compiler = shlex.split(sysconfig.get_config_var("CC") or "cc")
    command = [*compiler, "-shared", "-fPIC", "-O2", "-g0", f"-I{sysconfig.get_paths()['include']}",
               str(c_file), "-o", str(compiled_path(module))]
    subprocess.run(command, check=True)
    print(f"{module}: compiled in {time.monotonic() - started:.0f} s -> {compiled_path(module).relative_to(HERE)}")
    return digest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules instead")
    args = parser.parse_args()
    if args.clean:
        for module in NATIVE_MODULES:
            compiled_path(module).unlink(missing_ok=True)
        MANIFEST.unlink(missing_ok=True)
        return 0
    built = {}
    for module in NATIVE_MODULES:
        try:
            built[module] = build(module)
        except ImportError:
            print("error: Cython is not installed (pip install 'Cython>=3.0,<4')", file=sys.stderr)
            return 2
        except subprocess.CalledProcessError as exc:
            print(f"error: compiling {module} failed (exit code {exc.returncode})", file=sys.stderr)
            return 2
    MANIFEST.write_text(json.dumps(built, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
