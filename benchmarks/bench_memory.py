"""Peak memory of a long `wtsim run`: the parent process alone and the whole
process tree (parent plus workers), sampled with psutil.

    python benchmarks/bench_memory.py --games 100000 --jobs 2 --summary
    python benchmarks/bench_memory.py --games 1000000 --jobs 2 --report-every 120
    python benchmarks/bench_memory.py --games 1000000 --assemble-only --summary

Plays a copy of configs/base.yaml with both seats random (`--quiet`, so the
run itself is measured; `--summary` also prints the summary tables at the
end, which read the needed columns of the result table back). Prints the
game count, wall time, the parent's peak RSS, the tree's peak RSS (sum over
live processes at each sample) and the largest single worker.

`--assemble-only` measures the end of a run without playing it: it starts a
real run of GAMES games (chunks of 250), kills it once its first chunk is on
disk, copies that chunk into every other chunk's place (game numbers
shifted), and measures `wtsim run --resume`, which then only assembles the
final table (and prints the summary with `--summary`). Playing is the same
per chunk whatever the game count; this is the part that sees every row.

Needs psutil (`pip install psutil`; it comes with the [dask] extra).
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd
import psutil

CONFIG = "name: memory\nplayers: [random, {strategy: random, name: random-b}]\n"
CHUNK = 250
MB = 1024 * 1024


def sample(process: psutil.Process) -> tuple[int, int, int]:
    """RSS of the parent, of the whole tree, and of the largest child, in bytes."""
    try:
        parent = process.memory_info().rss
        children = []
        for child in process.children(recursive=True):
            try:
                children.append(child.memory_info().rss)
            except psutil.Error:
                continue
    except psutil.Error:
        return 0, 0, 0
    return parent, parent + sum(children), max(children, default=0)


def games_on_disk(run: Path) -> int:
    """Games in the finished chunks (chunks/<start>-<stop>.*)."""
    chunks = run / "chunks"
    if not chunks.is_dir():
        return 0
    bounds = {p.name.split(".")[0] for p in chunks.iterdir() if not p.name.startswith(".")}
    return sum(int(stop) - int(start) for start, stop in (b.split("-") for b in bounds))


def watch(command: list[str], run: Path, interval: float, report_every: float | None) -> dict:
    """Run `command`, sampling the RSS of its process tree until it exits."""
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    watched = psutil.Process(proc.pid)
    peak_parent = peak_tree = peak_worker = 0
    last_report = started
    while proc.poll() is None:
        parent, tree, worker = sample(watched)
        peak_parent, peak_tree, peak_worker = (max(peak_parent, parent), max(peak_tree, tree),
                                               max(peak_worker, worker))
        if report_every and time.perf_counter() - last_report >= report_every:
            last_report = time.perf_counter()
            print(f"  {last_report - started:.0f} s: {games_on_disk(run)} games on disk, "
                  f"RSS now parent {parent / MB:.0f} MB, tree {tree / MB:.0f} MB; peaks so far "
                  f"{peak_parent / MB:.0f} / {peak_tree / MB:.0f} MB", flush=True)
        time.sleep(interval)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command[2:5])} exited with {proc.returncode}")
    table = next(run.glob("results.*"))
    return {"seconds": time.perf_counter() - started, "parent_mb": peak_parent / MB,
            "tree_mb": peak_tree / MB, "worker_mb": peak_worker / MB, "table_mb": table.stat().st_size / MB}


def wtsim(*args: str) -> list[str]:
    return [sys.executable, "-m", "welcometo_sim.cli", *args]


def fabricate_unfinished_run(folder: Path, run: Path, games: int) -> None:
    """A real run folder of `games` games whose every chunk is on disk but not assembled."""
    config = folder / "memory.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    proc = subprocess.Popen(wtsim("run", str(config), "--games", str(games), "--seed", "1", "--jobs", "1",
                                  "--chunk-size", str(CHUNK), "--out", str(run), "--quiet"))
    width = len(str(games))
    first = run / "chunks" / f"{0:0{width}d}-{CHUNK:0{width}d}.parquet"
    while not first.is_file():
        if proc.poll() is not None:
            raise SystemExit("the run ended before its first chunk was written")
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    frame = pd.read_parquet(first)
    for start in range(CHUNK, games, CHUNK):
        stop = min(start + CHUNK, games)
        shifted = frame[frame["game"] < stop - start].assign(game=lambda f: f["game"] + start)
        shifted.to_parquet(run / "chunks" / f"{start:0{width}d}-{stop:0{width}d}.parquet", index=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--summary", action="store_true", help="print the summary tables too (not --quiet)")
    parser.add_argument("--assemble-only", action="store_true", help="measure only the final assembly")
    parser.add_argument("--interval", type=float, default=0.2, help="seconds between samples")
    parser.add_argument("--report-every", type=float, help="also print the figures so far every N seconds")
    args = parser.parse_args()
    quiet = [] if args.summary else ["--quiet"]
    with tempfile.TemporaryDirectory() as tmp:
        folder, run = Path(tmp), Path(tmp) / "run"
        if args.assemble_only:
            fabricate_unfinished_run(folder, run, args.games)
            what = f"assembly of {args.games} random 2-player games (wtsim run --resume)"
            r = watch(wtsim("run", "--resume", str(run), *quiet), run, args.interval, args.report_every)
        else:
            (folder / "memory.yaml").write_text(CONFIG, encoding="utf-8")
            what = f"{args.games} random 2-player games, --jobs {args.jobs}"
            r = watch(wtsim("run", str(folder / "memory.yaml"), "--games", str(args.games), "--seed", "1",
                            "--jobs", str(args.jobs), "--out", str(run), *quiet),
                      run, args.interval, args.report_every)
    print(f"{what}{' with summary' if args.summary else ''}: {r['seconds']:.0f} s, peak RSS parent "
          f"{r['parent_mb']:.0f} MB, process tree {r['tree_mb']:.0f} MB, largest worker {r['worker_mb']:.0f} MB; "
          f"result table {r['table_mb']:.1f} MB on disk")


if __name__ == "__main__":
    main()
