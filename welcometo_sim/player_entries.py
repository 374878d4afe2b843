"""The one reader of a config's `players:` entries, for every game.

An entry is a strategy reference (``greedy``, ``greedy:weights.plans=2,shortlist=3``
with inline parameters, ``mypkg.bots:Cautious`` or ``bots.py:Cautious`` where
the game loads strategies from modules) or a mapping of :data:`PLAYER_KEYS`::

    players:
      - greedy
      - {strategy: lookahead, name: deep, params: {samples: 8}}
      - {params_file: tuned/greedy.yaml}

:func:`parse_player_entries` reads such a list (or the strategies of a
command line) into :class:`~welcometo_sim.config_files.PlayerConfig` seats
with unique names (repeats get ``-2``, ``-3``, ...). What differs from game to
game is only the :class:`StrategyLookup` the game hands it: its built-in
strategies, how it resolves a ``module:Class`` reference (if it does), and
what a seat's strategy is made of. Every problem is one
:class:`~welcometo_sim.config_files.ConfigError` line naming the place
(``c.yaml: players[1].strategy: unknown strategy 'gredy' (strategies of
welcome-to: ...)``); a `params_file`'s values are never quoted.

This module knows no game: it imports only the bottom of the config layer,
the strategy base and the message helpers.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Mapping

import yaml

from .config_files import (ConfigError, PlayerConfig, bounded_yaml, entry_with_file_params, key_line, merge_params,
                           params_file_path, read_params_file, unique_name)
from .games.strategy_base import BaseStrategy, StrategyLoadError
from .messages import key_label, shown

__all__ = ["PLAYER_KEYS", "StrategyLookup", "parse_player_entries", "player_list", "split_reference",
           "parse_inline_params", "dotted_to_nested"]

PLAYER_KEYS = frozenset({"strategy", "name", "params", "params_file"})
"""The keys of a player entry given as a mapping."""
MAX_PARAMS_TRIED = 200
"""Parameters of a params_file tried one by one at most, to name the one a strategy refuses."""
REFERENCE_FORMS = "module:Class, file.py:Class"
"""How a message names the references a game that loads strategies from modules takes."""
VALUE_ERRORS = (RecursionError, ValueError, TypeError, LookupError, AttributeError, ArithmeticError)
"""What checking strange parameter values may raise besides a strategy's own refusal."""


@dataclass(frozen=True)
class StrategyLookup:
    """What a game tells the player-entry parser about its strategies.

    `game` is how messages name the game ("strategies of <game>: ..."). The
    other fields are functions, so that a registry built on first use (entry
    points of installed packages) is read only when a config is.
    """

    game: str
    builtins: Callable[[], Mapping[str, Any]]
    """The built-in strategies: name -> class, or a reference that `resolve` loads."""
    make: Callable[[str, dict], Any]
    """(reference, parameters) -> what a seat's PlayerConfig holds (a picklable spec);
    raises a ValueError of one line when the strategy refuses the parameters."""
    resolve: Callable[[str], type] | None = None
    """A ``module:Class`` or ``file.py:Class`` reference -> its class (a ValueError of
    one line when it cannot be loaded); None: the game takes built-in names only."""
    elsewhere: Callable[[str], str | None] = lambda ref: None
    """'x is a <game> strategy, not one of <this game>' for a name only another game knows."""
    names_keep_params: bool = True
    """A seat without `name` is called by its reference as written, inline parameters
    included (``greedy:shortlist=3``); False: by the strategy's name alone."""

    def strategy_class(self, ref: str) -> type | None:
        """The class `ref` names (None when it is neither a built-in nor a reference
        the game resolves); a reference that cannot be loaded raises a ValueError."""
        table = self.builtins()
        if ref in table:
            found = table[ref]
            return found if isinstance(found, type) or self.resolve is None else self.resolve(found)
        if self.resolve is not None and ":" in ref:
            return self.resolve(ref)
        return None

    def unknown(self, ref: str) -> str:
        """Why `ref` names none of the game's strategies, with the ones it has."""
        known = ", ".join(self.builtins())
        if self.resolve is not None:
            return f"{self.elsewhere(ref) or f'unknown strategy {shown(ref)}'} (strategies of {self.game}: " \
                   f"{known}; or {REFERENCE_FORMS})"
        if ":" in ref:
            why = f"{shown(ref)}: {self.game} takes strategies by name only, not {REFERENCE_FORMS}"
        else:
            why = self.elsewhere(ref) or f"unknown strategy {shown(ref)}"
        return f"{why} (strategies of {self.game}: {known})"


# ---------------------------------------------------------------- references
def dotted_to_nested(pairs: dict[str, Any]) -> dict[str, Any]:
    """{"weights.x": 2} -> {"weights": {"x": 2}}."""
    nested: dict[str, Any] = {}
    for dotted, value in pairs.items():
        node = nested
        *parents, leaf = dotted.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return nested


def parse_inline_params(text: str, where: str) -> dict[str, Any]:
    """'a.b=2,c=x' -> {"a": {"b": 2}, "c": "x"}; each value is read as YAML with
    the bounds of config files (aliases expanded to 100,000 values at most).
    A problem is a StrategyLoadError starting with `where`."""
    pairs = {}
    for item in filter(None, text.split(",")):
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise StrategyLoadError(f"{where}: parameter {shown(item)} is not KEY=VALUE")
        try:
            pairs[key.strip()] = bounded_yaml(raw)
        except yaml.YAMLError as exc:
            problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            raise StrategyLoadError(f"{where}: parameter {shown(key.strip())}: malformed value (YAML: {problem})") from None
        except VALUE_ERRORS as exc:
            raise StrategyLoadError(f"{where}: parameter {shown(key.strip())}: cannot read the value "
                                    f"({type(exc).__name__})") from None
    return dotted_to_nested(pairs)


def split_reference(text: str) -> tuple[str, dict[str, Any]]:
    """'greedy:weights.x=2,shortlist=3' -> ('greedy', {'weights': {'x': 2}, 'shortlist': 3});
    a reference without inline parameters ('pkg.mod:Class', 'greedy') comes back
    stripped with {}. Inline parameters follow the first ':' and hold a '='."""
    ref = text.strip()
    head, sep, tail = ref.partition(":")
    if not (sep and "=" in tail):
        return ref, {}
    return head, parse_inline_params(tail, f"strategy {shown(text)}")


# ---------------------------------------------------------------- entries
def player_list(raw: Any, where: str) -> list:
    """A config's `players:` value, checked to be a non-empty list (its entries unread)."""
    if raw is None:
        raise ConfigError(f"{where}: players: missing (a list of strategies, one per seat)")
    if not isinstance(raw, list) or not raw:
        raise ConfigError(f"{where}: players: must be a non-empty list of strategies, one per seat")
    return raw


def parse_player_entries(raw: Any, where: str, lookup: StrategyLookup,
                         base_dir: str | os.PathLike | None = None) -> tuple[PlayerConfig, ...]:
    """A config's `players:` list, or a command line's strategies, as PlayerConfigs
    with unique names, resolved among the strategies of `lookup`'s game; relative
    `params_file` paths are read from `base_dir`. A problem is one ConfigError
    line starting with `where` and the entry's place (``players[2].params``)."""
    entries = player_list(raw, where)
    table = dict(lookup.builtins())  # read once: a registry of entry points is slow to list
    lookup = replace(lookup, builtins=lambda: table)
    players = []
    taken: set[str] = set()
    for index, entry in enumerate(entries):
        name, strategy = _player(entry, where, f"players[{index}]", lookup, base_dir)
        players.append(PlayerConfig(unique_name(name, taken), strategy))
    return tuple(players)


def _player(entry: Any, where: str, at: str, lookup: StrategyLookup,
            base_dir: str | os.PathLike | None) -> tuple[str, Any]:
    """(display name before numbering, the seat's strategy) of one entry."""
    if isinstance(entry, str):
        entry = {"strategy": entry}
    if not isinstance(entry, dict):
        raise ConfigError(f"{where}: {at}: must be a strategy name or a mapping")
    for key in entry:
        if key not in PLAYER_KEYS:
            raise ConfigError(f"{where}: {at}.{key_label(key)}: unknown key (known: {', '.join(sorted(PLAYER_KEYS))})")
    params_file = None
    if "params_file" in entry:
        params_file = _read_params_file(entry, where, at, lookup, base_dir)
        entry = params_file.entry
    text = entry.get("strategy")
    if not isinstance(text, str) or not text:
        raise ConfigError(f"{where}: {at}.strategy: missing or not a string")
    params = entry.get("params") or {}
    if not isinstance(params, dict):
        raise ConfigError(f"{where}: {at}.params: must be a mapping")
    try:
        ref, inline = split_reference(text)
    except StrategyLoadError as exc:
        raise ConfigError(f"{where}: {at}.strategy: {exc}") from None
    cls = _class(lookup, ref, where, at)
    # a refused parameter is named where it was written: inline on the strategy, or under params
    place = f"{where}: {at}.strategy" if inline else f"{where}: {at}.params"
    if params_file is not None:
        params_file.check(lookup, ref, cls, inline, place)
    try:
        strategy = lookup.make(ref, merge_params(params, inline))
    except ValueError as exc:
        if params_file is not None:  # the message may quote a value of the file, which may hold secrets
            raise ConfigError(f"{place}: refused by strategy {shown(ref)} with the params_file's values "
                              f"(the values are not shown)") from None
        raise ConfigError(f"{place}: {exc}") from None
    except VALUE_ERRORS as exc:
        raise ConfigError(f"{place}: {shown(text)}: cannot read a parameter value ({type(exc).__name__})") from None
    name = entry.get("name") or _default_name(lookup, text, ref, cls)
    if not isinstance(name, str):
        raise ConfigError(f"{where}: {at}.name: must be a string")
    return name, strategy


def _class(lookup: StrategyLookup, ref: str, where: str, at: str) -> type:
    """The class `ref` names among the game's strategies; else one ConfigError line."""
    try:
        cls = lookup.strategy_class(ref)
    except ValueError as exc:
        raise ConfigError(f"{where}: {at}.strategy: {exc}") from None
    if cls is None:
        raise ConfigError(f"{where}: {at}.strategy: {lookup.unknown(ref)}")
    return cls


def _default_name(lookup: StrategyLookup, text: str, ref: str, cls: type) -> str:
    """A seat's name when the entry gives none: the reference as written (without
    its inline parameters where the game says so); a class loaded from a module
    that declares its own `name` is shown by that name (`mybots.py:LowestFirst`
    as `lowest-first`), inline parameters after it."""
    if not lookup.names_keep_params:
        return ref
    own = getattr(cls, "name", BaseStrategy.name)
    if ref in lookup.builtins() or own == BaseStrategy.name:
        return text
    return own + text.strip()[len(ref):]


# ---------------------------------------------------------------- params_file
@dataclass(frozen=True)
class _ParamsFile:
    """A player's `params_file`, read: the entry with the file's strategy and
    parameters laid in, and what it takes to check them without quoting them."""

    entry: dict
    here: str
    path: Path
    params: dict
    own: dict

    def check(self, lookup: StrategyLookup, ref: str, cls: type, inline: dict, place: str) -> None:
        """Refuse the file's parameters that the strategy refuses, naming the key
        but never the value. The entry's own parameters are checked first and
        quoted as usual (they are the config's)."""
        own = merge_params(self.own, inline)
        try:
            lookup.make(ref, merge_params(self.params, own))
            return
        except Exception:  # noqa: BLE001 - told apart below, without quoting the file
            pass
        try:
            lookup.make(ref, own)
        except ValueError as exc:
            raise ConfigError(f"{place}: {exc}") from None
        except VALUE_ERRORS as exc:
            raise ConfigError(f"{place}: {shown(ref)}: cannot read a parameter value ({type(exc).__name__})") from None
        defaults = getattr(cls, "defaults", None) or {}
        for leaf in _leaves(self.params, defaults)[:MAX_PARAMS_TRIED]:
            single: dict = {}
            node = single
            for part in leaf[:-1]:
                node = node.setdefault(part, {})
            node[leaf[-1]] = _at(self.params, leaf)
            try:
                lookup.make(ref, merge_params(single, own))
            except Exception:  # noqa: BLE001
                name = ".".join(key_label(part) for part in leaf)
                known = _at(defaults, leaf[:-1])
                if not isinstance(known, dict) or leaf[-1] not in known:
                    keys = ", ".join(sorted(map(str, known))) if isinstance(known, dict) else "none"
                    raise ConfigError(f"{self.here}: {key_line(self.path, ('params', *leaf))}"
                                      f"unknown parameter (known: {keys}; the key is not shown)") from None
                raise ConfigError(f"{self.here}: params.{name}: {_expected(known[leaf[-1]], _at(self.params, leaf))}"
                                  f"{shown(ref)} (the value is not shown)") from None
        raise ConfigError(f"{self.here}: params: refused by strategy {shown(ref)} together (the values are not shown)")


def _read_params_file(entry: dict, where: str, at: str, lookup: StrategyLookup,
                      base_dir: str | os.PathLike | None) -> _ParamsFile:
    """The entry's `params_file` read in: the entry's strategy or else the file's
    (which must be one the game can load), the file's parameters under the
    entry's own. A strategy of the file is quoted only when it is a built-in."""
    here, file_ref, file_params = read_params_file(entry["params_file"], where, at, base_dir)
    if file_ref is not None:
        _check_file_strategy(lookup, file_ref, here)
    ref = entry.get("strategy")
    if ref is not None and file_ref is not None and ref != file_ref:
        held = shown(file_ref) if file_ref in lookup.builtins() else "another strategy"
        raise ConfigError(f"{here} holds parameters of {held}, not of {shown(ref)}")
    merged = entry_with_file_params(entry, file_ref, file_params, where, at)
    return _ParamsFile(merged, here, params_file_path(entry["params_file"], base_dir), file_params,
                       entry.get("params") or {})


def _check_file_strategy(lookup: StrategyLookup, ref: Any, here: str) -> None:
    """The strategy a params_file names must load; a message names the key, never the value."""
    if not isinstance(ref, str) or not ref.strip():
        raise ConfigError(f"{here}: strategy: must be a strategy name")
    try:
        name, inline = split_reference(ref)
        if lookup.strategy_class(name) is None:
            raise LookupError(name)
        lookup.make(name, inline)
    except Exception:  # noqa: BLE001 - whatever it is, the message would quote the file
        raise ConfigError(f"{here}: strategy: not a strategy that can be loaded (the value is not shown)") from None


def _expected(default: Any, value: Any) -> str:
    """What a parameter's value must be, as far as its default tells, ending in 'of strategy'."""
    if isinstance(default, bool) and not isinstance(value, bool):
        return "must be true or false for strategy "
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(default, int) and not isinstance(default, bool) and not (numeric and isinstance(value, int)):
        return "must be an integer for strategy "
    if isinstance(default, float) and not numeric:
        return "must be a finite number for strategy "
    if isinstance(default, dict) and not isinstance(value, dict):
        return "must be a mapping for strategy "
    return "refused by strategy "


def _leaves(params: dict, defaults: Any, prefix: tuple = ()) -> list[tuple]:
    """Key paths of the values of `params`, down to where its defaults stop being mappings."""
    out: list[tuple] = []
    for key, value in params.items():
        default = defaults.get(key) if isinstance(defaults, dict) else None
        if isinstance(value, dict) and isinstance(default, dict) and value:
            out += _leaves(value, default, (*prefix, key))
        else:
            out.append((*prefix, key))
    return out


def _at(tree: Any, path: tuple) -> Any:
    for part in path:
        tree = tree.get(part) if isinstance(tree, dict) else None
    return tree

