"""Statistics for comparing strategies: intervals, paired differences, ratings.

A tournament answers "is strategy A better than strategy B?" only up to noise:
the same two strategies give different score tables under different seeds. The
functions here put error bars on the numbers the result tables produce so a
difference is reported together with how sure we can be of it:

- :func:`wilson_interval` — a confidence interval for a win rate. The Wilson
  score interval is used instead of the textbook ``p ± z·√(p(1-p)/n)`` because
  it stays inside [0, 1] and keeps close to its nominal coverage for small ``n``
  and for rates near 0 or 1 (a strong strategy that wins 99 % of its games).
- :func:`paired_bootstrap_ci` — a percentile bootstrap interval for the mean of
  per-game score differences. Both players play the *same* game (same cards,
  same plans), so the per-game difference removes the luck of the deal that is
  shared by both; resampling whole games keeps that pairing.
- :func:`bradley_terry` / :func:`rating_table` — one strength per player from all
  pairwise results of a multi-player field, on an Elo-like scale, with
  intervals from the observed Fisher information.
- :func:`compare_pair` — the head-to-head summary of two players.

The normal and Student t quantiles are scipy's (``scipy.special.ndtri``
and ``stdtrit``, the functions behind ``scipy.stats.norm.ppf`` and
``scipy.stats.t.ppf``), imported on first use: every ``wtsim`` command
imports this module, most without computing an interval. Two methods are
written out here, each pinned against scipy by the tests:

- the Wilson interval, because scipy's (``binomtest(k, n).proportion_ci(
  method="wilson")``) takes a whole number of successes only, and a win rate
  here counts a tie as half a win (x.5 successes);
- the percentile bootstrap, the same draws and interval as
  ``scipy.stats.bootstrap(..., method="percentile")`` with the same
  generator, because importing ``scipy.stats`` takes 0.9 s of CPU (0.2 s
  for ``scipy.special``): 0.7 s more for every command with a bootstrap
  interval, half as long again for ``wtsim compare --results``
  (benchmarks/README.md, "Hand-written code kept, and why").

Bradley–Terry is fitted here too: scipy has no such model. No I/O. Result
tables follow RECORDS.md §2: one row per player per game, with at least the
columns ``game``, ``player``, ``rank`` (1 = best, equal ranks are ties) and
``total``.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
import pandas as pd

__all__ = [
    "wilson_interval",
    "t_value",
    "mean_interval",
    "rate_interval",
    "paired_bootstrap_ci",
    "bradley_terry",
    "pairwise_wins",
    "rating_table",
    "result_counts",
    "compare_pair",
    "ELO_SCALE",
]

#: Rating points per natural-log unit of strength: rating = 400·log10(strength),
#: so a 400-point gap means 10:1 odds, exactly as in Elo.
ELO_SCALE = 400.0 / math.log(10.0)

# About this many bootstrap indices are held in memory at once (32 MB of int64
# plus the gathered values; a block is never less than one resample row).
# Results do not depend on it: see `paired_bootstrap_ci`.
_BOOTSTRAP_BLOCK_ELEMENTS = 1 << 22


def _z_value(confidence: float) -> float:
    """Two-sided standard-normal critical value, e.g. 1.959964 for 0.95
    (scipy's normal quantile, ``scipy.stats.norm.ppf``, which is ``ndtri``)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    from scipy.special import ndtri  # imported on first use: see the module docstring

    return float(ndtri(0.5 + confidence / 2.0))


# ------------------------------------------------------------------ Wilson


def wilson_interval(successes: int | float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval ``(low, high)`` for a proportion ``successes / n``.

    Why Wilson: it is the set of true rates ``p0`` that a two-sided score test
    at level ``1 - confidence`` would not reject, so it never leaves [0, 1],
    is not degenerate at 0 or ``n`` successes (0 of 10 still gives an upper
    bound of about 0.28), and its coverage is close to nominal even for a few
    dozen games — unlike the Wald interval ``p ± z·√(p(1-p)/n)``.

    ``successes`` may be fractional (a tie counted as half a win gives x.5);
    the formula only uses the observed rate. With ``n == 0`` nothing is known
    and the whole range ``(0.0, 1.0)`` is returned.
    """
    z = _z_value(confidence)
    if isinstance(n, (bool, np.bool_)) or int(n) != n or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    n = int(n)
    successes = float(successes)
    if not math.isfinite(successes) or successes < 0 or successes > n:
        raise ValueError(f"successes must lie in [0, n] = [0, {n}], got {successes!r}")
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    denominator = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denominator
    half = (z / denominator) * math.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n))
    # Exact at the edges (the formula gives them up to rounding only).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


# ------------------------------------------------------------- t interval


def t_value(confidence: float, df: int) -> float:
    """Two-sided Student t critical value, e.g. 2.262 for 0.95 and 9 degrees of freedom.

    Why t and not z: a mean over a dozen games has a wider interval than the
    normal one says. The quantile is scipy's ``scipy.stats.t.ppf``, called as
    the ``scipy.special.stdtrit`` it is made of (the same numbers, without
    importing all of scipy.stats)."""
    _z_value(confidence)  # validates confidence
    if isinstance(df, (bool, np.bool_)) or int(df) != df or df < 1:
        raise ValueError(f"degrees of freedom must be a positive integer, got {df!r}")
    from scipy.special import stdtrit

    return float(stdtrit(int(df), 0.5 + confidence / 2.0))


def mean_interval(values: Sequence[float] | np.ndarray | pd.Series,
                  confidence: float = 0.95, clip: bool = False) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean with its Student t interval.

    For game scores (bounded, many games) the t interval and the bootstrap
    agree; t is exact for normal data, needs no resampling (a million-game
    table is summarised in one pass) and is honest for a handful of games.
    With one value the bounds are NaN (nothing is known of the spread); with
    none all three are NaN. Missing values are left out. ``clip`` keeps the
    bounds between the smallest and largest value seen: for points that are
    never negative (or never positive), a mean's interval should not cross 0
    because the values are skewed."""
    array = np.asarray(values, dtype=float).ravel()
    array = array[~np.isnan(array)]
    n = array.size
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(array.mean())
    if n == 1:
        return (mean, math.nan, math.nan)
    half = t_value(confidence, n - 1) * float(array.std(ddof=1)) / math.sqrt(n)
    if clip:
        return (mean, max(mean - half, float(array.min())), min(mean + half, float(array.max())))
    return (mean, mean - half, mean + half)


def rate_interval(successes: int | float, n: int, confidence: float = 0.95) -> tuple[float, float, float]:
    """``(rate, low, high)`` with the Wilson interval; all NaN when ``n`` is 0
    (a rate of nothing is not 0)."""
    if n == 0:
        return (math.nan, math.nan, math.nan)
    low, high = wilson_interval(successes, n, confidence)
    return (float(successes) / n, low, high)


# --------------------------------------------------------------- bootstrap


def paired_bootstrap_ci(
    differences: Sequence[float] | np.ndarray | pd.Series,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int | None = 0,
) -> tuple[float, float, float]:
    """``(mean, low, high)``: the mean of paired differences and a percentile
    bootstrap interval for it.

    Why a bootstrap: score differences in Welcome To are bounded, skewed and
    sometimes bimodal (a game ends early on three refusals), so the interval is
    taken from the resampling distribution of the mean instead of assuming
    normality; for large samples it agrees with ``mean ± z·sd/√n``.

    Each resample draws ``n`` games with replacement from the ``n`` differences
    (one difference per game, so the pairing of the two players inside a game
    is kept). The indices come from ``numpy.random.Generator(PCG64(seed))``,
    drawn row after row from one stream, so the result is a pure function of
    the data and the seed — and does not depend on how the ``resamples × n``
    index matrix is cut into blocks to cap memory (the tests check this).
    These are the draws and the interval of ``scipy.stats.bootstrap(...,
    method="percentile")`` with that generator (the tests check that too);
    it is written out because importing scipy.stats would cost 0.7 s of CPU
    more in every command that shows a bootstrap interval (see the module
    docstring).
    """
    values = np.asarray(differences, dtype=float).ravel()
    if values.size == 0:
        raise ValueError("need at least one difference")
    if not np.all(np.isfinite(values)):
        raise ValueError("differences must be finite (drop missing games first)")
    _z_value(confidence)  # validates confidence
    resamples = int(resamples)
    if resamples < 1:
        raise ValueError(f"resamples must be positive, got {resamples!r}")

    n = values.size
    mean = float(values.mean())
    rng = np.random.Generator(np.random.PCG64(seed))
    means = np.empty(resamples)
    rows_per_block = max(1, _BOOTSTRAP_BLOCK_ELEMENTS // n)
    for start in range(0, resamples, rows_per_block):
        rows = min(rows_per_block, resamples - start)
        index = rng.integers(0, n, size=(rows, n))
        means[start:start + rows] = values[index].mean(axis=1)

    alpha = 1.0 - confidence
    low, high = np.quantile(means, [alpha / 2.0, 1.0 - alpha / 2.0])
    return (mean, float(low), float(high))


# ----------------------------------------------------------- Bradley–Terry


def _as_win_matrix(wins: pd.DataFrame | np.ndarray | Sequence[Sequence[float]],
                   players: Sequence[Any] | None) -> tuple[np.ndarray, pd.Index]:
    """The win counts as a float matrix with a zero diagonal, and the player labels."""
    if isinstance(wins, pd.DataFrame):
        if players is not None:
            raise ValueError("players is taken from the DataFrame index; do not pass both")
        if not wins.index.is_unique or set(wins.index) != set(wins.columns) or len(wins.columns) != len(wins.index):
            raise ValueError("the win DataFrame must have the same unique players as index and columns")
        labels = pd.Index(wins.index)
        matrix = wins.loc[labels, labels].to_numpy(dtype=float, copy=True)
    else:
        matrix = np.array(wins, dtype=float, copy=True)
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
            raise ValueError(f"the win matrix must be square, got shape {matrix.shape}")
        labels = pd.Index(range(matrix.shape[0]) if players is None else list(players))
        if len(labels) != matrix.shape[0] or not labels.is_unique:
            raise ValueError("players must be unique and match the matrix size")
    np.fill_diagonal(matrix, 0.0)  # a player never plays itself; ignore whatever is there
    if not np.all(np.isfinite(matrix)) or np.any(matrix < 0):
        raise ValueError("win counts must be finite and non-negative")
    if matrix.shape[0] < 2:
        raise ValueError("Bradley–Terry needs at least two players")
    return matrix, labels


def _reachable(adjacency: np.ndarray, start: int = 0) -> np.ndarray:
    """Nodes reachable from `start` along directed edges (breadth-first)."""
    seen = np.zeros(adjacency.shape[0], dtype=bool)
    seen[start] = True
    frontier = seen.copy()
    while frontier.any():
        nxt = adjacency[frontier].any(axis=0) & ~seen
        seen |= nxt
        frontier = nxt
    return seen


def _check_estimable(matrix: np.ndarray, labels: pd.Index) -> None:
    """Raise unless the maximum-likelihood strengths exist (are finite).

    Hunter (2004), assumption 1: for every split of the players into two
    groups, someone in each group beat someone in the other. Otherwise the
    likelihood keeps growing as one group's strengths run off to infinity.
    That is strong connectivity of the "i beat j" graph."""
    beat = matrix > 0
    for adjacency, verb in ((beat, "beat"), (beat.T, "lost to")):
        seen = _reachable(adjacency)
        if not seen.all():
            inside = [str(p) for p in labels[seen]]
            outside = [str(p) for p in labels[~seen]]
            raise ValueError(
                "Bradley–Terry strengths are not estimable (the maximum-likelihood "
                f"estimate is infinite): no player in {inside} ever {verb} a player in "
                f"{outside}. Play more games between these groups (ties count as half "
                "a win each way)."
            )


def _win_probability(theta: np.ndarray) -> np.ndarray:
    """P[i, j] = P(i beats j) = s_i / (s_i + s_j) with s = exp(theta), overflow-free."""
    diff = theta[:, None] - theta[None, :]
    return 0.5 * (1.0 + np.tanh(0.5 * diff))


def _log_likelihood(theta: np.ndarray, matrix: np.ndarray) -> float:
    diff = theta[:, None] - theta[None, :]
    return float(-(matrix * np.logaddexp(0.0, -diff)).sum())


def _fit_log_strengths(matrix: np.ndarray, tol: float, max_iter: int) -> np.ndarray:
    """Mean-zero log-strengths maximising the Bradley–Terry likelihood.

    Newton's method with backtracking: the log-likelihood is concave in the
    log-strengths and, once one parameter is pinned, strictly concave when
    the strengths are estimable, so damped Newton converges from zero in a
    handful of steps (Hunter's MM algorithm converges too, but only linearly
    and very slowly when strengths are far apart)."""
    k = matrix.shape[0]
    total = matrix + matrix.T
    wins = matrix.sum(axis=1)
    scale = np.maximum(total.sum(axis=1), 1.0)
    theta = np.zeros(k)
    loglik = _log_likelihood(theta, matrix)
    for _ in range(max_iter):
        p = _win_probability(theta)
        gradient = wins - (total * p).sum(axis=1)
        if np.max(np.abs(gradient) / scale) <= tol:
            return theta - theta.mean()
        weights = total * p * p.T
        laplacian = np.diag(weights.sum(axis=1)) - weights  # = -Hessian
        step = np.zeros(k)
        # Pin player 0 (the likelihood only sees differences) and solve.
        step[1:] = np.linalg.solve(laplacian[1:, 1:], gradient[1:])
        slope = float(gradient @ step)
        t = 1.0
        while True:
            candidate = theta + t * step
            value = _log_likelihood(candidate, matrix)
            if value >= loglik + 1e-4 * t * slope or t < 1e-12:
                break
            t *= 0.5
        theta = candidate - candidate.mean()
        if value <= loglik and t < 1e-12:
            break  # no further progress possible in floating point
        loglik = value
    p = _win_probability(theta)
    gradient = wins - (total * p).sum(axis=1)
    if np.max(np.abs(gradient) / scale) <= max(tol, 1e-8):
        return theta
    raise RuntimeError("Bradley–Terry fit did not converge")


def bradley_terry(
    wins: pd.DataFrame | np.ndarray | Sequence[Sequence[float]],
    players: Sequence[Any] | None = None,
    confidence: float = 0.95,
    tol: float = 1e-12,
    max_iter: int = 200,
) -> pd.DataFrame:
    """Bradley–Terry strengths by maximum likelihood from a pairwise win matrix.

    ``wins[i, j]`` is the number of pairwise results in which player ``i`` beat
    player ``j`` (a tie adds 0.5 to both ``wins[i, j]`` and ``wins[j, i]``); the
    diagonal is ignored. Pass a square DataFrame with the players as index and
    columns, or a 2-D array plus ``players`` (default: 0..k-1).

    Why Bradley–Terry: in 3-5 player games a single win rate mixes up who the
    opponents were; the model P(i beats j) = s_i / (s_i + s_j) turns every
    pairwise result of every game into one strength per player, comparable
    across fields.

    Returns a DataFrame indexed by player, in input order, with columns

    - ``rating``: 400·log10(strength), mean 0 over the players — Elo-like, so a
      gap of D points means P(win) = 1 / (1 + 10^(-D/400));
    - ``rating_low`` / ``rating_high``: the ``confidence`` interval
      ``rating ± z·rating_se``;
    - ``rating_se``: standard error from the observed Fisher information (the
      negative Hessian of the log-likelihood). That matrix is singular along
      "add a constant to every log-strength"; its Moore–Penrose pseudo-inverse
      is exactly the covariance under the mean-zero constraint, so each
      interval is for a player's rating *relative to the field average*;
    - ``strength``: exp of the log-strength, geometric mean 1;
    - ``comparisons``: pairwise results the player took part in (integers
      when the matrix holds whole results, as a tie adds 0.5 each way).

    Raises ``ValueError`` when the estimate would be infinite (some group of
    players never lost, or never won, against the rest) — see Hunter (2004),
    "MM algorithms for generalized Bradley–Terry models", Ann. Statist. 32.
    """
    matrix, labels = _as_win_matrix(wins, players)
    z = _z_value(confidence)
    _check_estimable(matrix, labels)
    theta = _fit_log_strengths(matrix, tol, max_iter)

    total = matrix + matrix.T
    p = _win_probability(theta)
    weights = total * p * p.T
    information = np.diag(weights.sum(axis=1)) - weights
    covariance = np.linalg.pinv(information, hermitian=True)
    se = ELO_SCALE * np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    rating = ELO_SCALE * theta
    results = total.sum(axis=1)
    whole = bool(np.all(results == np.rint(results)))
    return pd.DataFrame(
        {
            "rating": rating,
            "rating_low": rating - z * se,
            "rating_high": rating + z * se,
            "rating_se": se,
            "strength": np.exp(theta),
            "comparisons": results.astype(np.int64) if whole else results,
        },
        index=labels.rename("player"),
    )


def _check_results(frame: pd.DataFrame, columns: Sequence[str]) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"result table lacks column(s) {missing}")
    if frame.duplicated(["game", "player"]).any():
        raise ValueError("a player appears twice in the same game")


def pairwise_wins(frame: pd.DataFrame) -> pd.DataFrame:
    """Pairwise win matrix ``W[i, j]`` from a result table (columns game, player, rank).

    In a game of k players each of the k(k-1)/2 pairs gives one result: the
    lower rank wins, equal ranks are a tie worth half a win to each. Players
    appear in order of first appearance; solo games add nothing."""
    _check_results(frame, ["game", "player", "rank"])
    players = pd.Index(pd.unique(frame["player"]), name="player")
    table = frame[["game", "player", "rank"]]
    pairs = table.merge(table, on="game", suffixes=("", "_other"))
    pairs = pairs[pairs["player"] != pairs["player_other"]]
    score = (pairs["rank"] < pairs["rank_other"]) + 0.5 * (pairs["rank"] == pairs["rank_other"])
    counts = score.groupby([pairs["player"], pairs["player_other"]]).sum()
    matrix = counts.unstack(fill_value=0.0).reindex(index=players, columns=players, fill_value=0.0)
    matrix = matrix.astype(float)
    matrix.columns.name = "opponent"
    return matrix


def result_counts(wins: pd.DataFrame) -> pd.Series:
    """Per player, the pairwise results it took part in, as integers: a win
    matrix from :func:`pairwise_wins` holds whole results (a tie is half a
    win each way), so each row plus column sums to a whole number."""
    total = wins.to_numpy(dtype=float) + wins.to_numpy(dtype=float).T
    return pd.Series(np.rint(total.sum(axis=1)).astype(np.int64), index=wins.index, name="comparisons")


def rating_table(frame: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Bradley–Terry ratings (see :func:`bradley_terry`) of the players of a
    result table, best first.

    Every game contributes one pairwise result per pair of players in it, so a
    4-player game counts six times; the intervals therefore treat the pairs of
    one game as independent, which somewhat understates the uncertainty for
    multi-player games (they are exact in the model for 2-player games)."""
    wins = pairwise_wins(frame)
    ratings = bradley_terry(wins, confidence=confidence)
    ratings["comparisons"] = result_counts(wins)
    return ratings.sort_values("rating", ascending=False, kind="stable")


# ------------------------------------------------------------ head to head


def compare_pair(
    frame: pd.DataFrame,
    a: Any,
    b: Any,
    confidence: float = 0.95,
    resamples: int = 2000,
    seed: int | None = 0,
) -> dict[str, Any]:
    """Head-to-head summary of players ``a`` and ``b`` over the games both played.

    Why both measures: the win rate answers "who finishes ahead more often",
    the score difference "by how much"; a strategy can win narrowly and often
    yet lose big when it loses. Both are paired per game, so the shared luck of
    the deal cancels.

    Returns a dict with

    - ``a``, ``b``, ``games``: the players and the number of shared games;
    - ``wins``: a's pairwise wins against b (a tie counts 0.5);
    - ``win_rate``, ``win_low``, ``win_high``: ``wins / games`` with its Wilson
      interval; ``win_significant``: the interval excludes 0.5;
    - ``a_mean``, ``b_mean``: mean totals in the shared games;
    - ``mean_diff``, ``diff_low``, ``diff_high``: mean of total(a) - total(b)
      per game with its paired bootstrap interval (games in ``game`` order);
      ``significant``: that interval excludes 0.
    """
    _check_results(frame, ["game", "player", "rank", "total"])
    if a == b:
        raise ValueError("compare_pair needs two different players")
    for name in (a, b):
        if not (frame["player"] == name).any():
            raise ValueError(f"player {name!r} is not in the result table")
    left = frame.loc[frame["player"] == a, ["game", "rank", "total"]]
    right = frame.loc[frame["player"] == b, ["game", "rank", "total"]]
    both = left.merge(right, on="game", suffixes=("_a", "_b")).sort_values("game", kind="stable")
    games = len(both)
    if games == 0:
        raise ValueError(f"players {a!r} and {b!r} never played the same game")

    rank_a = both["rank_a"].to_numpy()
    rank_b = both["rank_b"].to_numpy()
    wins = float((rank_a < rank_b).sum() + 0.5 * (rank_a == rank_b).sum())
    win_low, win_high = wilson_interval(wins, games, confidence)
    differences = both["total_a"].to_numpy(dtype=float) - both["total_b"].to_numpy(dtype=float)
    mean_diff, diff_low, diff_high = paired_bootstrap_ci(differences, confidence, resamples, seed)
    return {
        "a": a,
        "b": b,
        "games": games,
        "wins": wins,
        "win_rate": wins / games,
        "win_low": win_low,
        "win_high": win_high,
        "win_significant": bool(win_low > 0.5 or win_high < 0.5),
        "a_mean": float(both["total_a"].mean()),
        "b_mean": float(both["total_b"].mean()),
        "mean_diff": mean_diff,
        "diff_low": diff_low,
        "diff_high": diff_high,
        "significant": bool(diff_low > 0.0 or diff_high < 0.0),
    }
