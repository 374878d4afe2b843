"""The native modules the build makes, each compiled from the ``.pyx`` file
of the same name beside this one, and the manifest that records the source
each was compiled from. Only the standard library is used here: ``setup.py``
reads this file before the package is built."""

from __future__ import annotations

import sysconfig

NATIVE_MODULES = ("welcometo_sim.native.decision", "welcometo_sim.native.sheet", "welcometo_sim.native.game")


def manifest_name(extension_suffix: str | None = None) -> str:
    """The build's record beside this file, {module name: SHA-256 of the .pyx
    source it was compiled from}, one per kind of compiled file (this
    Python's by default), as the compiled core keeps its own."""
    suffix = extension_suffix or sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    return "_built" + suffix.rsplit(".", 1)[0] + ".json"
