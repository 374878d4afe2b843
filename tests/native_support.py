"""The native modules a test module compares with the Python reference,
looked up once per test module (`native_or_skip`)."""

from __future__ import annotations

import os
from types import ModuleType

import pytest

from welcometo_sim.compiled_core import PURE_PYTHON_VARIABLE, pure_python_requested
from welcometo_sim.native import native_module, native_status

REQUIRE_COMPILED = "WTSIM_REQUIRE_COMPILED"
"""Set (CI does): a native module that is not built fails the tests that need it instead of skipping them."""


def native_or_skip(stem: str, needs_all: bool = False) -> ModuleType:
    """The current native module `welcometo_sim.native.STEM`, called at a test
    module's top: the test module is skipped when WTSIM_PURE_PYTHON asks for
    the Python engine or when the module (with `needs_all`, any native
    module: the driver's seats call them all) is not built, and fails when
    REQUIRE_COMPILED expects a current build that is not there."""
    name = f"welcometo_sim.native.{stem}"
    if pure_python_requested():
        pytest.skip(f"{PURE_PYTHON_VARIABLE} is set: the Python engine runs, not {name}", allow_module_level=True)
    status = native_status()
    built = all(status.values()) if needs_all else status.get(name)
    if not built and not os.environ.get(REQUIRE_COMPILED):
        pytest.skip(f"{'the native modules are' if needs_all else name + ' is'} not built in this install "
                    "(python benchmarks/build_native.py)", allow_module_level=True)
    module = native_module(stem)
    if module is None:  # REQUIRE_COMPILED set without a current build
        pytest.fail(f"{name} is not built or is stale, and {REQUIRE_COMPILED} is set", pytrace=False)
    return module
