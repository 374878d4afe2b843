"""The native modules the build makes, each compiled from the ``.pyx`` file
of the same name beside this one. Only the standard library is used here:
``setup.py`` reads this file before the package is built."""

NATIVE_MODULES = ("welcometo_sim.native.decision",)
