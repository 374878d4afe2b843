"""The native modules the build makes, each compiled from the ``.pyx`` file
of the same name beside this one (with the ``.pxd`` files it depends on),
and the manifest that records the sources each was compiled from. Only the
standard library is used here: ``setup.py`` and
``benchmarks/build_native.py`` read this file before the package is built."""

from __future__ import annotations

import hashlib
import sysconfig
from pathlib import Path

NATIVE_MODULES = ("welcometo_sim.native.decision", "welcometo_sim.native.sheet", "welcometo_sim.native.heuristic",
                  "welcometo_sim.native.game", "welcometo_sim.native.seeding")

NATIVE_DEPENDS: dict[str, tuple[str, ...]] = {
    "welcometo_sim.native.sheet": ("sheet.pxd",),
    "welcometo_sim.native.heuristic": ("sheet.pxd",),
    "welcometo_sim.native.game": ("sheet.pxd",),
}
"""The ``.pxd`` files, beside the ``.pyx`` sources, that each native module
is compiled with: its own declarations and those it cimports. They fix the
C layout of the classes the module reads (fields, method tables), so a
module built against an older ``.pxd`` than the one in use reads the wrong
memory: the digest of a module covers them (`module_digest`), and changing
one makes every module that depends on it stale until rebuilt.
tests/test_native_decision.py checks this table against the cimports of
the sources."""


def manifest_name(extension_suffix: str | None = None) -> str:
    """The build's record beside this file, {module name: `module_digest` of
    the sources it was compiled from}, one per kind of compiled file (this
    Python's by default), as the compiled core keeps its own."""
    suffix = extension_suffix or sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    return "_built" + suffix.rsplit(".", 1)[0] + ".json"


def module_sources(module: str, folder: Path) -> list[Path]:
    """The files a native module is compiled from, in `folder` (the package's
    ``native`` folder): its ``.pyx``, then its `NATIVE_DEPENDS`."""
    stem = module.rsplit(".", 1)[1]
    return [folder / f"{stem}.pyx", *(folder / name for name in NATIVE_DEPENDS.get(module, ()))]


def module_digest(module: str, folder: Path) -> str:
    """The digest the manifest records for a native module: the SHA-256 of
    its ``.pyx`` alone when it depends on no ``.pxd`` (what the manifest
    has always held for such a module), else the SHA-256 of one line per
    source, "NAME SHA256", the ``.pyx`` first. Raises OSError when a source
    is missing."""
    sources = module_sources(module, folder)
    digests = [hashlib.sha256(path.read_bytes()).hexdigest() for path in sources]
    if len(sources) == 1:
        return digests[0]
    lines = "".join(f"{path.name} {digest}\n" for path, digest in zip(sources, digests))
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def cimported_modules(module: str) -> list[str]:
    """The other native modules whose ``.pxd`` `module` cimports: it calls
    their compiled code, so it runs only when they are current too."""
    package = module.rsplit(".", 1)[0]
    named = [f"{package}.{Path(name).stem}" for name in NATIVE_DEPENDS.get(module, ())]
    return [name for name in named if name != module and name in NATIVE_MODULES]
