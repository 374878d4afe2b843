"""Reading `.npz` archives whose sizes are checked before anything is allocated.

`np.load` trusts a file: the npy header of a 1 KB archive may claim
billions of floats (numpy allocates them before reading), and a small
compressed member may unpack to gigabytes. A weights file or a training
checkpoint comes from anywhere, so :class:`BoundedNpz` reads each member's
uncompressed size from the zip directory and its shape and type from the
npy header (``np.lib.format``), refuses what the caller's bounds do not
allow, and only then reads the data, no more bytes than the header
announces. Every failure is an :class:`ArchiveError` with a short reason.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path
from typing import IO

import numpy as np

HEADER_ROOM = 64 * 1024
"""Bytes an npy header may take besides the data (numpy writes at most a few hundred)."""
READ_ERRORS = (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error, RuntimeError, NotImplementedError)
"""What zipfile and np.lib.format raise on a damaged, truncated or unsupported archive."""


class ArchiveError(ValueError):
    """An archive, or one of its arrays, that cannot be read within its bounds."""


class BoundedNpz:
    """An `.npz` file opened for bounded reads of its arrays (a context manager)."""

    def __init__(self, path: str | Path, max_file_bytes: int) -> None:
        try:
            size = Path(path).stat().st_size
        except OSError as exc:
            raise ArchiveError(f"cannot be read ({exc.strerror or type(exc).__name__})") from None
        if size > max_file_bytes:
            raise ArchiveError(f"larger than {max_file_bytes // 2**20} MB")
        try:
            self._zip = zipfile.ZipFile(path)
        except READ_ERRORS as exc:
            raise ArchiveError(f"not an .npz archive ({type(exc).__name__})") from None

    def __enter__(self) -> "BoundedNpz":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._zip.close()

    def array(self, name: str, kind: str, max_bytes: int, shape: tuple[int, ...] | None = None) -> np.ndarray:
        """Array `name` if its dtype kind is `kind` ('f' float, 'U' text, ...),
        its shape `shape` (when given) and its data at most `max_bytes`."""
        try:
            info = self._zip.getinfo(f"{name}.npy")
        except KeyError:
            raise ArchiveError(f"no {name!r} array") from None
        if info.file_size > max_bytes + HEADER_ROOM:
            raise ArchiveError(f"{name!r} unpacks to {info.file_size} bytes, more than the "
                               f"{max_bytes + HEADER_ROOM} it may take")
        try:
            with self._zip.open(info) as member:
                return _read_array(member, name, info.file_size, kind, max_bytes, shape)
        except ArchiveError:
            raise
        except READ_ERRORS as exc:
            raise ArchiveError(f"{name!r} is damaged ({type(exc).__name__})") from None


def _read_array(member: IO[bytes], name: str, file_size: int, kind: str, max_bytes: int,
                shape: tuple[int, ...] | None) -> np.ndarray:
    """The array of one npy member, its header checked before its data is read."""
    found_shape, fortran, dtype = _header(member, name)
    if dtype.hasobject or dtype.kind != kind or dtype.fields is not None or dtype.subdtype is not None:
        raise ArchiveError(f"{name!r} holds {dtype} values, not the kind {kind!r} expected")
    if shape is not None and found_shape != shape:
        raise ArchiveError(f"{name!r} has shape {found_shape}, expected {shape}")
    if any(extent < 0 for extent in found_shape):
        raise ArchiveError(f"{name!r} has shape {found_shape}")
    count = 1
    for extent in found_shape:
        count *= extent
    nbytes = count * dtype.itemsize
    if nbytes > max_bytes:
        raise ArchiveError(f"{name!r} holds {nbytes} bytes of data, more than the {max_bytes} it may hold")
    if nbytes > file_size:
        raise ArchiveError(f"{name!r} claims {nbytes} bytes of data in a member of {file_size} bytes")
    raw = member.read(nbytes)
    if len(raw) != nbytes or member.read(1):
        raise ArchiveError(f"{name!r} does not hold the {nbytes} bytes its header announces")
    data = np.frombuffer(raw, dtype=dtype)
    return data.reshape(found_shape, order="F" if fortran else "C").copy()


def _header(member: IO[bytes], name: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    version = np.lib.format.read_magic(member)
    if version == (1, 0):
        return np.lib.format.read_array_header_1_0(member)
    if version == (2, 0):
        return np.lib.format.read_array_header_2_0(member)
    raise ArchiveError(f"{name!r} is in npy format {version[0]}.{version[1]}, which is not read here")
