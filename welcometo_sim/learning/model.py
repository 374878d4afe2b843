"""A learned value model: its weight vector, layout and provenance, as one `.npz` file.

The file holds `weights` (float32) and `meta`, a JSON document: the format
version, the layout (street lengths and plan ids, which fix every table's
place), the variant family it was trained on, and how it was made (the
training command, seed, games played, code version). Loading checks all of
it and fails in one line (:class:`ModelError`) on a missing, corrupt or
mismatched file.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .features import Layout

MODEL_FORMAT = "welcometo-sim/value-model/1"
MAX_MODEL_BYTES = 64 * 1024 * 1024


class ModelError(ValueError):
    """A weights file that cannot be used: missing, corrupt, or for another layout."""


@dataclass
class ValueModel:
    layout: Layout
    weights: np.ndarray
    meta: dict = field(default_factory=dict)

    @classmethod
    def empty(cls, layout: Layout, meta: dict | None = None) -> "ValueModel":
        """All weights zero: the value of a sheet is then its exact points so far."""
        return cls(layout, np.zeros(layout.size, dtype=np.float64), dict(meta or {}))

    def save(self, path: str | Path) -> None:
        """Write the model atomically (a temporary file renamed into place)."""
        path = Path(path)
        meta = {**self.meta, "format": MODEL_FORMAT,
                "layout": {"street_houses": list(self.layout.street_houses),
                           "plan_ids": list(self.layout.plan_ids)}}
        partial = path.with_name(path.name + ".partial")
        with open(partial, "wb") as handle:
            np.savez_compressed(handle, weights=self.weights.astype(np.float32),
                                meta=np.array(json.dumps(meta, sort_keys=True)))
        partial.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> "ValueModel":
        path = Path(path)
        if not path.is_file():
            raise ModelError(f"weights file {str(path)!r}: not found")
        if path.stat().st_size > MAX_MODEL_BYTES:
            raise ModelError(f"weights file {str(path)!r}: larger than {MAX_MODEL_BYTES // 2**20} MB")
        try:
            with np.load(path, allow_pickle=False) as archive:
                weights = np.array(archive["weights"], dtype=np.float64)
                meta = json.loads(str(archive["meta"]))
        except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as exc:
            raise ModelError(f"weights file {str(path)!r}: not a readable model ({type(exc).__name__})") from None
        if not isinstance(meta, dict) or meta.get("format") != MODEL_FORMAT:
            raise ModelError(f"weights file {str(path)!r}: not a {MODEL_FORMAT} file")
        try:
            shape = meta["layout"]
            layout = Layout(tuple(int(n) for n in shape["street_houses"]), tuple(str(p) for p in shape["plan_ids"]))
        except (KeyError, TypeError, ValueError):
            raise ModelError(f"weights file {str(path)!r}: its layout is unreadable") from None
        if weights.shape != (layout.size,):
            raise ModelError(f"weights file {str(path)!r}: {weights.size} weights where its layout "
                             f"has {layout.size}")
        if not np.all(np.isfinite(weights)):
            raise ModelError(f"weights file {str(path)!r}: holds weights that are not finite")
        return cls(layout, weights, meta)


def layout_for(data) -> Layout:
    """The layout of a game's data: its street lengths and every plan it knows."""
    return Layout(tuple(data.street_houses), tuple(sorted({p.id for p in data.all_plans()})))
