"""One player's sheet: houses, fences, tracks, and the legality of writing on it.

A sheet is plain lists of ints and bools so that copying it (for search
strategies) and checking placements (the per-move hot path) stay cheap.
Derived facts that are asked for often (per-house number bounds, estates) are
cached per street and dropped whenever that street changes.
"""

from __future__ import annotations

from .data import DEFAULT_DATA, MAX_ESTATE_SIZE, MAX_NUMBER, MIN_NUMBER, GameData

Estate = tuple[int, int, int]
"""A completed estate as (street, first_house, size)."""

_BELOW_ALL = MIN_NUMBER - 1
_ABOVE_ALL = MAX_NUMBER + 1


class Sheet:
    """The state of one player's sheet.

    Attributes are public for reading (strategies, scoring, rendering); change
    them only through the methods, which keep the caches right.
    """

    __slots__ = (
        "data", "numbers", "is_bis", "roundabouts", "fences", "plan_use", "parks",
        "pools", "real_estate", "temps", "n_bis", "refusals", "n_roundabouts",
        "plan_turns", "plan_points", "board", "n_houses", "_filled", "_bounds", "_runs",
        "_unused", "street_cache",
    )

    def __init__(self, data: GameData = DEFAULT_DATA, board: object = None) -> None:
        self.data = data
        self.board = board  # thematic board state (rules/boards.py); None on the base board
        sizes = data.street_houses
        self.numbers: list[list[int | None]] = [[None] * n for n in sizes]
        self.is_bis: list[list[bool]] = [[False] * n for n in sizes]
        self.roundabouts: list[list[bool]] = [[False] * n for n in sizes]
        self.fences: list[list[bool]] = [[False] * (n - 1) for n in sizes]
        self.plan_use: list[list[int]] = [[0] * n for n in sizes]
        self.parks: list[int] = [0] * len(sizes)
        self.pools: list[list[bool]] = [[False] * n for n in sizes]
        self.real_estate: list[int] = [0] * MAX_ESTATE_SIZE
        self.temps = 0
        self.n_bis = 0
        self.refusals = 0
        self.n_roundabouts = 0
        self.plan_turns: list[int | None] = [None, None, None]
        self.plan_points: list[int] = [0, 0, 0]
        self._bounds: list[list[tuple[int, int, int]] | None] = [None] * len(sizes)
        self._runs: list[list[tuple[int, int, bool]] | None] = [None] * len(sizes)
        self._unused: list[Estate] | None = None
        self.n_houses = sum(sizes)
        self._filled = 0  # houses holding a number or a roundabout
        # Free per-street slot for derived values of other modules (evaluation
        # features); cleared whenever anything on that street changes.
        self.street_cache: list[object] = [None] * len(sizes)

    # ----------------------------------------------------------------- copying
    def copy(self) -> "Sheet":
        """An independent copy, for strategies that try moves before choosing."""
        other = Sheet.__new__(Sheet)
        other.data = self.data
        other.numbers = [row[:] for row in self.numbers]
        other.is_bis = [row[:] for row in self.is_bis]
        other.roundabouts = [row[:] for row in self.roundabouts]
        other.fences = [row[:] for row in self.fences]
        other.plan_use = [row[:] for row in self.plan_use]
        other.parks = self.parks[:]
        other.pools = [row[:] for row in self.pools]
        other.real_estate = self.real_estate[:]
        other.temps = self.temps
        other.n_bis = self.n_bis
        other.refusals = self.refusals
        other.n_roundabouts = self.n_roundabouts
        other.plan_turns = self.plan_turns[:]
        other.plan_points = self.plan_points[:]
        other.board = None if self.board is None else self.board.copy()  # type: ignore[attr-defined]
        other._bounds = self._bounds[:]
        other._runs = self._runs[:]
        other._unused = self._unused
        other.n_houses = self.n_houses
        other._filled = self._filled
        other.street_cache = self.street_cache[:]
        return other

    def _changed(self, street: int) -> None:
        self._bounds[street] = None
        self._runs[street] = None
        self._unused = None
        self.street_cache[street] = None

    # ------------------------------------------------------------- placement
    def street_bounds(self, street: int) -> list[tuple[int, int, int]]:
        """For every empty house of a street: (house, lo, hi), the number must satisfy lo < n < hi.

        Ordering restarts after a roundabout, so bounds only look inside the
        house's own segment.
        """
        cached = self._bounds[street]
        if cached is not None:
            return cached
        numbers = self.numbers[street]
        rounds = self.roundabouts[street]
        n = len(numbers)
        lows = [0] * n
        low = _BELOW_ALL
        for h in range(n):
            if rounds[h]:
                low = _BELOW_ALL
                continue
            lows[h] = low
            value = numbers[h]
            if value is not None:
                low = value
        result = []
        high = _ABOVE_ALL
        for h in range(n - 1, -1, -1):
            if rounds[h]:
                high = _ABOVE_ALL
                continue
            value = numbers[h]
            if value is None:
                if lows[h] + 1 < high:
                    result.append((h, lows[h], high))
            else:
                high = value
        result.reverse()
        self._bounds[street] = result
        return result

    def can_write(self, street: int, house: int, number: int) -> bool:
        """True when `number` may be written (not as bis) in that house."""
        for h, lo, hi in self.street_bounds(street):
            if h == house:
                return lo < number < hi
        return False

    def houses_for(self, number: int) -> list[tuple[int, int]]:
        """Every (street, house) where `number` can be written now."""
        found = []
        for street in range(len(self.numbers)):
            bounds = self._bounds[street]
            if bounds is None:
                bounds = self.street_bounds(street)
            for h, lo, hi in bounds:
                if lo < number < hi:
                    found.append((street, h))
        return found

    def accepts(self, number: int) -> bool:
        """True when `number` fits somewhere on the sheet."""
        return bool(self.houses_for(number))

    def write(self, street: int, house: int, number: int, bis: bool = False) -> None:
        """Write a house number (the caller has checked legality)."""
        self.numbers[street][house] = number
        self.is_bis[street][house] = bis
        self._filled += 1
        if bis:
            self.n_bis += 1
        self._changed(street)

    # ------------------------------------------------------------------ fences
    def fence_allowed(self, street: int, slot: int) -> bool:
        """A fence may go on an empty slot unless a bis pair or one plan's line spans it."""
        if self.fences[street][slot]:
            return False
        numbers = self.numbers[street]
        left, right = numbers[slot], numbers[slot + 1]
        if left is not None and left == right:
            return False
        use = self.plan_use[street]
        return not (use[slot] and use[slot] == use[slot + 1])

    def fence_options(self) -> list[tuple[int, int]]:
        return [
            (street, slot)
            for street, row in enumerate(self.fences)
            for slot in range(len(row))
            if self.fence_allowed(street, slot)
        ]

    def add_fence(self, street: int, slot: int) -> None:
        self.fences[street][slot] = True
        self._runs[street] = None
        self._unused = None
        self.street_cache[street] = None

    def mark_plan(self, street: int, house: int, deck: int) -> None:
        """Draw plan `deck`'s line over a house (the house now serves that plan)."""
        self.plan_use[street][house] = deck
        self._unused = None
        self.street_cache[street] = None

    # --------------------------------------------------------------------- bis
    def bis_options(self) -> list[tuple[int, int, int]]:
        """Every (street, house, number) a bis can write: an empty house next to a
        built one with no fence between, copying that neighbour's number."""
        if self.n_bis >= self.data.max_bis:
            return []
        options = []
        for street, numbers in enumerate(self.numbers):
            fences = self.fences[street]
            rounds = self.roundabouts[street]
            last = len(numbers) - 1
            for h, value in enumerate(numbers):
                if value is not None or rounds[h]:
                    continue
                if h > 0 and not fences[h - 1] and numbers[h - 1] is not None:
                    options.append((street, h, numbers[h - 1]))
                if h < last and not fences[h] and numbers[h + 1] is not None:
                    options.append((street, h, numbers[h + 1]))
        return options

    # -------------------------------------------------------------- roundabouts
    def build_roundabout(self, street: int, house: int) -> None:
        """Turn an empty house into a roundabout, fenced on both sides."""
        self.roundabouts[street][house] = True
        if house > 0:
            self.fences[street][house - 1] = True
        if house < len(self.numbers[street]) - 1:
            self.fences[street][house] = True
        self.n_roundabouts += 1
        self._filled += 1
        self._changed(street)

    def roundabout_options(self) -> list[tuple[int, int]]:
        return [
            (street, h)
            for street, numbers in enumerate(self.numbers)
            for h, value in enumerate(numbers)
            if value is None and not self.roundabouts[street][h]
        ]

    # ----------------------------------------------------------------- estates
    def runs(self, street: int) -> list[tuple[int, int, bool]]:
        """The street cut at its fences: (first_house, length, completed).

        A run is a completed estate when all its houses are built (no empty
        house, no roundabout) and its length is 1..6.
        """
        cached = self._runs[street]
        if cached is not None:
            return cached
        numbers = self.numbers[street]
        rounds = self.roundabouts[street]
        fences = self.fences[street]
        result = []
        start = 0
        built = True
        n = len(numbers)
        for h in range(n):
            if numbers[h] is None or rounds[h]:
                built = False
            if h == n - 1 or fences[h]:
                length = h - start + 1
                result.append((start, length, built and length <= MAX_ESTATE_SIZE))
                start = h + 1
                built = True
        self._runs[street] = result
        return result

    def completed_estates(self) -> list[Estate]:
        return [
            (street, first, length)
            for street in range(len(self.numbers))
            for first, length, done in self.runs(street)
            if done
        ]

    def unused_estates(self) -> list[Estate]:
        """Completed estates none of whose houses serve a plan yet."""
        if self._unused is None:
            use = self.plan_use
            self._unused = [
                (street, first, length)
                for street, first, length in self.completed_estates()
                if not any(use[street][first:first + length])
            ]
        return self._unused

    def estate_counts(self) -> list[int]:
        """Completed estates per size 1..6 (index 0 is size 1)."""
        counts = [0] * MAX_ESTATE_SIZE
        for _street, _first, size in self.completed_estates():
            counts[size - 1] += 1
        return counts

    # ------------------------------------------------------------------- misc
    def is_full(self) -> bool:
        """Every house built or a roundabout (an end condition)."""
        return self._filled == self.n_houses

    def n_built(self) -> int:
        """Houses holding a number (bis included, roundabouts not)."""
        return self._filled - self.n_roundabouts

    @property
    def n_pools(self) -> int:
        return sum(sum(row) for row in self.pools)

    def plans_completed(self) -> int:
        return sum(turn is not None for turn in self.plan_turns)

    def house_label(self, street: int, house: int) -> str | None:
        """The record's spelling of a house: "7", "7b", "R" or None."""
        if self.roundabouts[street][house]:
            return "R"
        value = self.numbers[street][house]
        if value is None:
            return None
        return f"{value}b" if self.is_bis[street][house] else str(value)

    def to_record(self) -> dict:
        """The `sheet` block of a game record (RECORDS.md §1), plus a `board`
        block on thematic boards."""
        record = {
            "houses": [
                [self.house_label(s, h) for h in range(len(row))]
                for s, row in enumerate(self.numbers)
            ],
            "fences": [[k for k, f in enumerate(row) if f] for row in self.fences],
            "parks": self.parks[:],
            "pools": [[h for h, built in enumerate(row) if built] for row in self.pools],
            "real_estate": self.real_estate[:],
            "temps": self.temps,
            "bis": self.n_bis,
            "refusals": self.refusals,
            "roundabouts": self.n_roundabouts,
            "plans": [
                {"deck": deck + 1, "turn": turn, "points": self.plan_points[deck]}
                for deck, turn in enumerate(self.plan_turns)
                if turn is not None
            ],
        }
        if self.board is not None:
            record["board"] = self.board.record(self)  # type: ignore[attr-defined]
        return record

    def __str__(self) -> str:
        return render_sheet(self)


def render_sheet(sheet: Sheet) -> str:
    """Text picture of a sheet: one line per street, `|` for fences, `*` marks a
    built pool, `~` a house under a plan line, then the tracks."""
    lines = []
    for street, numbers in enumerate(sheet.numbers):
        cells = []
        for h in range(len(numbers)):
            label = sheet.house_label(street, h) or "."
            if sheet.pools[street][h]:
                label += "*"
            if sheet.plan_use[street][h]:
                label = "~" + label
            cells.append(label.rjust(4))
            if h < len(numbers) - 1:
                cells.append("|" if sheet.fences[street][h] else " ")
        track = sheet.data.park_tracks[street]
        lines.append(f"{street}: |{''.join(cells)} |  parks {sheet.parks[street]}/{len(track) - 1}")
    re_cols = " ".join(f"{size}:{k}" for size, k in enumerate(sheet.real_estate, start=1))
    plans = " ".join(
        f"n{deck + 1}@{turn}={sheet.plan_points[deck]}"
        for deck, turn in enumerate(sheet.plan_turns)
        if turn is not None
    ) or "-"
    lines.append(
        f"pools {sheet.n_pools}  temps {sheet.temps}  bis {sheet.n_bis}  "
        f"refusals {sheet.refusals}  roundabouts {sheet.n_roundabouts}  "
        f"real estate [{re_cols}]  plans {plans}"
    )
    if sheet.board is not None:
        lines.extend(sheet.board.lines(sheet))  # type: ignore[attr-defined]
    return "\n".join(lines)
