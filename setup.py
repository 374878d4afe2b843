"""Builds the optional compiled core (`welcometo_sim.compiled_core`): Cython
compiles the modules the games spend their time in (`CORE_MODULES`: the
rules engine, the move evaluator, the strategy base class and the random
and greedy strategies) from their unchanged Python sources, and lists the
packages (`strategies/` is installed as ``welcometo_sim.strategies``).
It also builds the native modules (`welcometo_sim.native`: typed Cython
written for speed, from ``.pyx`` sources, such as the learned evaluation's
decision). Everything else is in pyproject.toml.

Without Cython, with ``WTSIM_PURE_PYTHON=1`` set, or where a module fails to
compile (Cython rejects it, or no C compiler), the install goes on and those modules run as
Python: the games are the same, only slower.

pip hides a build's output unless it runs with ``-v``, so the build also
says on the terminal, when there is one, that the engine is being compiled
and how long it took: a minute or two of silence is otherwise a mystery.
"""

from __future__ import annotations

import json
import os
import runpy
import shutil
import sys
import time
from pathlib import Path

from setuptools import Extension, find_namespace_packages, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
core = runpy.run_path(str(HERE / "welcometo_sim" / "compiled_core.py"))

CYTHON_DIRECTIVES = {"language_level": 3, "annotation_typing": False}
"""Type annotations stay hints, as in Python: with annotation typing, Cython
would turn a parameter annotated `float` into a C double, changing results."""

UNIX_COMPILE_ARGS = ["-O2", "-g0"]
"""Instead of Python's default -O3 -g: the build takes half the time (25 s
instead of 43 s for the evaluator alone) for the same play: 804 against 805
million instructions for 300 random solo games, 844 against 858 million for
10 greedy four-seat games (valgrind)."""


CYTHONIZED_FROM: dict[str, str] = {}
"""The SHA-256 of the source each module's C file was generated from, filled
by `core_extensions`: the manifest records these, not the sources as they
are when the C compiler runs (a source may change in between)."""

C_FOLDER = HERE / "build" / "cython"

BUILD_MINUTES = "1 to 2 minutes on two free cores"
"""How long compiling the engine takes on an idle machine (measured: see
docs/install.md, "Building the compiled engine")."""


def announce(message: str) -> None:
    """One line for the person installing: on the terminal when there is one
    (pip captures the build's stdout and stderr and shows them only with -v),
    else on stderr, where ``pip install -v`` and CI logs show it."""
    line = f"welcometo-sim: {message}\n"
    try:
        with open("/dev/tty", "w", encoding="utf-8") as terminal:
            terminal.write(line)
            return
    except OSError:
        pass
    sys.stderr.write(line)
    sys.stderr.flush()


def generated_c(module: str) -> Path:
    """The C file cythonize makes from a core module under `C_FOLDER` (at its
    source's place in the repository)."""
    return (C_FOLDER / core["source_path"](module, HERE).relative_to(HERE)).with_suffix(".c")


def core_extensions() -> list[Extension]:
    """The compiled core's extensions (none without Cython or when pure Python
    is asked for). A module Cython rejects is left out, like one the C
    compiler fails on. A C file is generated again whenever the digest of its
    source changed, whatever the files' dates say."""
    if core["pure_python_requested"]():
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        return []
    extensions = []
    stale = [name for name in core["CORE_MODULES"] if not _c_file_current(name)]
    started = time.monotonic()
    if stale:
        announce(f"translating {len(stale)} engine modules to C with Cython (about 10 s) ...")
    for name in core["CORE_MODULES"]:
        source = core["source_path"](name, HERE)
        digest = core["source_digest"](source)
        c_file = generated_c(name)
        digest_file = c_file.with_suffix(".c.sha256")
        if not digest_file.exists() or digest_file.read_text() != c_stamp(name, digest):
            c_file.unlink(missing_ok=True)
        try:
            extensions += cythonize([Extension(name, [str(source.relative_to(HERE))])], build_dir=str(C_FOLDER),
                                    compiler_directives=CYTHON_DIRECTIVES, quiet=True)
        except Exception as exc:  # Cython rejects some valid Python: that module stays Python
            print(f"warning: {name} not compiled, it will run as Python: {exc}")
            continue
        digest_file.write_text(c_stamp(name, digest))
        CYTHONIZED_FROM[name] = digest
    for extension in extensions:
        extension.optional = True  # set after cythonize, which does not carry it over
    if stale:
        announce(f"translated to C in {time.monotonic() - started:.0f} s")
    return extensions


def _c_file_current(module: str) -> bool:
    """Whether the C file of a core module was generated from its current source."""
    digest_file = generated_c(module).with_suffix(".c.sha256")
    source = core["source_path"](module, HERE)
    return digest_file.exists() and digest_file.read_text() == c_stamp(module, core["source_digest"](source))


def c_stamp(module: str, digest: str) -> str:
    """What the file beside a C file records: the digest of its source, and
    the module name when it is not the source's path (`strategies/greedy.py`
    compiles as ``welcometo_sim.strategies.greedy``), since the C code holds
    the name the module was generated under."""
    source = core["source_path"](module, HERE).relative_to(HERE).with_suffix("")
    return digest if ".".join(source.parts) == module else f"{digest} {module}"


NATIVE_DIRECTIVES = {"language_level": 3}
"""The native modules are typed Cython: their annotations and `cdef` types are meant."""

REQUIRE_COMPILED = "WTSIM_REQUIRE_COMPILED"
"""Set (CI does) to make a native module that fails to build fail the install."""


def native_extensions() -> list[Extension]:
    """The native modules (`welcometo_sim.native.NATIVE_MODULES`), each from the
    ``.pyx`` file of its name; none without Cython or when pure Python is
    asked for. They are optional like the compiled core's (the Python
    reference runs instead) unless REQUIRE_COMPILED is set, when a failed
    build stops the install."""
    if core["pure_python_requested"]() or not _cython_available():
        return []
    from Cython.Build import cythonize
    required = bool(os.environ.get(REQUIRE_COMPILED, "").strip())
    extensions = []
    for name in NATIVE_MODULES:
        source, *pxd_files = [path.relative_to(HERE) for path in native["module_sources"](name, NATIVE_FOLDER)]
        NATIVE_FROM[name] = native["module_digest"](name, NATIVE_FOLDER)
        extensions += cythonize([Extension(name, [str(source)], depends=[str(pxd) for pxd in pxd_files])],
                                build_dir=str(C_FOLDER), compiler_directives=NATIVE_DIRECTIVES, quiet=True)
    for extension in extensions:
        extension.optional = not required
    return extensions


def _cython_available() -> bool:
    try:
        import Cython.Build  # noqa: F401
    except ImportError:
        return False
    return True


NATIVE_FOLDER = HERE / "welcometo_sim" / "native"
native = runpy.run_path(str(NATIVE_FOLDER / "modules.py"))
NATIVE_MODULES = native["NATIVE_MODULES"]

NATIVE_FROM: dict[str, str] = {}
"""The digest of each native module's sources (its .pyx and the .pxd files
it depends on: `modules.module_digest`), as `native_extensions` cythonized
them: the native manifest records these, and a module whose sources differ
from its record at import does not run (welcometo_sim/native)."""


class BuildCore(build_ext):
    """build_ext that records the source digest of every module it compiled
    (the manifest `compiled_core.select_core` checks at import)."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:  # the modules compile independently
            self.parallel = os.cpu_count() or 1

    def build_extensions(self) -> None:
        if self.compiler.compiler_type == "unix":  # gcc or clang
            for ext in self.extensions:
                ext.extra_compile_args = [*ext.extra_compile_args, *UNIX_COMPILE_ARGS]
        super().build_extensions()

    def run(self) -> None:
        self.compiled: dict[str, str] = {}
        self.native_built: dict[str, str] = {}
        started, cpu_started = time.monotonic(), _children_cpu()
        pending = sum(map(self._out_of_date, self.extensions))
        if pending:
            reused = len(self.extensions) - pending
            announce(f"compiling the game engine ({pending} modules; "
                     f"{f'{reused} compiled earlier from the same sources are reused' if reused else BUILD_MINUTES}; "
                     f"WTSIM_PURE_PYTHON=1 skips it) ...")
        super().run()
        if pending:
            announce(f"game engine compiled: {len(self.compiled) + len(self.native_built)} of "
                     f"{len(self.extensions)} modules ready "
                     f"in {time.monotonic() - started:.0f} s ({_children_cpu() - cpu_started:.0f} s of compiler CPU time)")
        package_folder = Path(self.get_ext_fullpath("welcometo_sim.any_module")).parent  # in place or not
        manifest = package_folder / core["manifest_name"](self.get_ext_filename("any_module")[len("any_module"):])
        manifest.parent.mkdir(parents=True, exist_ok=True)
        manifest.write_text(json.dumps(self.compiled, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        native_manifest = package_folder / "native" / native["manifest_name"](
            self.get_ext_filename("any_module")[len("any_module"):])
        native_manifest.parent.mkdir(parents=True, exist_ok=True)
        native_manifest.write_text(json.dumps(self.native_built, indent=1, sort_keys=True) + "\n", encoding="utf-8")

    def _out_of_date(self, ext: Extension) -> bool:
        """Whether build_ext will compile `ext` (as it decides: the compiled
        file is missing or older than one of its sources), unless an earlier
        install left it compiled from the same source."""
        if self._compiled_in_place(ext) is not None:
            return False
        target = Path(self.get_ext_fullpath(ext.name))
        if self.force or not target.exists():
            return True
        return any(Path(source).stat().st_mtime > target.stat().st_mtime for source in [*ext.sources, *ext.depends])

    def _compiled_in_place(self, ext: Extension) -> Path | None:
        """The module an earlier install of this checkout compiled beside its
        source, when that install's manifest says it was compiled from the
        source as it is now: an editable install builds in a fresh temporary
        folder every time, so without this every re-install compiled every
        module again (minutes). The file name holds the Python ABI, so
        another Python never picks it up; delete the compiled files (or set
        --force) to compile them again anyway."""
        digest = CYTHONIZED_FROM.get(ext.name) or NATIVE_FROM.get(ext.name)
        if digest is None or self.force:
            return None
        suffix = self.get_ext_filename("any_module")[len("any_module"):]
        if ext.name in NATIVE_FROM:
            source = HERE / Path(*ext.name.split(".")).with_suffix(".pyx")
            manifest = NATIVE_FOLDER / native["manifest_name"](suffix)
        else:
            source = core["source_path"](ext.name, HERE)
            manifest = HERE / "welcometo_sim" / core["manifest_name"](suffix)
        compiled = source.with_name(source.stem + suffix)
        try:
            recorded = json.loads(manifest.read_text(encoding="utf-8")).get(ext.name)
        except (OSError, ValueError, AttributeError):
            return None
        return compiled if recorded == digest and compiled.is_file() else None

    def build_extension(self, ext: Extension) -> None:
        # Raises when this optional module failed: it is then left out. Returns
        # without compiling when the module is newer than its C file, which
        # cythonize has just made again if the source changed, or copies the
        # module an earlier install compiled from the same source.
        reusable = self._compiled_in_place(ext)
        target = Path(self.get_ext_fullpath(ext.name))
        if reusable is None:
            super().build_extension(ext)
        elif reusable.resolve() != target.resolve():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(reusable, target)
        if ext.name in CYTHONIZED_FROM:
            self.compiled[ext.name] = CYTHONIZED_FROM[ext.name]
        else:
            self.native_built[ext.name] = NATIVE_FROM[ext.name]


def _children_cpu() -> float:
    """CPU seconds of finished child processes (the C compiler runs)."""
    times = os.times()
    return times.children_user + times.children_system


extensions = core_extensions()
if not extensions:  # compiled files left in place by an earlier build must not run now
    (HERE / "welcometo_sim" / core["manifest_name"]()).unlink(missing_ok=True)
native_modules = native_extensions()
if not native_modules:  # nor native modules: without their record they do not run
    (HERE / "welcometo_sim" / "native" / native["manifest_name"]()).unlink(missing_ok=True)
PACKAGES = [*find_namespace_packages(include=["welcometo_sim", "welcometo_sim.*"], exclude=["*__pycache__*"]),
            *core["RENAMED_PACKAGES"]]
"""The package and its subpackages, and `strategies/` installed as
``welcometo_sim.strategies`` (`compiled_core.RENAMED_PACKAGES`): no top-level
``strategies`` package in site-packages."""

setup(packages=PACKAGES, package_dir=dict(core["RENAMED_PACKAGES"]), ext_modules=[*extensions, *native_modules],
      cmdclass={"build_ext": BuildCore})
