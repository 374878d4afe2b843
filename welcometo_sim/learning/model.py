"""A learned value model: its weight vector, layout and provenance, as one `.npz` file.

The file holds `weights` (float32) and `meta`, a JSON document: the format
version, the layout (street lengths and plan ids, which fix every table's
place), the variant family it was trained on, and how it was made (the
training command, seed, games played, code version). Loading checks all of
it and fails in one line (:class:`ModelError`) on a missing, corrupt or
mismatched file, before allocating more than the layout it declares needs
(a crafted header or layout cannot ask for gigabytes).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .archive import ArchiveError, BoundedNpz
from .features import FEATURE_GROUPS, WINDOW_SIZE, Layout

MODEL_FORMAT = "welcometo-sim/value-model/1"
MAX_MODEL_BYTES = 64 * 1024 * 1024
MAX_META_BYTES = 16 * 1024 * 1024
"""The JSON text of a model's or a checkpoint's `meta` (as numpy stores it, 4 bytes a character)."""
MAX_STREETS = 8
MAX_STREET_HOUSES = 32
MAX_PLANS = 512
MAX_PLAN_ID = 100
"""Bounds of a layout read from a file: far above any sheet, far below what would exhaust memory."""


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
        """Write the model atomically (a temporary file renamed into place);
        weights that are not finite are never written."""
        path = Path(path)
        if not finite_weights(self.weights):
            raise ModelError(f"weights file {str(path)!r}: not written, its weights are not all finite "
                             f"float32 numbers")
        stored = self.weights.astype(np.float32)
        shape = {"street_houses": list(self.layout.street_houses), "plan_ids": list(self.layout.plan_ids)}
        if self.layout.groups:  # (a file without groups reads as before)
            shape["groups"] = list(self.layout.groups)
        meta = {**self.meta, "format": MODEL_FORMAT, "layout": shape}
        partial = path.with_name(path.name + ".partial")
        with open(partial, "wb") as handle:
            np.savez_compressed(handle, weights=stored,
                                meta=np.array(json.dumps(meta, sort_keys=True)))
        partial.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> "ValueModel":
        path = Path(path)
        where = f"weights file {str(path)!r}"
        if not path.is_file():
            raise ModelError(f"{where}: not found")
        try:
            with BoundedNpz(path, MAX_MODEL_BYTES) as archive:
                meta = read_json(archive, "meta")
                if not isinstance(meta, dict) or meta.get("format") != MODEL_FORMAT:
                    raise ModelError(f"{where}: not a {MODEL_FORMAT} file")
                layout = checked_layout(meta.get("layout"), where)
                weights = archive.array("weights", "f", layout.size * 8)
        except ArchiveError as exc:
            raise ModelError(f"{where}: not a readable model: {exc}") from None
        if weights.shape != (layout.size,):
            raise ModelError(f"{where}: {weights.size} weights where its layout has {layout.size}")
        weights = weights.astype(np.float64)
        if not finite_weights(weights):
            raise ModelError(f"{where}: holds weights that are not finite")
        return cls(layout, weights, meta)


def finite_weights(weights: np.ndarray) -> bool:
    """Every weight a finite float32 (what a model file stores): NaN, inf or
    an overflow would make every value of a sheet meaningless."""
    return bool(np.all(np.abs(weights) <= np.finfo(np.float32).max))


def read_json(archive: BoundedNpz, name: str) -> object:
    """The JSON document stored as text array `name` (ArchiveError if unreadable)."""
    text = archive.array(name, "U", MAX_META_BYTES, shape=())
    try:
        return json.loads(str(text))
    except (ValueError, RecursionError):
        raise ArchiveError(f"{name!r} is not JSON") from None


def checked_layout(shape: object, where: str) -> Layout:
    """The layout a file declares, within the bounds a sheet can have (a
    layout is checked before its tables are sized: `street_houses: [10**12]`
    would otherwise ask for terabytes)."""
    try:
        houses = shape["street_houses"]  # type: ignore[index]
        plans = shape["plan_ids"]  # type: ignore[index]
        groups = shape.get("groups", [])  # type: ignore[union-attr]
    except (KeyError, TypeError, IndexError, AttributeError):
        raise ModelError(f"{where}: its layout is unreadable") from None
    if (not isinstance(houses, list) or not 1 <= len(houses) <= MAX_STREETS
            or not all(type(n) is int and WINDOW_SIZE <= n <= MAX_STREET_HOUSES for n in houses)):
        raise ModelError(f"{where}: its layout's street_houses must be 1 to {MAX_STREETS} streets of "
                         f"{WINDOW_SIZE} to {MAX_STREET_HOUSES} houses")
    if (not isinstance(plans, list) or len(plans) > MAX_PLANS
            or not all(isinstance(p, str) and 0 < len(p) <= MAX_PLAN_ID for p in plans)):
        raise ModelError(f"{where}: its layout's plan_ids must be at most {MAX_PLANS} plan ids of at most "
                         f"{MAX_PLAN_ID} characters")
    if (not isinstance(groups, list) or not all(isinstance(g, str) for g in groups)
            or len(set(groups)) != len(groups) or not set(groups) <= set(FEATURE_GROUPS)):
        raise ModelError(f"{where}: its layout's groups must be distinct names of {', '.join(FEATURE_GROUPS)}")
    return Layout(tuple(houses), tuple(plans), tuple(groups))


def layout_for(data, groups: tuple[str, ...] = ()) -> Layout:
    """The layout of a game's data: its street lengths and every plan it
    knows, with the feature `groups` asked for."""
    return Layout(tuple(data.street_houses), tuple(sorted({p.id for p in data.all_plans()})), groups)
