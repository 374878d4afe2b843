"""The move evaluator: a sheet's :class:`~.terms.Terms` after one
hypothetical write, fence or effect, and the weighted scores of many moves at
once, worked out from the sheet's sums and the touched street's facts without
copying the sheet (the search strategies' inner loop)."""

from __future__ import annotations

from operator import add, getitem, mul
from typing import Iterable, Sequence

from ..data import BIS, LANDSCAPER, MAX_ESTATE_SIZE, POOL, REAL_ESTATE, SURVEYOR, PlanSpec
from ..sheet import Sheet
from .fences import NO_RUN, RUN_FENCE_CHANGES, RUN_FENCE_LIMIT, FenceChange, count_run, run_fence_changes
from .plan_progress import plan_progress_from, progress_memo
from .streets import StreetFacts, deck_windows, gap_value, street_facts, street_gaps
from .terms import Terms


class MoveEvaluator:
    """The evaluation terms of a sheet after one hypothetical move, without
    copying the sheet: a write or a bis changes one run and one gap of one
    street, a fence splits one run, the other effects change counters; each
    move is scored as a change to the sheet's current sums.

    Build it on the sheet before the move; `after_write`, `after_fence`,
    `after_real_estate`, `after_landscaper` and `after_pool` return the
    :class:`Terms` that :func:`sheet_terms` would give after that move (the
    same formulas; sums may differ in the last bits of the float). Boards are
    not modelled: use :func:`sheet_terms` on a copy there.
    """

    def __init__(self, sheet: Sheet, plans: Sequence[PlanSpec],
                 first_turn: Sequence[int | None] = (None, None, None), temp_value: float = 1.0,
                 size_bonus: Sequence[float] | None = None) -> None:
        self._progress = progress_memo(plans, sheet.plan_turns, first_turn)
        self._setup(sheet, plans, first_turn, temp_value, size_bonus)

    def _setup(self, sheet: Sheet, plans: Sequence[PlanSpec], first_turn: Sequence[int | None],
               temp_value: float, size_bonus: Sequence[float] | None) -> None:
        self.sheet = sheet
        self.rows = sheet.numbers  # the numbers it judges (see `after_write_evaluator`)
        self.plans = plans
        self.first_turn = first_turn
        self.temp_value = temp_value
        self.size_bonus = size_bonus
        data = sheet.data
        self.values = list(map(getitem, data.real_estate_tracks, sheet.real_estate))
        self._values_key = tuple(self.values)
        self.worth = self.values if size_bonus is None else [
            v + b for v, b in zip(self.values, size_bonus)]
        self.prefix, self.windows = deck_windows(sheet)
        n_pools, n_bis, temps = sheet.n_pools, sheet.n_bis, sheet.temps
        self.other_points = (
            sum(sheet.plan_points) + sum(map(getitem, data.park_tracks, sheet.parks))
            + data.pool_track[n_pools] - data.bis_track[n_bis]
            - data.roundabout_track[sheet.n_roundabouts] - data.refusal_track[sheet.refusals]
            + temp_value * temps
        )
        self.temp_gain = temp_value * (temps < data.temp_boxes)
        self.bis_cost = data.bis_track[min(n_bis + 1, data.max_bis)] - data.bis_track[n_bis]
        self.pool_gain = data.pool_track[min(n_pools + 1, len(data.pool_track) - 1)] - data.pool_track[n_pools]
        self._sum_streets([street_facts(sheet, s) for s in range(len(sheet.numbers))])
        # (evaluator it derives from, street, first house and length of the run
        # written), for evaluators made by `after_write_evaluator`
        self._written: tuple[MoveEvaluator, int, int, int] | None = None
        # per street, filled on first use: the change of a write in each house (`_write_change`)
        self._writes: list[list[tuple[float, float, float, float, float] | None] | None] = [
            None] * len(sheet.numbers)

    def _sum_streets(self, facts: list[StreetFacts]) -> None:
        """The sheet-wide sums of the streets' features, street by street."""
        self._facts = facts
        features = [f.features for f in facts]
        size = MAX_ESTATE_SIZE
        # Every per-size count of every street in one vector, summed over the
        # streets element by element: the same additions, in the same order,
        # as sum() per field (0 + x is x for these non-negative numbers).
        vectors = [f.counts for f in facts]
        totals = vectors[0]
        for vector in vectors[1:]:
            totals = list(map(add, totals, vector))
        self.completed = totals[:size]
        self.unused = totals[size:2 * size]
        self.partial = totals[2 * size:3 * size]
        self.estates = sum(map(mul, self.completed, self.values))
        self.potential = sum(map(mul, self.partial, self.values))
        self.open = totals[3 * size:4 * size]
        self.share = totals[4 * size:]
        self.open_value = sum(map(mul, self.open, self.worth))
        self.share_value = sum(map(mul, self.share, self.worth))
        self.flex = sum([f.flexibility for f in features])
        self.progress = self._progress_after({})

    def after_write_evaluator(self, street: int, house: int, number: int) -> "MoveEvaluator":
        """An evaluator of the sheet after `number` is written in the empty
        `house` (no temp, no bis), without copying the sheet: the written house
        counts as built in everything it works out later, and its sums are this
        evaluator's plus the write's change, the very ones `after_write` and
        `write_scores` use. So its `base()` equals ``after_write(street, house,
        number)``, an effect that changes nothing scores exactly what the write
        scores, and the value of an effect is that of the write plus what the
        effect changes. (A new MoveEvaluator on a copy of the sheet gives the
        same terms up to the last bits of the floats, summed in another order.)"""
        other = MoveEvaluator.__new__(MoveEvaluator)
        other.__dict__.update(self.__dict__)
        other.estates, other.potential, other.progress, other.open_value, other.share_value = \
            self._write_change(street, house)
        other.flex = self._write_sums(street, house, number, 0.0)[2]
        other.completed, other.unused, other.partial, other.open, other.share = self._counts_after_write(street, house)
        first, length = self._run_at(street, house)
        row = self.rows[street][:]
        row[house] = number
        other.rows = self.rows[:]
        other.rows[street] = row
        written = StreetFacts(None)  # facts of the street as it will be, kept by this evaluator only
        written.runs_at = self._facts[street].runs_at  # a write moves no fence
        other._facts = self._facts[:]
        other._facts[street] = written
        other._writes = [None] * len(self.rows)
        other._written = (self, street, first, length)
        return other

    def _counts_after_write(self, street: int, house: int) -> list[list]:
        """The per-size counts [completed, unused, partial, open, share] once
        the empty `house` is built (its run's `_run` state changes)."""
        first, length = self._run_at(street, house)
        counts = [self.completed[:], self.unused[:], self.partial[:], self.open[:], self.share[:]]
        for (size, done, share), sign in ((self._whole_run(street, first, length), -1),
                                          (self._run(street, first, length, house), 1)):
            count_run(counts, size, done, share, sign)
        return counts

    # ---------------------------------------------------------------- pieces
    def _plan_progress(self, unused: list[int]) -> float:
        return plan_progress_from(unused, self.sheet.plan_turns, self.plans, self.first_turn)

    def _progress_after(self, unused_change: dict[int, int]) -> float:
        """Plan progress once the unused completed estates change by `unused_change`
        (size index -> count)."""
        unused = self.unused[:]
        for size, change in unused_change.items():
            unused[size] += change
        key = tuple(unused)
        progress = self._progress.get(key)
        if progress is None:
            progress = self._progress[key] = self._plan_progress(unused)
        return progress

    def _run_at(self, street: int, house: int) -> tuple[int, int]:
        """(first house, length) of the fenced run holding `house`."""
        facts = self._facts[street]
        runs = facts.runs_at
        if runs is None:
            runs = facts.runs_at = [
                (first, length) for first, length, _done in self.sheet.runs(street) for _ in range(length)]
        return runs[house]

    def _whole_run(self, street: int, first: int, length: int) -> tuple[int, int, float]:
        """`_run` of a whole fenced run as it stands, remembered: every write in
        the run and every fence inside it start from it."""
        states = self._facts[street].whole_runs
        state = states.get(first)
        if state is None:
            state = states[first] = self._run(street, first, length)
        return state

    def _run(self, street: int, first: int, length: int, extra: int = -1) -> tuple[int, int, float]:
        """What a run brings, counting house `extra` as built: (size index, or -1
        when it cannot become an estate; 1 completed, 2 completed and unused, 0
        not; its built share squared when not completed)."""
        if length > MAX_ESTATE_SIZE:
            return NO_RUN
        end = first + length
        if True in self.sheet.roundabouts[street][first:end]:
            return NO_RUN
        numbers = self.rows[street]
        built = length - numbers[first:end].count(None)
        if first <= extra < end and numbers[extra] is None:
            built += 1
        if built == length:
            return length - 1, 1 if any(self.sheet.plan_use[street][first:end]) else 2, 0.0
        return length - 1, 0, built / length

    def _gap(self, street: int, house: int) -> tuple[int, int, int, int, float]:
        """(first house, last house, lo, hi, flexibility) of the gap holding an
        empty house (a dead house has no gap: last < first)."""
        facts = self._facts[street]
        gaps = facts.gaps
        if gaps is None:  # the first look at this street
            gaps = facts.gaps = [None] * len(self.rows[street])
            windows = self.windows
            runs = facts.street_gaps  # None on the street that `after_write_evaluator` wrote on
            if runs is None:
                runs = street_gaps(self.sheet, street, self.rows[street])
            for first, length, lo, hi in runs:
                gap = (first, first + length - 1, lo, hi, gap_value(length, windows[lo + 1][hi]))
                gaps[first:first + length] = [gap] * length
        return gaps[house] or (house, house - 1, 0, 0, 0.0)

    def _write_change(self, street: int, house: int) -> tuple[float, float, float, float, float]:
        """`_change` of a number written in the empty `house`. One more built
        house changes its run the same way whichever empty house it is, so this
        is computed once per run and remembered for all its houses."""
        changes = self._writes[street]
        if changes is None:
            changes = self._writes[street] = [None] * len(self.rows[street])
        change = changes[house]
        if change is None:  # the first write in this run
            first, length = self._run_at(street, house)
            change = self._change(self._whole_run(street, first, length), self._run(street, first, length, house))
            numbers = self.rows[street]
            for h in range(first, first + length):
                if numbers[h] is None:
                    changes[h] = change
        return change

    def _terms(self, estates: float, potential: float, flex: float, progress: float,
               points: float = 0.0, open_value: float | None = None,
               share_value: float | None = None) -> Terms:
        return tuple.__new__(Terms, (  # several times cheaper than Terms(...) on this hot path
            self.other_points + points + estates, potential, flex, progress, 0.0,
            self.open_value if open_value is None else open_value,
            self.share_value if share_value is None else share_value))

    def _change(self, old: tuple[int, int, float], new: tuple[int, int, float],
                other_new: tuple[int, int, float] = NO_RUN) -> tuple[float, float, float, float, float]:
        """(estate points, potential, progress, open estates, built share) after
        run `old` becomes run `new` (and `other_new`, when a fence splits it)."""
        values, worth = self.values, self.worth
        estates, potential = self.estates, self.potential
        open_value, share_value = self.open_value, self.share_value
        unused_change: dict[int, int] | None = None
        sign = -1  # the old run first, then the new ones
        for size, done, share in (old, new, other_new):
            if size >= 0:
                value = values[size]
                if done:
                    estates += sign * value
                    if done == 2:
                        if unused_change is None:
                            unused_change = {}
                        unused_change[size] = unused_change.get(size, 0) + sign
                else:
                    potential += sign * share * share * value
                    open_value += sign * worth[size]
                    share_value += sign * share * worth[size]
            sign = 1
        changed = unused_change is not None and any(unused_change.values())
        progress = self._progress_after(unused_change) if changed else self.progress  # type: ignore[arg-type]
        return estates, potential, progress, open_value, share_value

    # ----------------------------------------------------------------- moves
    def after_write(self, street: int, house: int, number: int, bis: bool = False,
                    temp: bool = False) -> Terms:
        """Terms after writing `number` in an empty house (a bis when `bis`)."""
        points = (self.temp_gain if temp else 0.0) - (self.bis_cost if bis else 0.0)
        return tuple.__new__(Terms, self._write_sums(street, house, number, points))

    def _write_sums(self, street: int, house: int, number: int, points: float
                    ) -> tuple[float, float, float, float, float, float, float]:
        """The fields of `after_write`'s Terms; `points` is its temp gain or bis cost."""
        changes = self._writes[street]
        change = changes[house] if changes is not None else None
        if change is None:
            change = self._write_change(street, house)
        estates, potential, progress, open_value, share_value = change
        gaps = self._facts[street].gaps
        gap = gaps[house] if gaps is not None else None
        if gap is None:
            gap = self._gap(street, house)
        gap_first, gap_last, lo, hi, gap_flex = gap
        flex = self.flex
        if gap_last >= gap_first:  # the gap splits at `house` (inlined gap_value and _window)
            left, left_window = house - gap_first, self.windows[lo + 1][number]
            right, right_window = gap_last - house, self.windows[number + 1][hi]
            flex += ((left if left < left_window else left_window)
                     + (right if right < right_window else right_window) - gap_flex)
        return self.other_points + points + estates, potential, flex, progress, 0.0, open_value, share_value

    def after_fence(self, street: int, slot: int) -> Terms:
        """Terms after a fence on `slot` (the run there splits in two)."""
        return tuple.__new__(Terms, self._fence_sums(street, slot))

    def _fence_sums(self, street: int, slot: int) -> tuple[float, float, float, float, float, float, float]:
        """The fields of `after_fence`'s Terms."""
        estates, potential, progress, open_value, share_value = self._change(*self._fence_splits(street)[slot])
        return self.other_points + 0.0 + estates, potential, self.flex, progress, 0.0, open_value, share_value

    def _fence_splits(self, street: int) -> list[tuple]:
        """For every fence slot of a street, the `_run` states of the run a
        fence there would split and of its two parts (None where a fence is
        already), worked out for the whole street at once and kept with the
        street's facts."""
        facts = self._facts[street]
        splits = facts.fence_splits
        if splits is None:
            splits = facts.fence_splits = [None] * (len(self.rows[street]) - 1)
            run = self._run
            for first, length, _done in self.sheet.runs(street):
                whole = self._whole_run(street, first, length)
                for left in range(1, length):
                    splits[first + left - 1] = (whole, run(street, first, left),
                                                run(street, first + left, length - left))
        return splits

    def _fence_changes(self, street: int) -> list[FenceChange | None]:
        """For every fence slot of a street, what a fence there changes as a
        `FenceChange` (None when it changes no sum, or a fence is there
        already). It depends only on the street and the estate values, so it
        is kept with the street's facts: the evaluators `after_write_evaluator`
        derives share it for the streets they did not write on, and later turns
        for the streets that stay the same."""
        facts = self._facts[street]
        cached = facts.fence_changes
        if cached is None or cached[0] != self.values:
            cached = facts.fence_changes = (self.values, self._work_out_fence_changes(street))
        return cached[1]

    def _work_out_fence_changes(self, street: int) -> list[FenceChange | None]:
        """`_fence_changes` of a street, run by run. On the street an evaluator
        of `after_write_evaluator` wrote on, only the slots of the written run
        differ from the evaluator it derives from."""
        written = self._written
        if written is not None and written[1] == street:
            parent, _street, first, length = written
            changes = parent._fence_changes(street)[:]
            changes[first:first + length - 1] = self._run_fence_changes(street, first, length)
            return changes
        changes = []
        for first, length, _done in self.sheet.runs(street):
            changes += self._run_fence_changes(street, first, length)
            changes.append(None)  # the fence after the run (or the street's end)
        del changes[-1]
        return changes

    def _run_fence_changes(self, street: int, first: int, length: int) -> list[FenceChange | None]:
        """The `FenceChange` of each slot inside one run, left to right (see
        :func:`run_fence_changes`), remembered by the run's pattern: a run of
        the same empty houses, roundabouts and plan lines at the same estate
        values changes the same, wherever and whenever it comes."""
        end = first + length
        sheet = self.sheet
        empty = tuple([number is None for number in self.rows[street][first:end]])
        rounds = tuple(sheet.roundabouts[street][first:end])
        uses = tuple(sheet.plan_use[street][first:end])
        key = (empty, rounds, uses, self._values_key)
        changes = RUN_FENCE_CHANGES.get(key)
        if changes is None:
            if len(RUN_FENCE_CHANGES) >= RUN_FENCE_LIMIT:
                RUN_FENCE_CHANGES.clear()
            changes = RUN_FENCE_CHANGES[key] = run_fence_changes(empty, rounds, uses, self.values)
        return changes

    def after_real_estate(self, size: int) -> Terms:
        track = self.sheet.data.real_estate_tracks[size - 1]
        gain = track[self.sheet.real_estate[size - 1] + 1] - track[self.sheet.real_estate[size - 1]]
        index = size - 1
        return self._terms(self.estates + gain * self.completed[index],
                           self.potential + gain * self.partial[index], self.flex, self.progress, 0.0,
                           self.open_value + gain * self.open[index],
                           self.share_value + gain * self.share[index])

    def after_landscaper(self, street: int) -> Terms:
        track, crossed = self.sheet.data.park_tracks[street], self.sheet.parks[street]
        return self._terms(self.estates, self.potential, self.flex, self.progress,
                           track[crossed + 1] - track[crossed])

    def after_pool(self) -> Terms:
        return self._terms(self.estates, self.potential, self.flex, self.progress, self.pool_gain)

    def after_effect(self, effect: Sequence) -> Terms:
        """Terms after one effect use (:class:`~welcometo_sim.games.welcome_to.effects.Effect`:
        a fence, a bis write, a real-estate or park box, or a pool), by kind."""
        kind, street, position, number = effect
        if kind == SURVEYOR:
            return self.after_fence(street, position)
        if kind == BIS:
            return self.after_write(street, position, number, bis=True)
        if kind == REAL_ESTATE:
            return self.after_real_estate(position)
        if kind == LANDSCAPER:
            return self.after_landscaper(street)
        return self.after_pool()

    def base(self) -> Terms:
        """Terms of the sheet as it is."""
        return self._terms(self.estates, self.potential, self.flex, self.progress)

    # --------------------------------------------------------------- scores
    def write_scores(self, plays: Iterable[Sequence], weights: Sequence[float]) -> list[float]:
        """``linear_score(weights, after_write(play.street, play.house,
        play.number, temp=play.temp))`` for each play
        (:class:`~welcometo_sim.games.welcome_to.effects.Play`), computed with the same
        operations in the same order (so exactly the same floats) but without
        making the Terms: the inner loop of a search that weighs the terms
        linearly. What does not depend on the number is worked out once per
        house: the weighted points and potential (with and without a temp box
        crossed), the weighted plan progress, and where the house lies in its
        gap."""
        w_points, w_potential, w_flex, w_progress, w_board = weights
        board = w_board * 0.0
        other, temp_points, base_flex, windows = self.other_points, self.temp_gain - 0.0, self.flex, self.windows
        by_house: list[list[tuple | None]] = [[None] * len(row) for row in self.rows]
        scores: list[float] = []
        append = scores.append
        for _offer, street, house, number, temp, _truck in plays:
            known = by_house[street][house]
            if known is None:
                estates, potential, progress, _open, _share = self._write_change(street, house)
                gap_first, gap_last, lo, hi, gap_flex = self._gap(street, house)
                # the houses of the gap left and right of this one (-1: a dead house, no gap)
                left, right = (house - gap_first, gap_last - house) if gap_last >= gap_first else (-1, -1)
                known = by_house[street][house] = (
                    w_points * (other + 0.0 + estates) + w_potential * potential,
                    w_points * (other + temp_points + estates) + w_potential * potential,
                    w_progress * progress, left, right, windows[lo + 1], hi, gap_flex)
            plain, with_temp, progress_score, left, right, left_windows, hi, gap_flex = known
            if left < 0:
                flex = base_flex
            else:  # as in `_write_sums`
                left_window, right_window = left_windows[number], windows[number + 1][hi]
                flex = base_flex + ((left if left < left_window else left_window)
                                    + (right if right < right_window else right_window) - gap_flex)
            append((with_temp if temp else plain) + w_flex * flex + progress_score + board)
        return scores

    def effect_scores(self, effects: Iterable[tuple], weights: Sequence[float]) -> list[float]:
        """``linear_score(weights, terms)`` of the Terms after each effect use
        (:class:`~welcometo_sim.games.welcome_to.effects.Effect`: a fence, a bis write, a
        real-estate or park box, or a pool), like `write_scores`."""
        w_points, w_potential, w_flex, w_progress, w_board = weights
        other, flex_score, board = self.other_points, w_flex * self.flex, w_board * 0.0
        base_estates, base_potential, base_progress = self.estates, self.potential, self.progress
        other_points = other + 0.0  # `other + 0.0 + estates` adds in this order
        unchanged = (w_points * (other_points + base_estates) + w_potential * base_potential + flex_score
                     + w_progress * base_progress + board)
        changes: list[FenceChange | None] = []
        changes_street = -1
        scores = []
        for kind, street, position, number in effects:
            if kind == SURVEYOR:  # `_fence_sums` from the kept `_fence_changes`: most effect uses are fences
                if street != changes_street:
                    changes, changes_street = self._fence_changes(street), street
                change = changes[position]
                if change is None:
                    scores.append(unchanged)
                    continue
                e0, e1, e2, p0, p1, p2, unused_change = change
                estates = base_estates + e0 + e1 + e2
                potential = base_potential + p0 + p1 + p2
                progress = base_progress if unused_change is None else self._progress_after(unused_change)
                scores.append(w_points * (other_points + estates) + w_potential * potential + flex_score
                              + w_progress * progress + board)
                continue
            if kind == BIS:
                sums = self._write_sums(street, position, number, 0.0 - self.bis_cost)
            elif kind == REAL_ESTATE:
                sums = self.after_real_estate(position)
            elif kind == LANDSCAPER:
                sums = self.after_landscaper(street)
            else:
                sums = self.after_pool()
            scores.append(w_points * sums[0] + w_potential * sums[1] + w_flex * sums[2]
                          + w_progress * sums[3] + w_board * sums[4])
        return scores

    def shifting_effect_scores_after_write(self, street: int, house: int, number: int, effects: Sequence[tuple],
                                           weights: Sequence[float]) -> list[float]:
        """``after_write_evaluator(street, house, number).effect_scores(effects,
        weights)`` for real-estate, park and pool uses (`SHIFTING_EFFECTS`),
        the same floats: these only shift the sums, so they are scored from
        this evaluator's change for the write, without deriving an evaluator."""
        w_points, w_potential, w_flex, w_progress, w_board = weights
        estates, potential, progress, _open, _share = self._write_change(street, house)
        flex = self._write_sums(street, house, number, 0.0)[2]
        other, sheet = self.other_points, self.sheet
        counts: list[list] | None = None
        scores = []
        for kind, effect_street, position, _number in effects:
            # the sums of `after_real_estate`, `after_landscaper` and `after_pool`
            # on the evaluator after the write
            if kind == REAL_ESTATE:
                if counts is None:
                    counts = self._counts_after_write(street, house)
                track = sheet.data.real_estate_tracks[position - 1]
                gain = track[sheet.real_estate[position - 1] + 1] - track[sheet.real_estate[position - 1]]
                points = other + 0.0 + (estates + gain * counts[0][position - 1])
                shifted_potential = potential + gain * counts[2][position - 1]
            else:
                if kind == LANDSCAPER:
                    track, crossed = sheet.data.park_tracks[effect_street], sheet.parks[effect_street]
                    points = other + (track[crossed + 1] - track[crossed]) + estates
                else:
                    points = other + self.pool_gain + estates
                shifted_potential = potential
            scores.append(w_points * points + w_potential * shifted_potential + w_flex * flex
                          + w_progress * progress + w_board * 0.0)
        return scores


SHIFTING_EFFECTS = frozenset((REAL_ESTATE, LANDSCAPER, POOL))
"""Effects that only shift the sheet's sums (see `MoveEvaluator.shifting_effect_scores_after_write`)."""
