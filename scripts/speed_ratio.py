#!/usr/bin/env python3
"""Same-run speed ratio of two dvemc builds (new / old states per second).

Runs `explore --json` of both builds on each instance and search order,
interleaved (old, new, new, old, ...) so that the machine's load affects
both alike, and prints the median states/s of each and their ratio, then
the geometric mean of the ratios. Counters must be equal (the script says
so when they are not).

    python3 scripts/speed_ratio.py OLD_DVEMC NEW_DVEMC [--reps 3] [INSTANCE ...]

With --old-args/--new-args the two sides may be one build run two ways,
e.g. the parallel speed-up (also printing bytes per state, new / old):

    python3 scripts/speed_ratio.py D D --strategies bfs --old-args="--threads 1" --new-args="--threads 2"
"""
import argparse
import json
import math
import statistics
import os
import subprocess

DEFAULT = ["at.4", "fischer.6", "elevator2.3", "phils.6", "hanoi.3", "frogs.4", "anderson.6"]


def run(exe, inst, strategy, extra):
    out = subprocess.run([exe, "explore", inst, "--strategy", strategy, "--json"] + extra,
                         env={**os.environ, "DVEMC_THREADS": "1"},
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("instances", nargs="*", default=DEFAULT)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--strategies", default="bfs,dfs")
    ap.add_argument("--old-args", default="", help="extra explore options of the old side")
    ap.add_argument("--new-args", default="", help="extra explore options of the new side")
    a = ap.parse_args()
    extra = {"old": a.old_args.split(), "new": a.new_args.split()}
    ratios = {}
    for strategy in a.strategies.split(","):
        for inst in a.instances:
            rates = {"old": [], "new": []}
            counts = {}
            bps = {}
            for rep in range(a.reps):
                # Each side first in every other pair: the run after
                # another is often the faster (pages the last one freed).
                sides = (("old", a.old), ("new", a.new))
                for which, exe in sides if rep % 2 == 0 else sides[::-1]:
                    d = run(exe, inst, strategy, extra[which])
                    rates[which].append(d["states"] / d["time_s"])
                    counts[which] = (d["states"], d["transitions"])
                    bps[which] = d["bytes_per_state"]
            old, new = statistics.median(rates["old"]), statistics.median(rates["new"])
            r = new / old
            ratios.setdefault(strategy, []).append(r)
            same = "" if counts["old"] == counts["new"] else f"  COUNTERS DIFFER {counts}"
            print(f"{strategy:4} {inst:14} old {old/1e6:6.2f} M/s  new {new/1e6:6.2f} M/s  new/old {r:5.3f}  bytes/state {bps['new'] / bps['old']:5.3f}{same}",
                  flush=True)
    for strategy, rs in ratios.items():
        g = math.exp(sum(math.log(x) for x in rs) / len(rs))
        print(f"{strategy}: geometric mean new/old {g:.3f} over {len(rs)} instances (min {min(rs):.3f})")


if __name__ == "__main__":
    main()
