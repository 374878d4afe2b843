"""Peak memory of a long `wtsim run`: the parent process alone and the whole
process tree (parent plus workers), sampled with psutil.

    python benchmarks/bench_memory.py --games 100000 --jobs 2
    python benchmarks/bench_memory.py --games 1000000 --jobs 2 --summary

Plays a copy of configs/base.yaml with both seats random (`--quiet`, so the
run itself is measured; `--summary` also prints the summary tables at the
end, which read the needed columns of the result table back). Prints the
game count, wall time, the parent's peak RSS, the tree's peak RSS (sum over
live processes at each sample) and the largest single worker. Needs psutil
(`pip install psutil`; it comes with the [dask] extra).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

CONFIG = "name: memory\nplayers: [random, {strategy: random, name: random-b}]\n"
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
    """Games in the finished chunks (chunks/<start>-<stop>.*), all of them once the run is assembled."""
    chunks = run / "chunks"
    if not chunks.is_dir():
        return 0
    bounds = {p.name.split(".")[0] for p in chunks.iterdir() if not p.name.startswith(".")}
    return sum(int(stop) - int(start) for start, stop in (b.split("-") for b in bounds))


def measure(games: int, jobs: int, summary: bool, interval: float, report_every: float | None) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "memory.yaml"
        config.write_text(CONFIG, encoding="utf-8")
        command = [sys.executable, "-m", "welcometo_sim.cli", "run", str(config), "--games", str(games),
                   "--seed", "1", "--jobs", str(jobs), "--out", str(Path(folder) / "run")]
        if not summary:
            command.append("--quiet")
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
                print(f"  {last_report - started:.0f} s: {games_on_disk(Path(folder) / 'run')} games on disk, "
                      f"RSS now parent {parent / MB:.0f} MB, tree {tree / MB:.0f} MB; peaks so far "
                      f"{peak_parent / MB:.0f} / {peak_tree / MB:.0f} MB", flush=True)
            time.sleep(interval)
        seconds = time.perf_counter() - started
        if proc.returncode != 0:
            raise SystemExit(f"wtsim run exited with {proc.returncode}")
        table = next((Path(folder) / "run").glob("results.*"))
        return {"games": games, "jobs": jobs, "seconds": seconds, "parent_mb": peak_parent / MB,
                "tree_mb": peak_tree / MB, "worker_mb": peak_worker / MB, "table_mb": table.stat().st_size / MB}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--summary", action="store_true", help="print the summary tables too (not --quiet)")
    parser.add_argument("--interval", type=float, default=0.2, help="seconds between samples")
    parser.add_argument("--report-every", type=float, help="also print the figures so far every N seconds")
    args = parser.parse_args()
    r = measure(args.games, args.jobs, args.summary, args.interval, args.report_every)
    print(f"{r['games']} random 2-player games, --jobs {r['jobs']}{' with summary' if args.summary else ''}: "
          f"{r['seconds']:.0f} s, peak RSS parent {r['parent_mb']:.0f} MB, process tree {r['tree_mb']:.0f} MB, "
          f"largest worker {r['worker_mb']:.0f} MB; result table {r['table_mb']:.1f} MB on disk")


if __name__ == "__main__":
    main()
