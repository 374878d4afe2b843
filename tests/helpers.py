"""Small builders shared by the rules tests.

Sheets from text
----------------
``sheet_from(top, middle, bottom)`` builds a :class:`Sheet` from up to three
street strings (missing streets, and missing houses at the right end of a
street, stay empty). Tokens are separated by spaces:

- ``7``   house number 7,
- ``7b``  a bis house copying 7 (crosses a bis box, like the engine does),
- ``.``   an empty house,
- ``|``   a fence between the previous and the next house (may touch: ``3|4``),
- a suffix ``~d`` (``7~2``, ``7b~1``) draws the line of plan deck d over the house.

Example: ``sheet_from("1 2 | 5 5b . 9", "", "0~1 1~1 | 4")``.
Keyword arguments set tracks directly: parks, real_estate, temps, refusals,
n_bis (overrides the count from ``b`` tokens), pools (list of (street, house)),
plan_turns, plan_points.

``estates_sheet(sizes)`` lays out completed estates of the given sizes one
after the other (streets top to bottom, each estate closed by a fence, the
rest of the streets empty) — handy for the plan tests.

Games
-----
``Scripted`` is a strategy driven by small callables (defaults: first legal
play, skip effects, complete every plan, no reshuffle) that records every
view it is shown. ``scripted_seat(name, **kw)`` wraps it in a Seat and keeps
the created instance in ``seat.factory.instances``.
``rig_stacks(deck, stacks)`` puts chosen cards on top of the three stacks.
"""

from __future__ import annotations

import importlib.util
import re
import types
from collections import Counter
from pathlib import Path
from typing import Callable, Sequence

from welcometo_sim.games.welcome_to.data import DEFAULT_DATA, GameData
from welcometo_sim.games.welcome_to.game import Deck, Seat
from welcometo_sim.games.welcome_to.sheet import Sheet
from welcometo_sim.strategy import Strategy, complete_all

_TOKEN = re.compile(r"^(\.|(\d+)(b?))(?:~(\d))?$")


def sheet_from(*streets: str, data: GameData = DEFAULT_DATA, n_bis: int | None = None,
               pools: Sequence[tuple[int, int]] = (), **tracks) -> Sheet:
    """A sheet from readable street strings (see the module docstring)."""
    sheet = Sheet(data)
    assert len(streets) <= len(data.street_houses), "too many streets"
    for street, text in enumerate(streets):
        house = 0
        for token in text.replace("|", " | ").split():
            if token == "|":
                assert 0 < house < data.street_houses[street], f"fence out of street: {text!r}"
                sheet.add_fence(street, house - 1)
                continue
            match = _TOKEN.match(token)
            assert match, f"bad token {token!r} in {text!r}"
            assert house < data.street_houses[street], f"street {street} too long: {text!r}"
            if match.group(2) is not None:
                sheet.write(street, house, int(match.group(2)), bis=bool(match.group(3)))
            if match.group(4):
                sheet.plan_use[street][house] = int(match.group(4))
            house += 1
    if n_bis is not None:
        sheet.n_bis = n_bis
    for street, house in pools:
        sheet.pools[street][house] = True
    for name, value in tracks.items():
        assert hasattr(sheet, name), name
        setattr(sheet, name, list(value) if isinstance(value, (list, tuple)) else value)
    return sheet


def estates_sheet(sizes: Sequence[int], data: GameData = DEFAULT_DATA) -> Sheet:
    """Completed estates of exactly these sizes, in order, each closed by a fence."""
    sheet = Sheet(data)
    street, house = 0, 0
    for size in sizes:
        if house + size > data.street_houses[street]:
            street, house = street + 1, 0
        for h in range(house, house + size):
            sheet.write(street, h, h)
        house += size
        if house < data.street_houses[street]:
            sheet.add_fence(street, house - 1)
    return sheet


def full_sheet(data: GameData = DEFAULT_DATA) -> Sheet:
    """Every house built (numbers 0, 1, 2, … on each street), no fence."""
    sheet = Sheet(data)
    for street, n in enumerate(data.street_houses):
        for h in range(n):
            sheet.write(street, h, h)
    return sheet


def card_ids(cards: Sequence[tuple[int, str]], wanted: Sequence[tuple[int, str]]) -> list[int]:
    """Distinct indices into `cards` of the wanted (number, effect) cards."""
    used: set[int] = set()
    ids = []
    for card in wanted:
        index = next(i for i, c in enumerate(cards) if c == card and i not in used)
        used.add(index)
        ids.append(index)
    return ids


def rig_stacks(deck: Deck, stacks: Sequence[Sequence[tuple[int, str]]]) -> None:
    """Put the listed cards (top first) on top of the three stacks; every other
    card of the deck goes below them, so the 81 cards all stay in play.

    With stack i = [c0, c1, c2, …] the offers are (number c1, effect c0) on the
    first reveal, (number c2, effect c1) on the second, and so on.
    """
    wanted = [card for stack in stacks for card in stack]
    ids = card_ids(deck.cards, wanted)
    rest = sorted(set(range(len(deck.cards))) - set(ids))
    new_stacks, k = [], 0
    for i, stack in enumerate(stacks):
        top_first = ids[k:k + len(stack)]
        k += len(stack)
        share = rest[i::len(stacks)]
        new_stacks.append(share + top_first[::-1])  # the top of a stack is its last element
    deck.stacks = new_stacks
    deck.discards = [[] for _ in stacks]


def first_play(view, plays):
    return plays[0]


class Scripted(Strategy):
    """A test strategy: each hook is a plain function; every view is recorded."""

    name = "scripted"

    def __init__(self, rng, play: Callable = first_play, effect: Callable | None = None,
                 plans: Callable | None = None, reshuffle: bool | Callable = False) -> None:
        super().__init__(rng)
        self._play, self._effect, self._plans, self._reshuffle = play, effect, plans, reshuffle
        self.seen: list[dict] = []          # one entry per choose_play call
        self.effect_calls: list[list] = []
        self.plan_calls: list[tuple[int, list]] = []
        self.reshuffle_calls: list[int] = []

    def choose_play(self, view, plays):
        self.seen.append({
            "turn": view.turn, "offers": list(view.offers), "next_effects": view.next_effects,
            "public": view.public, "plays": list(plays), "first": view.plan_first_turn,
            "own_built": view.sheet.n_built(),
        })
        return self._play(view, plays)

    def choose_effect(self, view, options):
        self.effect_calls.append(list(options))
        return self._effect(view, options) if self._effect else None

    def choose_plans(self, view, claimable):
        self.plan_calls.append((view.turn, list(claimable)))
        return self._plans(view, claimable) if self._plans else complete_all(view, claimable)

    def choose_reshuffle(self, view):
        self.reshuffle_calls.append(view.turn)
        return self._reshuffle(view) if callable(self._reshuffle) else self._reshuffle


def _recording_seat(cls: type, name: str, **kwargs) -> Seat:
    """A Seat playing `cls(rng, **kwargs)`; each instance ends up in factory.instances."""
    instances: list = []

    def factory(rng):
        strategy = cls(rng, **kwargs)
        instances.append(strategy)
        return strategy

    factory.instances = instances  # type: ignore[attr-defined]
    return Seat(name, "scripted", factory)


def scripted_seat(name: str, **kwargs) -> Seat:
    """A Seat playing `Scripted(**kwargs)`; the instance ends up in factory.instances."""
    return _recording_seat(Scripted, name, **kwargs)


def all_cards(deck: Deck) -> list[int]:
    """Every card index held by the deck's stacks and discard piles, sorted."""
    return sorted(c for pile in deck.stacks + deck.discards for c in pile)


# ------------------------------------------------------------------ variants
class VariantScripted(Scripted):
    """Scripted plus the variant hooks as plain functions: `roundabout(view, houses)`
    (default: build none) and `pass_card(view, cards)` (default: the first card).
    Every call is logged with its turn, and each choose_play entry of `seen`
    also holds the player's hand (solo cards or expert hand)."""

    def __init__(self, rng, roundabout: Callable | None = None, pass_card: Callable | None = None,
                 **kwargs) -> None:
        super().__init__(rng, **kwargs)
        self._roundabout, self._pass = roundabout, pass_card
        self.roundabout_calls: list[tuple[int, list]] = []
        self.pass_calls: list[tuple[int, list, list]] = []

    def choose_play(self, view, plays):
        answer = super().choose_play(view, plays)
        self.seen[-1]["hand"] = None if view.hand is None else list(view.hand)
        return answer

    def choose_roundabout(self, view, houses):
        self.roundabout_calls.append((view.turn, list(houses)))
        return self._roundabout(view, houses) if self._roundabout else None

    def choose_pass(self, view, cards):
        self.pass_calls.append((view.turn, list(view.hand or []), list(cards)))
        return self._pass(view, cards) if self._pass else cards[0]


def variant_seat(name: str, **kwargs) -> Seat:
    """A Seat playing `VariantScripted(**kwargs)`; the instance ends up in factory.instances."""
    return _recording_seat(VariantScripted, name, **kwargs)


def with_board(sheet: Sheet, state: object) -> Sheet:
    """The same sheet with a thematic board state attached (e.g. from sheet_from)."""
    sheet.board = state
    return sheet


def check_track_bounds(sheet: Sheet) -> None:
    """Real-estate columns and park tracks within their boxes; pools only on pool
    houses written with their own number (not a bis)."""
    for size, crossed in enumerate(sheet.real_estate):
        assert 0 <= crossed <= REAL_ESTATE_BOXES[size], (size + 1, crossed)
    for street, crossed in enumerate(sheet.parks):
        assert 0 <= crossed <= PARK_BOXES[street], (street, crossed)
    for street, row in enumerate(sheet.pools):
        for h, built in enumerate(row):
            if built:
                assert h in POOL_HOUSES[street], (street, h)
                assert sheet.numbers[street][h] is not None and not sheet.is_bis[street][h]


# ------------------------------------------------------------ command line
def wtsim(argv: list[str], capsys) -> tuple[int, str, str]:
    """Call the console entry point; (exit code, stdout, stderr)."""
    from welcometo_sim.cli import main

    try:
        main(argv)
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """The console entry point with its output captured: (exit code, stdout,
    stderr). Needs no capsys, so module-scoped fixtures can build a run or a
    training folder once for the tests that only read it."""
    import contextlib
    import io

    from welcometo_sim.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return code, out.getvalue(), err.getvalue()


def user_error(argv: list[str], capsys) -> str:
    """Run a command that must fail as a user error; return its one stderr line."""
    code, out, err = wtsim(argv, capsys)
    assert code == 2, (out, err)
    assert "Traceback" not in err and "Traceback" not in out
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert err.endswith("\n")
    return lines[0]


def rendered_houses(text: str) -> list[list[list[str | None]]]:
    """House labels per seat and street, read back from `wtsim show` output
    (`.` is empty; the `*` pool and `~` plan-line marks are dropped)."""
    seats: list[list[list[str | None]]] = []
    for line in text.splitlines():
        if line[:3] not in ("0: ", "1: ", "2: "):
            continue
        if line.startswith("0: "):
            seats.append([])
        body = line[line.index("|") + 1:line.rindex(" |  parks")]
        cells = [c.strip("~*") for c in body.replace("|", " ").split()]
        seats[-1].append([None if c == "." else c for c in cells])
    return seats


# ----------------------------------------------- literal copies of RULES.md §1
# So that property tests check the engine against the rules text, not data.py.
STREET_HOUSES = (10, 11, 12)
POOL_HOUSES = ((2, 6, 7), (0, 3, 7), (1, 6, 10))
PARK_BOXES = (3, 4, 5)               # park track lengths minus the 0 entry
REAL_ESTATE_BOXES = (1, 2, 3, 4, 4, 4)
TEMP_BOXES, BIS_BOXES, REFUSAL_BOXES, ROUNDABOUT_BOXES = 11, 9, 3, 2
EFFECT_NAMES = ("surveyor", "real_estate", "landscaper", "pool", "temp", "bis")
# number -> (surveyor, real_estate, landscaper, pool, temp, bis)
DECK_TABLE = {
    1: (1, 1, 1, 0, 0, 0), 2: (1, 1, 1, 0, 0, 0), 3: (1, 0, 0, 1, 1, 1),
    4: (0, 1, 1, 1, 1, 1), 5: (2, 2, 2, 0, 0, 0), 6: (2, 1, 1, 1, 1, 1),
    7: (1, 2, 2, 1, 1, 1), 8: (2, 2, 2, 1, 1, 1), 9: (1, 2, 2, 1, 1, 1),
    10: (2, 1, 1, 1, 1, 1), 11: (2, 2, 2, 0, 0, 0), 12: (0, 1, 1, 1, 1, 1),
    13: (1, 0, 0, 1, 1, 1), 14: (1, 1, 1, 0, 0, 0), 15: (1, 1, 1, 0, 0, 0),
}
EXPECTED_CARDS = Counter({
    (number, effect): count
    for number, row in DECK_TABLE.items()
    for effect, count in zip(EFFECT_NAMES, row)
    if count
})
N_CARDS = 81


def benchmark_module(name: str) -> types.ModuleType:
    """A script of `benchmarks/` (not a package) loaded as a module, for its tests."""
    path = Path(__file__).resolve().parent.parent / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module
