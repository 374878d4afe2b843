"""One player's sheet: houses, fences, tracks, and the legality of writing on it.

A sheet is plain lists of ints and bools so that copying it (for search
strategies) and checking placements (the per-move hot path) stay cheap.

The legal placements are kept up to date on every write: per street and per
number, a bitmask of the houses where that number may be written (bit h =
house h). Writing a number only narrows the masks of the houses of its own gap
(the empty houses between the same two written numbers), so a write costs a
few bit operations instead of a scan of the sheet; a roundabout, which widens
gaps, recomputes its street. Invariant: each street's masks equal
:func:`masks_from_bounds` of that street's :meth:`Sheet.street_bounds`.

Other derived facts (number bounds, fenced runs, free fence slots, bis spots,
estates) are cached per street: a street's cache is either None or equal to a
fresh computation from that street's lists. Every method that changes a street
drops exactly the caches that depend on what it changed; the next question
recomputes them for that street only.

The sheet's lists must therefore be changed only through the methods.
"""

from __future__ import annotations

from .data import DEFAULT_DATA, MAX_ESTATE_SIZE, MAX_NUMBER, MIN_NUMBER, GameData

Estate = tuple[int, int, int]
"""A completed estate as (street, first_house, size)."""

_BELOW_ALL = MIN_NUMBER - 1
_ABOVE_ALL = MAX_NUMBER + 1
_NUMBERS = range(MIN_NUMBER, MAX_NUMBER + 1)
"""Every number a house can hold; they start at 0, so a number is also its index."""


def masks_from_bounds(bounds: list[tuple[int, int, int]]) -> tuple[int, ...]:
    """Per number 0..17, the bitmask of the houses whose (house, lo, hi) bounds
    admit it (lo < n < hi): the legal placements of one street."""
    masks = [0] * len(_NUMBERS)
    for house, lo, hi in bounds:
        bit = 1 << house
        for number in range(lo + 1, hi):
            masks[number] |= bit
    return tuple(masks)


def houses_of(mask: int) -> tuple[int, ...]:
    """The house indices of a bitmask, left to right."""
    houses = _HOUSES_OF.get(mask)
    if houses is None:
        houses = _HOUSES_OF[mask] = tuple(h for h in range(mask.bit_length()) if mask >> h & 1)
    return houses


_HOUSES_OF: dict[int, tuple[int, ...]] = {}
"""Memo of :func:`houses_of` (at most 2**houses-per-street entries)."""


def _run_holding(runs: list[tuple[int, int, bool]], house: int) -> tuple[int, tuple[int, int, bool]]:
    """The index and the (first_house, length, completed) of the run holding `house`."""
    for index, run in enumerate(runs):
        if house < run[0] + run[1]:
            return index, run
    raise ValueError(f"house {house} is beyond the street's runs")


def _is_estate(numbers: list[int | None], first: int, length: int) -> bool:
    """Whether the run of `length` houses from `first` is a completed estate:
    1..6 houses, all built (a roundabout holds no number, so None marks both)."""
    return length <= MAX_ESTATE_SIZE and None not in numbers[first:first + length]


def _copy_rows(rows: list[list]) -> list[list]:
    """A copy of each street's list (map over list.copy: no Python loop)."""
    return list(map(list.copy, rows))


_EMPTY_ROWS: dict[tuple[int, ...], dict[str, list]] = {}


def _empty_rows(sizes: tuple[int, ...]) -> dict[str, list]:
    """The street lists of an empty sheet with streets of these sizes, made
    once; a new sheet copies them (fits are immutable and shared)."""
    empty = _EMPTY_ROWS.get(sizes)
    if empty is None:
        empty = _EMPTY_ROWS[sizes] = {
            "numbers": [[None] * n for n in sizes],
            "flags": [[False] * n for n in sizes],
            "fences": [[False] * (n - 1) for n in sizes],
            "zeros": [[0] * n for n in sizes],
            "fits": [((1 << n) - 1,) * len(_NUMBERS) for n in sizes],
        }
    return empty


class Sheet:
    """The state of one player's sheet.

    Attributes are public for reading (strategies, scoring, rendering); change
    them only through the methods, which keep the caches right.
    """

    __slots__ = (
        "data", "numbers", "is_bis", "roundabouts", "fences", "plan_use", "parks",
        "pools", "real_estate", "temps", "n_bis", "refusals", "n_roundabouts",
        "plan_turns", "plan_points", "board", "n_houses", "_filled", "_bounds", "fits", "_runs",
        "_fence_masks", "_bis_spots", "_unused", "street_cache",
    )

    def __init__(self, data: GameData = DEFAULT_DATA, board: object = None) -> None:
        self.data = data
        self.board = board  # thematic board state (boards.py); None on the base board
        sizes = data.street_houses
        empty = _empty_rows(sizes)
        rows = _copy_rows
        self.numbers: list[list[int | None]] = rows(empty["numbers"])
        self.is_bis: list[list[bool]] = rows(empty["flags"])
        self.roundabouts: list[list[bool]] = rows(empty["flags"])
        self.fences: list[list[bool]] = rows(empty["fences"])
        self.plan_use: list[list[int]] = rows(empty["zeros"])
        self.parks: list[int] = [0] * len(sizes)
        self.pools: list[list[bool]] = rows(empty["flags"])
        self.real_estate: list[int] = [0] * MAX_ESTATE_SIZE
        self.temps = 0
        self.n_bis = 0
        self.refusals = 0
        self.n_roundabouts = 0
        self.plan_turns: list[int | None] = [None, None, None]
        self.plan_points: list[int] = [0, 0, 0]
        self._bounds: list[list[tuple[int, int, int]] | None] = [None] * len(sizes)
        # Per street, per number: bitmask of the houses it fits (kept exact on
        # every write; read it, never change it).
        self.fits: list[tuple[int, ...]] = empty["fits"][:]
        self._runs: list[list[tuple[int, int, bool]] | None] = [None] * len(sizes)
        self._fence_masks: list[int | None] = [None] * len(sizes)
        self._bis_spots: list[list[tuple[int, int, int]] | None] = [None] * len(sizes)
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
        rows = _copy_rows
        other.numbers = rows(self.numbers)
        other.is_bis = rows(self.is_bis)
        other.roundabouts = rows(self.roundabouts)
        other.fences = rows(self.fences)
        other.plan_use = rows(self.plan_use)
        other.parks = self.parks[:]
        other.pools = rows(self.pools)
        other.real_estate = self.real_estate[:]
        other.temps = self.temps
        other.n_bis = self.n_bis
        other.refusals = self.refusals
        other.n_roundabouts = self.n_roundabouts
        other.plan_turns = self.plan_turns[:]
        other.plan_points = self.plan_points[:]
        other.board = None if self.board is None else self.board.copy()  # type: ignore[attr-defined]
        other._bounds = self._bounds[:]
        other.fits = self.fits[:]
        other._runs = self._runs[:]
        other._fence_masks = self._fence_masks[:]
        other._bis_spots = self._bis_spots[:]
        other._unused = self._unused
        other.n_houses = self.n_houses
        other._filled = self._filled
        other.street_cache = self.street_cache[:]
        return other

    def _changed(self, street: int) -> None:
        """A roundabout was built on `street`: drop every cache of the street
        (the fit masks are kept up to date by the caller)."""
        self._bounds[street] = None
        self._runs[street] = None
        self._fence_masks[street] = None
        self._bis_spots[street] = None
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
        return number in _NUMBERS and bool(self.fits[street][number] >> house & 1)

    def houses_for(self, number: int) -> list[tuple[int, int]]:
        """Every (street, house) where `number` can be written now."""
        if number not in _NUMBERS:
            return []
        return [
            (street, house)
            for street, masks in enumerate(self.fits)
            for house in houses_of(masks[number])
        ]

    def accepts(self, number: int) -> bool:
        """True when `number` fits somewhere on the sheet."""
        return number in _NUMBERS and any(masks[number] for masks in self.fits)

    def write(self, street: int, house: int, number: int, bis: bool = False) -> None:
        """Write a house number (the caller has checked legality)."""
        self.numbers[street][house] = number
        self.is_bis[street][house] = bis
        self._filled += 1
        if bis:
            self.n_bis += 1
        self._bounds[street] = None
        self._fence_masks[street] = None
        self._bis_spots[street] = None
        self.street_cache[street] = None
        self._narrow_fits(street, house, number)
        self._complete_run(street, house)

    def _narrow_fits(self, street: int, house: int, number: int) -> None:
        """Update the fit masks after `number` was written in the empty `house`.

        The house lies in a gap: the empty houses first..last between the
        written numbers lo and hi (or a street end or roundabout), all of which
        admit exactly the numbers lo < n < hi. Afterwards the house admits
        nothing, the houses left of it admit only n < number and those right of
        it only n > number; masks of numbers outside lo < n < hi never held
        these houses, and the other gaps do not change.
        """
        numbers = self.numbers[street]
        rounds = self.roundabouts[street]
        first = house
        while first and numbers[first - 1] is None and not rounds[first - 1]:
            first -= 1
        last, end = house, len(numbers) - 1
        while last < end and numbers[last + 1] is None and not rounds[last + 1]:
            last += 1
        lo = _BELOW_ALL if first == 0 or rounds[first - 1] else numbers[first - 1]
        hi = _ABOVE_ALL if last == end or rounds[last + 1] else numbers[last + 1]
        if not lo <= number <= hi:  # out of order (hand-built sheets only): gaps widen
            self.fits[street] = masks_from_bounds(self.street_bounds(street))
            return
        bit = 1 << house
        left = bit - (1 << first)                # houses first .. house-1
        right = (1 << (last + 1)) - (bit << 1)   # houses house+1 .. last
        masks = list(self.fits[street])
        lower, higher = ~(bit | right), ~(left | bit)
        for n in range(lo + 1, min(number, hi)):
            masks[n] &= lower
        for n in range(max(number + 1, lo + 1), hi):
            masks[n] &= higher
        if lo < number < hi:
            masks[number] &= lower & higher
        self.fits[street] = tuple(masks)

    def _complete_run(self, street: int, house: int) -> None:
        """Update the runs and the unused estates after a write in `house`.

        A write moves no fence, so the runs keep their bounds; it can only
        complete the run holding `house`, which then becomes a new unused
        estate (unless a plan line already covers it). When nothing is cached
        there is nothing to update (an unused-estates list is only ever cached
        together with the runs of every street).
        """
        runs = self._runs[street]
        if runs is None:
            self._unused = None
            return
        index, (first, length, _done) = _run_holding(runs, house)
        if not _is_estate(self.numbers[street], first, length):
            return
        runs = runs[:]  # copies of the sheet share the cached lists
        runs[index] = (first, length, True)
        self._runs[street] = runs
        if self._unused is not None and not any(self.plan_use[street][first:first + length]):
            self._unused = sorted([*self._unused, (street, first, length)])

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

    def fence_mask(self, street: int) -> int:
        """Bitmask of the slots of one street where a fence may go now (bit k =
        slot k): the slots :meth:`fence_allowed` accepts."""
        cached = self._fence_masks[street]
        if cached is not None:
            return cached
        numbers = self.numbers[street]
        use = self.plan_use[street]
        mask = 0
        for slot, fenced in enumerate(self.fences[street]):
            if fenced:
                continue
            left = numbers[slot]
            if left is not None and left == numbers[slot + 1]:
                continue  # a bis pair
            line = use[slot]
            if line and line == use[slot + 1]:
                continue  # one plan's line
            mask |= 1 << slot
        self._fence_masks[street] = mask
        return mask

    def fence_options(self) -> list[tuple[int, int]]:
        """Every (street, slot) where a fence may go now, street by street."""
        return [
            (street, slot)
            for street in range(len(self.fences))
            for slot in houses_of(self.fence_mask(street))
        ]

    def add_fence(self, street: int, slot: int) -> None:
        self.fences[street][slot] = True
        self._fence_masks[street] = None
        self._bis_spots[street] = None
        self.street_cache[street] = None
        self._split_run(street, slot)

    def _split_run(self, street: int, slot: int) -> None:
        """Update the runs and the unused estates after a fence on `slot`.

        The fence cuts the run holding houses slot and slot + 1 in two; each
        part is a completed estate when it is fully built and 1..6 houses long.
        The old run leaves the unused estates, the completed parts without a
        plan line join them. Nothing cached: nothing to update (as in
        :meth:`_complete_run`)."""
        runs = self._runs[street]
        if runs is None:
            self._unused = None
            return
        index, (first, length, done) = _run_holding(runs, slot)
        numbers = self.numbers[street]
        left, right = slot + 1 - first, first + length - slot - 1
        parts = [(first, left, _is_estate(numbers, first, left)),
                 (slot + 1, right, _is_estate(numbers, slot + 1, right))]
        self._runs[street] = runs[:index] + parts + runs[index + 1:]  # copies share the cached lists
        unused = self._unused
        if unused is None:
            return
        use = self.plan_use[street]
        if done:
            unused = [estate for estate in unused if estate != (street, first, length)]
        added = [(street, start, size) for start, size, complete in parts
                 if complete and not any(use[start:start + size])]
        self._unused = sorted(unused + added) if added else unused

    def mark_plan(self, street: int, house: int, deck: int) -> None:
        """Draw plan `deck`'s line over a house (the house now serves that plan)."""
        self.plan_use[street][house] = deck
        self._fence_masks[street] = None
        self._unused = None
        self.street_cache[street] = None

    # --------------------------------------------------------------------- bis
    def street_bis_options(self, street: int) -> list[tuple[int, int, int]]:
        """The bis spots of one street, ignoring the bis track (see :meth:`bis_options`)."""
        cached = self._bis_spots[street]
        if cached is not None:
            return cached
        options = self._bis_spots[street] = self._spots(street, self.numbers[street])
        return options

    def _spots(self, street: int, numbers: list[int | None]) -> list[tuple[int, int, int]]:
        """The bis spots of one street if it held `numbers`, house by house, the
        copy of the left neighbour first."""
        fences = self.fences[street]
        rounds = self.roundabouts[street]
        last = len(numbers) - 1
        options = []
        for h, value in enumerate(numbers):
            if value is not None or rounds[h]:
                continue
            if h > 0 and not fences[h - 1] and numbers[h - 1] is not None:
                options.append((street, h, numbers[h - 1]))
            if h < last and not fences[h] and numbers[h + 1] is not None:
                options.append((street, h, numbers[h + 1]))
        return options

    def bis_options(self) -> list[tuple[int, int, int]]:
        """Every (street, house, number) a bis can write: an empty house next to a
        built one with no fence between, copying that neighbour's number."""
        if self.n_bis >= self.data.max_bis:
            return []
        options: list[tuple[int, int, int]] = []
        for street in range(len(self.numbers)):
            options += self.street_bis_options(street)
        return options

    def bis_options_after_write(self, street: int, house: int, number: int) -> list[tuple[int, int, int]]:
        """:meth:`bis_options` once `number` is written (not as bis) in the empty
        `house`, without copying the sheet: only that street's spots change."""
        if self.n_bis >= self.data.max_bis:
            return []
        row = self.numbers[street][:]
        row[house] = number
        options: list[tuple[int, int, int]] = []
        for other in range(len(self.numbers)):
            options += self._spots(street, row) if other == street else self.street_bis_options(other)
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
        self.fits[street] = masks_from_bounds(self.street_bounds(street))  # its gaps widen: recompute

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
        numbers = self.numbers[street]  # a roundabout holds no number, so None marks both
        result = []
        start = 0
        for end in [slot for slot, fenced in enumerate(self.fences[street]) if fenced] + [len(numbers) - 1]:
            length = end + 1 - start
            result.append((start, length, _is_estate(numbers, start, length)))
            start = end + 1
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
        """Completed estates none of whose houses serve a plan yet.

        Read-only: the list is never changed in place, every change of the
        unused estates makes a new list (the game skips its plan checks while
        the list object stays the same)."""
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
        return sum(map(sum, self.pools))

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
        f"real estate [{re_cols}]"
    )
    lines.append(f"plans {plans}")  # a line of its own: three completed plans would not fit 100 columns above
    if sheet.board is not None:
        lines.extend(sheet.board.lines(sheet))  # type: ignore[attr-defined]
    return "\n".join(lines)
