"""Player boards as bit-sets, and where a pattern of cubes may be built on one.

A board of R x C cells is a set of Python ints, one per building type, bit
``row * C + col`` set where that building stands. Neighbours, edges, zones and
the lines bonus tiles point to are masks computed once per board side
(:class:`Layout`), and every translation of every pattern shape is computed once
too, so legality is one ``&`` per candidate placement and the placement search
walks no cells.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple

from .data import BUILDINGS, LETTERS, WILD, DataError, GameData

N_BUILDINGS = len(BUILDINGS)
WILD_CODE = N_BUILDINGS
"""Cube code of a wild cube (building codes are 0..4, the index in `BUILDINGS`)."""
CODE_LETTERS = "".join(LETTERS[b] for b in BUILDINGS) + LETTERS[WILD]


class Move(NamedTuple):
    """A placement answer: the buildings of one colour (with the wild cubes, if
    `wild`) built in the pattern's shape with the shape's top-left corner of its
    bounding box at (`row`, `col`)."""

    building: str
    wild: bool
    row: int
    col: int


class Layout:
    """The masks of one board side: geometry shared by every board of a game."""

    def __init__(self, data: GameData, side: str) -> None:
        spec = data.side(side)
        self.side = spec.name
        self.rows, self.cols = data.rows, data.cols
        self.size = data.pattern_size
        self.n = self.rows * self.cols
        self.full = (1 << self.n) - 1
        first_col = sum(1 << (r * self.cols) for r in range(self.rows))
        self.not_first_col = self.full & ~first_col
        self.not_last_col = self.full & ~(first_col << (self.cols - 1))
        self.black_cells = self.edge_cells(spec.black_edges)
        self.beach_cells = self.edge_cells(spec.beach_edges)
        self.seaside = bool(spec.beach_edges)
        self.zone_masks = self._zones(spec.zones, dict(data.zone_points))
        self.lines = self._lines(data)
        self.construction_cells = tuple(self.bit(r, c) for r, c in data.construction_cells)
        self.pairs = data.construction_pairs
        self._shapes: dict[int, tuple[tuple[int, int, int], ...]] = {}
        self._moves: dict[tuple[int, str, bool], tuple[tuple[Move, int], ...]] = {}
        self.neighbours = _neighbours_of(self.cols, self.not_first_col, self.not_last_col, self.full)
        self._frozen = True

    def __setattr__(self, name: str, value: object) -> None:
        if getattr(self, "_frozen", False):
            raise AttributeError("a board Layout is read-only")
        object.__setattr__(self, name, value)

    def bit(self, row: int, col: int) -> int:
        """The mask of one cell."""
        return 1 << (row * self.cols + col)

    def cells(self, mask: int) -> list[tuple[int, int]]:
        """The (row, col) cells of a mask, in reading order (for rendering and records)."""
        return [divmod(i, self.cols) for i in range(self.n) if mask >> i & 1]

    def edge_cells(self, edges: Iterable[str]) -> int:
        """Cells that touch any of the given board edges."""
        mask = 0
        for edge in edges:
            for k in range(self.rows if edge in ("east", "west") else self.cols):
                r, c = {"north": (0, k), "south": (self.rows - 1, k),
                        "west": (k, 0), "east": (k, self.cols - 1)}[edge]
                mask |= self.bit(r, c)
        return mask

    def _zones(self, zones: tuple[str, ...], points: dict[str, int]) -> tuple[tuple[int, int], ...]:
        masks: dict[int, int] = {}
        for r, line in enumerate(zones):
            for c, letter in enumerate(line):
                masks[points[letter]] = masks.get(points[letter], 0) | self.bit(r, c)
        return tuple(sorted(masks.items()))

    def _lines(self, data: GameData) -> tuple[int, ...]:
        """Masks of the bonus slots: the corner's diagonal, then north columns, then west rows."""
        diagonal = 0
        for k in range(min(self.rows, self.cols)):
            diagonal |= self.bit(k, k)
        columns = [sum(self.bit(r, c) for r in range(self.rows)) for c in data.north_columns]
        rows = [sum(self.bit(r, c) for c in range(self.cols)) for r in data.west_rows]
        return (diagonal, *columns, *rows)

    def flood(self, seed: int, within: int) -> int:
        """Cells of `within` connected (orthogonally, inside `within`) to the cells of `seed`."""
        reach = seed & within
        while True:
            grown = (reach | self.neighbours(reach)) & within
            if grown == reach:
                return reach
            reach = grown

    def placements(self, frame: int) -> tuple[tuple[int, int, int], ...]:
        """Every (row, col, mask) where the shape of pattern bits `frame` fits the board.

        Bit ``i * size + j`` of `frame` is cube (i, j) of the pattern; the shape is
        translated only (never rotated or mirrored), (row, col) is the top-left
        corner of its bounding box. Cached: a pattern has at most 2**9 shapes."""
        found = self._shapes.get(frame)
        if found is None:
            found = self._shapes[frame] = self._translations(frame)
        return found

    def moves(self, frame: int, building: str, wild: bool) -> tuple[tuple[Move, int], ...]:
        """(Move, mask) of every translation of a shape for one colour (cached)."""
        key = (frame, building, wild)
        found = self._moves.get(key)
        if found is None:
            found = self._moves[key] = tuple((Move(building, wild, r, c), mask)
                                             for r, c, mask in self.placements(frame))
        return found

    def _translations(self, frame: int) -> tuple[tuple[int, int, int], ...]:
        cubes = [divmod(i, self.size) for i in range(self.size * self.size) if frame >> i & 1]
        if not cubes:
            return ()
        top = min(i for i, _ in cubes)
        left = min(j for _, j in cubes)
        shape = [(i - top, j - left) for i, j in cubes]
        height = 1 + max(i for i, _ in shape)
        width = 1 + max(j for _, j in shape)
        base = sum(self.bit(i, j) for i, j in shape)
        return tuple((r, c, base << (r * self.cols + c))
                     for r in range(self.rows - height + 1)
                     for c in range(self.cols - width + 1))


def _neighbours_of(cols: int, not_first: int, not_last: int, full: int):
    """The neighbour function of a board shape (a closure: the hot path reads no attributes)."""

    def neighbours(mask: int) -> int:
        """Cells orthogonally next to any cell of `mask` (the cells themselves only if adjacent)."""
        return (((mask << 1) & not_first) | ((mask >> 1) & not_last)
                | (mask << cols) | (mask >> cols)) & full

    return neighbours


class Board:
    """One player's board: a building mask per type and the construction tiles left.

    Immutable: :meth:`place` returns a new board, so a board can be shown to a
    strategy without letting it change the game (the game hands out copies all
    the same)."""

    __slots__ = ("layout", "masks", "construction")

    def __init__(self, layout: Layout, masks: tuple[int, ...] = (0,) * N_BUILDINGS,
                 construction: tuple[tuple[int, int], ...] = ()) -> None:
        object.__setattr__(self, "layout", layout)
        object.__setattr__(self, "masks", tuple(masks))
        object.__setattr__(self, "construction", tuple(construction))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Board cannot be changed: place() returns a new one")

    def __copy__(self) -> "Board":
        return Board(self.layout, self.masks, self.construction)

    copy = __copy__

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Board) and self.masks == other.masks
                and self.construction == other.construction)

    def __hash__(self) -> int:
        return hash((self.masks, self.construction))

    @property
    def built(self) -> int:
        """Cells holding a building."""
        m = self.masks
        return m[0] | m[1] | m[2] | m[3] | m[4]

    @property
    def blocked(self) -> int:
        """Cells covered by a construction tile."""
        out = 0
        for cell, _ in self.construction:
            out |= cell
        return out

    @property
    def occupied(self) -> int:
        """Cells no tile may be placed on."""
        return self.built | self.blocked

    @property
    def empty_cells(self) -> int:
        """How many cells are still free (the second tie-break)."""
        return self.layout.n - self.occupied.bit_count()

    def count(self, building: str) -> int:
        """How many buildings of a type stand on the board."""
        return self.masks[BUILDINGS.index(building)].bit_count()

    def fits(self, mask: int) -> bool:
        """Whether every cell of `mask` is free."""
        return not mask & self.occupied

    def place(self, building: int | str, mask: int) -> "Board":
        """The board after building `building` on the cells of `mask`, with the
        construction tiles whose two building types now stand side by side removed.
        Raises ValueError when a cell is not free."""
        code = BUILDINGS.index(building) if isinstance(building, str) else building
        if mask & self.occupied or mask & ~self.layout.full:
            raise ValueError("a cell of the placement is not free")
        masks = list(self.masks)
        masks[code] |= mask
        return Board(self.layout, tuple(masks), remaining_construction(self.layout, masks,
                                                                        self.construction))

    def grid(self) -> list[str]:
        """The board as text rows: a building letter, `#` for construction, `.` for empty."""
        rows = [["."] * self.layout.cols for _ in range(self.layout.rows)]
        for code, mask in enumerate(self.masks):
            for r, c in self.layout.cells(mask):
                rows[r][c] = CODE_LETTERS[code]
        for r, c in self.layout.cells(self.blocked):
            rows[r][c] = "#"
        return ["".join(r) for r in rows]

    def __str__(self) -> str:
        return "\n".join(self.grid())

    def __repr__(self) -> str:
        return f"Board({'/'.join(self.grid())})"

    @classmethod
    def from_grid(cls, layout: Layout, grid: Iterable[str],
                  construction: Iterable[tuple[tuple[int, int], int]] = ()) -> "Board":
        """A board from text rows (letters of :data:`CODE_LETTERS`, `.` empty),
        with construction tiles as ((row, col), pair index); for tests and notebooks."""
        masks = [0] * N_BUILDINGS
        lines = list(grid)
        if len(lines) != layout.rows or any(len(line) != layout.cols for line in lines):
            raise DataError("grid", f"expected {layout.rows} rows of {layout.cols} cells")
        for r, line in enumerate(lines):
            for c, letter in enumerate(line):
                if letter == ".":
                    continue
                code = CODE_LETTERS.find(letter)
                if code < 0 or code == WILD_CODE:
                    raise DataError("grid", f"unknown cell {letter!r}")
                masks[code] |= layout.bit(r, c)
        tiles = tuple((layout.bit(r, c), pair) for (r, c), pair in construction)
        return cls(layout, tuple(masks), tiles)


def remaining_construction(layout: Layout, masks: list[int] | tuple[int, ...],
                           tiles: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """The construction tiles still on the board once `masks` stand on it: a tile
    leaves when a building of one of its types is next to one of the other."""
    if not tiles:
        return tiles
    kept = []
    for cell, pair in tiles:
        a, b = layout.pairs[pair]
        if not masks[a] & layout.neighbours(masks[b]):
            kept.append((cell, pair))
    return tuple(kept)
