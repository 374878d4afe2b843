"""Scoring every candidate afterstate of a decision with the learned tables.

A candidate is a play and one use of its offer's effect (or none). It
changes the street it writes on, sometimes a second street (a fence or a
bis elsewhere), and a few whole-sheet counters (a real-estate column, the
temp and bis counts). The street states the candidates need (the
*variants*: one per write, per write with an effect on its own street, per
effect use on another street) are listed first, as numpy arrays, and
extracted in one batch; a candidate is then a row of variant indices, one
per street, plus its counters, and its value the sum of its streets' values and its whole-sheet
features. The cost of a decision grows with the street states it needs, not
with the product of plays and effects.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..games.welcome_to.data import BIS, LANDSCAPER, POOL, REAL_ESTATE, SURVEYOR
from ..native import native_module
from ..games.welcome_to.effects import Effect, Play, apply_effect, apply_play, effect
from .features import (Layout, SheetContext, StreetRows, global_features, next_counts, phase_of, sheet_rows,
                       static_rows, street_features, take_rows, window_phase_of)

KINDS = (None, SURVEYOR, REAL_ESTATE, LANDSCAPER, POOL, BIS)
"""Effect kinds by code (0: no effect use)."""
_KIND_CODE = {kind: code for code, kind in enumerate(KINDS) if kind}
NO_USE, USE_FENCE, USE_ESTATE, USE_PARK, USE_POOL, USE_BIS = range(6)

# columns of a variant spec: the street and what changes on it (-1 / 0: nothing)
STREET, WRITE_HOUSE, WRITE_NUMBER, FENCE, PARK, POOL_HOUSE, BIS_HOUSE, BIS_NUMBER = range(8)


@dataclass
class Scored:
    """The candidates of a decision and their values. Candidate i writes
    `plays[play[i]]` (a refusal where -1) and uses the effect coded by
    `use[i]` with arguments `args[i]`."""

    plays: list[Play]
    play: np.ndarray
    use: np.ndarray
    args: np.ndarray
    values: np.ndarray
    street_features: np.ndarray   # (variants, F) feature indices of each distinct street state
    variant_of: np.ndarray        # (C, streets) each candidate's street states
    global_features: np.ndarray   # (C, G)

    def __len__(self) -> int:
        return len(self.values)

    def features(self, index: int) -> np.ndarray:
        """The active (non-null) feature indices of candidate `index`'s afterstate."""
        every = np.concatenate([self.street_features[self.variant_of[index]].ravel(),
                                self.global_features[index]])
        return every[every != 0]

    def candidate(self, index: int) -> tuple[Play | None, Effect | None]:
        """The play and the effect use of candidate `index`."""
        a, b, c = (int(x) for x in self.args[index])
        return candidate_of(self.plays, int(self.play[index]), int(self.use[index]), a, b, c)


def candidate_of(plays: list[Play], play: int, code: int, a: int, b: int, c: int
                 ) -> tuple[Play | None, Effect | None]:
    """The play (`plays[play]`, None for -1: the refusal) and the effect use
    coded by `code` with its arguments, as a candidate row holds them."""
    chosen = None if play < 0 else plays[play]
    if code == NO_USE:
        return chosen, None
    if code == USE_FENCE:
        return chosen, effect(SURVEYOR, a, b)
    if code == USE_ESTATE:
        return chosen, effect(REAL_ESTATE, None, a)
    if code == USE_PARK:
        return chosen, effect(LANDSCAPER, a)
    if code == USE_POOL:
        return chosen, effect(POOL, a, b)
    return chosen, effect(BIS, a, b, c)


class NativeValues:
    """A decision's values, its candidates left in the native Decider that
    computed them: a player that keeps one candidate reads only that one
    (`candidate`, `features`), and nothing else is copied. Valid until the
    Decider's next decision (checked)."""

    __slots__ = ("plays", "values", "_decider", "_decision")

    def __init__(self, plays: list[Play], values: np.ndarray, decider) -> None:
        self.plays, self.values, self._decider, self._decision = plays, values, decider, decider.decisions

    def __len__(self) -> int:
        return len(self.values)

    def _current(self):
        if self._decider.decisions != self._decision:
            raise RuntimeError("the Decider has made another decision since: these candidates are gone")
        return self._decider

    def candidate(self, index: int) -> tuple[Play | None, Effect | None]:
        """The play and the effect use of candidate `index`."""
        return candidate_of(self.plays, *self._current().candidate(index))

    def features(self, index: int) -> np.ndarray:
        """The active (non-null) feature indices of candidate `index`'s afterstate."""
        return self._current().active_features(index)


def context_of(view, refusals_added: int = 0, turn_ahead: int = 1) -> SheetContext:
    """The whole-sheet facts of a decision's afterstates (seen `turn_ahead`
    turns on). The effects to come are the next turn's (`next_effects`) for
    a decision's afterstates; for the sheet as it stands (`turn_ahead` 0),
    the afterstate of the previous turn, they are this turn's offers' (when
    the game shows the effects ahead at all)."""
    sheet = view.sheet
    others = [p for i, p in enumerate(view.public) if i != view.seat]
    if view.variant.solo or not others:
        opponent_temps, opponent_refusals = 5, 0
    else:
        opponent_temps = max(p.temps for p in others)
        opponent_refusals = max(p.refusals for p in others)
    return SheetContext(
        turn=view.turn + turn_ahead,
        refusals=min(sheet.refusals + refusals_added, sheet.data.max_refusals),
        roundabouts=sheet.n_roundabouts,
        plan_points=sum(sheet.plan_points),
        plans=view.plans,
        plan_done=tuple(t is not None for t in sheet.plan_turns),
        plan_high=tuple(t is None for t in view.plan_first_turn),
        opponent_temps=opponent_temps,
        opponent_refusals=opponent_refusals,
        data=sheet.data,
        next_counts=next_counts(_effects_ahead(view, turn_ahead)),
    )


def _effects_ahead(view, turn_ahead: int) -> tuple[str, ...] | None:
    """The effects of the turn after the afterstates `context_of` describes (None: hidden)."""
    if view.next_effects is None or turn_ahead:
        return view.next_effects
    return tuple(o.effect for o in view.offers)


class _Candidates:
    """Candidate rows under construction, one int matrix per block of
    candidates: variant index per street, the played play, the effect use
    and its three arguments, the real-estate size crossed (-1: none), temp
    and bis boxes added. Scalars fill a whole column of the block."""

    def __init__(self, n_streets: int) -> None:
        self.n_streets = n_streets
        self.blocks: list[np.ndarray] = []

    def add(self, variant_of, play, use, args, estate, temp, bis) -> None:
        count = len(play)
        if not count:
            return
        s = self.n_streets
        block = np.empty((count, s + 8), dtype=np.int64)
        block[:, :s] = variant_of
        block[:, s] = play
        block[:, s + 1] = use
        block[:, s + 2:s + 5] = args
        block[:, s + 5] = estate
        block[:, s + 6] = temp
        block[:, s + 7] = bis
        self.blocks.append(block)

    def arrays(self) -> tuple[np.ndarray, ...]:
        table = np.concatenate(self.blocks)
        s = self.n_streets
        return (table[:, :s], table[:, s], table[:, s + 1], table[:, s + 2:s + 5], table[:, s + 5],
                table[:, s + 6], table[:, s + 7])


class Evaluator:
    """Values of afterstates under one weight vector."""

    def __init__(self, weights: np.ndarray, layout: Layout) -> None:
        self.weights = weights
        self.layout = layout
        self._decider = None  # the native module's Decider for `layout`, made on first use

    # ------------------------------------------------------------ one state
    def state(self, view) -> tuple[np.ndarray, float]:
        """Active features and value of the player's sheet as it stands (the
        afterstate of their previous turn, seen at this turn's phase)."""
        sheet = view.sheet
        rows = sheet_rows(sheet, self.layout.width)
        context = context_of(view, 0, 0)
        features, summary = street_features(rows, self.layout, context.turn)
        global_idx, exact = self._global(sheet, context, summary, np.arange(len(sheet.numbers))[None, :],
                                         np.array([-1]), np.zeros(1, np.int64), np.zeros(1, np.int64))
        every = np.concatenate([features.ravel(), global_idx[0]])
        every = every[every != 0]
        value = float(self.weights[every].sum() + summary.park_points.sum() + exact[0])
        if sheet.board is not None:
            value += sheet.board.points(sheet)
        return every, value

    # ------------------------------------------------------------ decisions
    def decision(self, view, plays: list[Play | None]) -> Scored:
        """Every (play, effect use) candidate of `plays` with its value; a
        permit refusal (None in `plays`) is one more candidate. Computed by
        the native module when it is built (the same candidates, features and
        values, bit for bit), else by `reference_decision`, which also takes
        weights the native code does not read (not contiguous float64)."""
        if _NATIVE is None or not self._native_weights():
            return self.reference_decision(view, plays)
        return self.native_decision(view, plays)

    def values(self, view, plays: list[Play | None]) -> Scored | NativeValues:
        """`decision` for a player that keeps one candidate: the values, with
        `candidate(i)` and `features(i)`, the same as `decision`'s. Natively
        (without a thematic board) the candidates stay in the Decider until
        its next decision, and only the values are copied."""
        if _NATIVE is None or view.sheet.board is not None or not self._native_weights():
            return self.decision(view, plays)
        real, values = self._native_call("values_only", view, plays)
        return NativeValues(real, values, self._decider)

    def best_value(self, view, plays: list[Play | None]) -> float:
        """The largest value of `decision(view, plays)`: what a search asks of
        the positions it looks at (natively without making the candidate
        arrays, unless a thematic board adds its points)."""
        if _NATIVE is None or view.sheet.board is not None or not self._native_weights():
            return float(self.decision(view, plays).values.max())
        return self._native_call("best_value", view, plays)[1]

    def native_decision(self, view, plays: list[Play | None]) -> Scored:
        """`reference_decision` in typed code (welcometo_sim/native/decision.pyx);
        requires the native module."""
        real, arrays = self._native_call("decide", view, plays)
        sheet = view.sheet
        play, use, args, values, features, variant_of, global_idx = arrays
        scored = Scored(real, play, use, args, values, features, variant_of, global_idx)
        if sheet.board is not None:
            scored.values = values + self._board_points(sheet, scored)
        return scored

    def _native_weights(self) -> bool:
        weights = self.weights
        return weights.dtype == np.float64 and weights.flags.c_contiguous

    def _native_call(self, method: str, view, plays: list[Play | None]) -> tuple[list[Play], object]:
        """(the real plays, what the native Decider's `method` answers for this decision)."""
        real = [p for p in plays if p is not None]
        refusal = len(real) < len(plays)
        context = context_of(view)
        decider = self._decider
        if decider is None or decider.layout is not self.layout:
            decider = self._decider = _NATIVE.Decider(self.layout)
        return real, getattr(decider, method)(
            self.weights, view.sheet, real, [_KIND_CODE.get(o.effect, NO_USE) for o in view.offers],
            refusal, context, phase_of(context.turn), window_phase_of(context.turn))

    def reference_decision(self, view, plays: list[Play | None]) -> Scored:
        """The decision in Python and numpy: the reference the native module
        must match."""
        sheet = view.sheet
        data = sheet.data
        real = [p for p in plays if p is not None]
        n_streets = len(sheet.numbers)
        base = sheet_rows(sheet, self.layout.width)
        specs = [np.column_stack([np.arange(n_streets), np.full((n_streets, 7), -1)])]
        specs[0][:, PARK] = 0
        count = n_streets
        table = _Candidates(n_streets)

        def new_variants(block: np.ndarray) -> np.ndarray:
            nonlocal count
            specs.append(block)
            ids = np.arange(count, count + len(block))
            count += len(block)
            return ids

        if real:
            fields = np.array([p[:5] for p in real], dtype=np.int64)
            offer, street, house, number, temp = fields.T
            kinds = np.array([_KIND_CODE.get(o.effect, NO_USE) for o in view.offers], dtype=np.int64)
            kind = np.where(temp == 1, NO_USE, kinds[offer])
            written = new_variants(_spec(street, house, number))
            everyone = np.arange(len(real))
            play_rows = np.tile(np.arange(n_streets), (len(real), 1))
            play_rows[everyone, street] = written
            temp_add = np.where(temp == 1, int(sheet.temps < data.temp_boxes), 0)
            table.add(play_rows, everyone, NO_USE, (0, 0, 0), -1, temp_add, 0)
            self._fences(sheet, kind, street, house, number, play_rows, table, new_variants)
            self._estates(sheet, kind, play_rows, table)
            self._parks_and_pools(sheet, kind, street, house, number, play_rows, table, new_variants)
            self._bis(sheet, real, kind, play_rows, table, new_variants)
        refusal = len(real) < len(plays)
        if refusal:
            table.add(np.arange(n_streets)[None, :], np.array([-1]), NO_USE, (0, 0, 0), -1, 0, 0)

        spec = np.concatenate(specs)
        rows = _apply(take_rows(base, spec[:, STREET]), spec)
        context = context_of(view)
        features, summary = street_features(rows, self.layout, context.turn)
        street_value = self.weights[features].sum(axis=1) + summary.park_points
        variant_of, play, use, args, estate, temps, bis = table.arrays()
        global_idx, exact = self._global(sheet, context, summary, variant_of, estate, temps, bis)
        values = street_value[variant_of].sum(axis=1) + self.weights[global_idx].sum(axis=1) + exact
        if refusal:
            refused_context = context_of(view, 1)
            last = slice(len(values) - 1, None)
            g_idx, g_exact = self._global(sheet, refused_context, summary, variant_of[last], estate[last],
                                          temps[last], bis[last])
            values[-1] = street_value[variant_of[-1]].sum() + self.weights[g_idx[0]].sum() + g_exact[0]
            global_idx[-1] = g_idx[0]
        scored = Scored(real, play, use, args, values, features, variant_of, global_idx)
        if sheet.board is not None:
            scored.values = values + self._board_points(sheet, scored)
        return scored

    # ----------------------------------------------------- candidate blocks
    @staticmethod
    def _fences(sheet, kind, street, house, number, play_rows, table, new_variants):
        """Surveyor: every fence slot, with every play of a surveyor offer."""
        players = np.nonzero(kind == USE_FENCE)[0]
        slots = [(s, k) for s in range(len(sheet.fences)) for k in _bits(sheet.fence_mask(s))]
        if not len(players) or not slots:
            return
        fence_street, fence_slot = np.array(slots, dtype=np.int64).T
        alone = new_variants(_spec(fence_street, -1, -1, fence=fence_slot))
        # same-street pairs need the write and the fence together
        pairs_play = np.repeat(players, len(slots))
        pairs_fence = np.tile(np.arange(len(slots)), len(players))
        same = street[pairs_play] == fence_street[pairs_fence]
        p, f = pairs_play[same], pairs_fence[same]
        merged = new_variants(_spec(street[p], house[p], number[p], fence=fence_slot[f]))
        chosen = alone[pairs_fence]
        chosen[same] = merged
        rows = play_rows[pairs_play]
        rows[np.arange(len(pairs_play)), fence_street[pairs_fence]] = chosen
        table.add(rows, pairs_play, USE_FENCE, np.column_stack([fence_street[pairs_fence],
                                                               fence_slot[pairs_fence],
                                                               np.zeros(len(pairs_play), np.int64)]),
                  -1, 0, 0)

    @staticmethod
    def _estates(sheet, kind, play_rows, table):
        """Real estate: every column with a box left, with every play of a real-estate offer."""
        players = np.nonzero(kind == USE_ESTATE)[0]
        tracks = sheet.data.real_estate_tracks
        sizes = [size for size, crossed in enumerate(sheet.real_estate) if crossed < len(tracks[size]) - 1]
        if not len(players) or not sizes:
            return
        pairs_play = np.repeat(players, len(sizes))
        pairs_size = np.tile(np.array(sizes, dtype=np.int64), len(players))
        args = np.column_stack([pairs_size + 1, np.zeros((len(pairs_play), 2), np.int64)])
        table.add(play_rows[pairs_play], pairs_play, USE_ESTATE, args, pairs_size, 0, 0)

    @staticmethod
    def _parks_and_pools(sheet, kind, street, house, number, play_rows, table, new_variants):
        """Landscaper (a park on the written street) and pool (the written pool house)."""
        data = sheet.data
        can_park = np.array([sheet.parks[s] < len(data.park_tracks[s]) - 1 for s in range(len(sheet.parks))])
        width = max(data.street_houses)
        pool_open = static_rows(data, width)[0] & ~np.array([row + [False] * (width - len(row))
                                                              for row in sheet.pools])
        for code, allowed in ((USE_PARK, can_park[street]), (USE_POOL, pool_open[street, house])):
            players = np.nonzero((kind == code) & allowed)[0]
            if not len(players):
                continue
            here, at = street[players], house[players]
            if code == USE_PARK:
                block = _spec(here, at, number[players], park=1)
                args = np.column_stack([here, np.zeros((len(players), 2), np.int64)])
            else:
                block = _spec(here, at, number[players], pool=at)
                args = np.column_stack([here, at, np.zeros(len(players), np.int64)])
            rows = play_rows[players]
            rows[np.arange(len(players)), here] = new_variants(block)
            table.add(rows, players, code, args, -1, 0, 0)

    @staticmethod
    def _bis(sheet, real, kind, play_rows, table, new_variants):
        """Bis: every copy the sheet allows once the play is written."""
        players = np.nonzero(kind == USE_BIS)[0]
        if not len(players):
            return
        specs: dict[tuple, int] = {}
        listed: list[tuple] = []
        pairs: list[tuple[int, int, int, int, int]] = []
        for p in players.tolist():
            play = real[p]
            for bis_street, bis_house, bis_number in sheet.bis_options_after_write(play.street, play.house,
                                                                                   play.number):
                if bis_street == play.street:
                    key = (bis_street, play.house, play.number, bis_house, bis_number)
                else:
                    key = (bis_street, -1, -1, bis_house, bis_number)
                found = specs.get(key)
                if found is None:
                    found = specs[key] = len(listed)
                    listed.append(key)
                pairs.append((p, found, bis_street, bis_house, bis_number))
        if not pairs:
            return
        keys = np.array(listed, dtype=np.int64)
        ids = new_variants(_spec(keys[:, 0], keys[:, 1], keys[:, 2], bis_house=keys[:, 3],
                                 bis_number=keys[:, 4]))
        chosen = np.array(pairs, dtype=np.int64)
        rows = play_rows[chosen[:, 0]]
        rows[np.arange(len(chosen)), chosen[:, 2]] = ids[chosen[:, 1]]
        table.add(rows, chosen[:, 0], USE_BIS, chosen[:, 2:5], -1, 0, 1)

    # ------------------------------------------------------------ summing up
    def _global(self, sheet, context, summary, variant_of, estate, temps, bis):
        real_estate = np.tile(np.array(sheet.real_estate, dtype=np.int64), (len(variant_of), 1))
        chosen = estate >= 0
        real_estate[np.nonzero(chosen)[0], estate[chosen]] += 1
        return global_features(self.layout, context, summary.counts[variant_of].sum(axis=1), real_estate,
                               sheet.temps + temps, sheet.n_bis + bis)

    @staticmethod
    def _board_points(sheet, scored: Scored) -> np.ndarray:
        """The thematic board's points after each candidate (exact): the write
        moves trucks and collects eggs; a bis changes the lights."""
        now = sheet.board.points(sheet)
        by_play = np.full(len(scored.plays) + 1, float(now))
        for i, one in enumerate(scored.plays):
            after = sheet.copy()
            apply_play(after, one)
            by_play[i] = after.board.points(after)
        points = by_play[scored.play]
        for i in np.flatnonzero(scored.use == USE_BIS):
            play, use = scored.candidate(int(i))
            after = sheet.copy()
            apply_play(after, play)
            apply_effect(after, use)
            points[i] = after.board.points(after)
        return points


_NATIVE = native_module("decision")
"""The native decision module, None when it is not built or pure Python is asked for."""


def _bits(mask: int) -> list[int]:
    return [k for k in range(mask.bit_length()) if mask >> k & 1]


def _spec(street, house, number, fence=-1, park=0, pool=-1, bis_house=-1, bis_number=-1) -> np.ndarray:
    """Variant spec rows (see the column names above) from columns and scalars."""
    count = len(street)
    spec = np.empty((count, 8), dtype=np.int64)
    for column, value in enumerate((street, house, number, fence, park, pool, bis_house, bis_number)):
        spec[:, column] = value
    return spec


def _apply(rows: StreetRows, spec: np.ndarray) -> StreetRows:
    """The street rows with each row's variant spec applied (row i gets spec[i])."""
    at = np.arange(len(spec))
    write = spec[:, WRITE_HOUSE] >= 0
    rows.numbers[at[write], spec[write, WRITE_HOUSE]] = spec[write, WRITE_NUMBER]
    fence = spec[:, FENCE] >= 0
    rows.fences[at[fence], spec[fence, FENCE]] = True
    rows.parks = rows.parks + spec[:, PARK]
    pool = spec[:, POOL_HOUSE] >= 0
    rows.pools[at[pool], spec[pool, POOL_HOUSE]] = True
    bis = spec[:, BIS_HOUSE] >= 0
    rows.numbers[at[bis], spec[bis, BIS_HOUSE]] = spec[bis, BIS_NUMBER]
    rows.bis[at[bis], spec[bis, BIS_HOUSE]] = True
    return rows
