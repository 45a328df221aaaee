#!/usr/bin/env python3
"""SPIN's verifier against `dvemc explore` (DFS and BFS), alternating, in one
run, on the BEEM instances whose Promela translation has the same state
space as the DVE model. Writes results/spin-compare.csv.

SPIN runs as an exhaustive safety search without partial-order reduction:
    spin -a M.pm; gcc -O2 -DSAFETY -DNOREDUCE -DMEMLIM=20000 -o pan pan.c
    ./pan -m<depth> -c0 -n -E -w<log2 of the table size>
with -m raised until no run reports "max search depth too small".

dvemc's bytes per state count everything the search allocates (the visited
set and the DFS stack with its kept successor lists), as SPIN's "total
actual memory usage" does.

With --store STORE dvemc keeps its visited states in that store (tree,
ctree: the compressed stores of `explore --store`; exact by default), so
that the compressed stores' speed and memory are set against SPIN's; the
ctree store is breadth-first only, so with it only BFS runs.

With --baseline FILE the geometric mean of the speed ratios (dvemc states
per second over SPIN's) of each strategy is compared with FILE (written by
--write-baseline): the run fails when one falls more than 30 % below it
(used by `make check-regressions` where SPIN is installed).

Usage: bench_spin.py [--beem DIR] [--dvemc PATH] [--out FILE] [--reps N]
                     [--store STORE]
                     [--baseline FILE | --write-baseline FILE] [INSTANCE...]
"""
import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

DEFAULT = ["at.4", "fischer.6", "elevator2.3", "phils.6", "hanoi.3", "frogs.4", "anderson.6"]


def run_spin(pm, workdir, expected_states, reduce=False, timeout=None):
    """pan's figures on `pm`; with `reduce`, SPIN's partial-order reduction
    on (no -DNOREDUCE). `timeout` (seconds) raises subprocess.TimeoutExpired."""
    src = os.path.join(workdir, os.path.basename(pm))
    shutil.copy(pm, src)
    subprocess.run(["spin", "-a", os.path.basename(src)], cwd=workdir, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.time()
    flags = ["-DSAFETY", "-DMEMLIM=20000"] + ([] if reduce else ["-DNOREDUCE"])
    subprocess.run(["gcc", "-O2", *flags, "-o", "pan", "pan.c"], cwd=workdir, check=True)
    gcc_s = time.time() - t0
    w = max(10, math.ceil(math.log2(max(expected_states, 1) * 2)))
    pan = run_pan(workdir, ["-c0", "-n", "-E", f"-w{w}"], timeout=timeout)
    pan["gcc_seconds"] = gcc_s
    return pan


def run_pan(workdir, args, prefix=(), depth=100000, timeout=None):
    """Runs ./pan in WORKDIR with ARGS (after PREFIX, e.g. nice), -m DEPTH
    raised until no run reports "max search depth too small"; its counters.
    `timeout` (seconds) raises subprocess.TimeoutExpired."""
    while True:
        t0 = time.time()
        out = subprocess.run([*prefix, "/usr/bin/time", "-f", "MAXRSS %M", "./pan", f"-m{depth}", *args],
                             cwd=workdir, capture_output=True, text=True, timeout=timeout)
        wall = time.time() - t0
        text = out.stdout + out.stderr
        # (124: stopped by a `timeout` in PREFIX, not run again.)
        if "max search depth too small" in text and out.returncode != 124:
            depth *= 4
            continue
        break
    def num(pattern, cast=float):
        m = re.search(pattern, text)
        return cast(m.group(1)) if m else None
    states = num(r"([0-9]+) states, stored", int)
    # "stored+matched", or with -a "visited+matched" (visits of both searches).
    transitions = num(r"([0-9]+) transitions \(=", int)
    secs = num(r"pan: elapsed time ([0-9.e+-]+) seconds") or wall
    mem_mb = num(r"([0-9.]+)\s+total actual memory usage")
    rss_kb = num(r"MAXRSS ([0-9]+)", int)
    return {
        "states": states, "transitions": transitions, "seconds": secs,
        "visited": num(r"states, stored \(([0-9]+) visited\)", int) or states,
        "peak_bytes": (rss_kb or 0) * 1024, "memory_bytes": (mem_mb or 0) * 1024 * 1024,
        "depth_limit": depth, "output": text,
    }


def run_dvemc(dvemc, model, strategy, store):
    # One thread, as SPIN's verifier here (DVEMC_THREADS: explore's default).
    out = subprocess.run([dvemc, "explore", model, "--strategy", strategy, "--store", store, "--json"],
                         env={**os.environ, "DVEMC_THREADS": "1"},
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"dvemc failed on {model}: {out.stderr}")
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--beem", default=os.environ.get("BEEM_DIR", "../shared/beem"))
    ap.add_argument("--dvemc", default="./target/release/dvemc")
    ap.add_argument("--out", default="results/spin-compare.csv")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--store", default="exact", help="dvemc's visited set (explore --store): exact, tree, ctree")
    ap.add_argument("--baseline", help="fail if a strategy's geometric mean ratio is 30%% below this file's")
    ap.add_argument("--write-baseline", help="write the geometric mean ratios to this file")
    ap.add_argument("instances", nargs="*", default=DEFAULT)
    a = ap.parse_args()
    if not shutil.which("spin"):
        sys.exit("spin is not installed (apt-get install spin)")
    strategies = ["bfs"] if a.store == "ctree" else ["dfs", "bfs"]
    rows = []
    for inst in a.instances:
        pm = os.path.join(a.beem, "promela", inst + ".pm")
        model = os.path.join(a.beem, "dve", inst + ".dve")
        for rep in range(a.reps):
            with tempfile.TemporaryDirectory() as wd:
                # Alternate the tools so machine noise hits both alike.
                # (SPIN's table is sized by the first run's states.)
                first, *rest = strategies
                runs = [(first, run_dvemc(a.dvemc, model, first, a.store))]
                spin = run_spin(pm, wd, runs[0][1]["states"])
                runs += [(s, run_dvemc(a.dvemc, model, s, a.store)) for s in rest]
            for name, d in runs:
                spin_rate = spin["states"] / spin["seconds"] if spin["seconds"] else 0
                rate = d["states_per_s"]
                rows.append({
                    "instance": inst, "rep": rep, "dvemc_strategy": name, "dvemc_store": a.store,
                    "dvemc_backend": d.get("backend"),
                    "spin_states": spin["states"], "dvemc_states": d["states"],
                    "spin_transitions": spin["transitions"], "dvemc_transitions": d["transitions"],
                    "spin_seconds": round(spin["seconds"], 3), "dvemc_seconds": round(d["time_s"], 3),
                    "spin_states_per_s": round(spin_rate), "dvemc_states_per_s": round(rate),
                    "spin_bytes_per_state": round(spin["memory_bytes"] / spin["states"], 1) if spin["states"] else "",
                    "dvemc_bytes_per_state": round((d["store_bytes"] + d["frontier_bytes"]) / d["states"], 1),
                    "spin_peak_bytes": spin["peak_bytes"], "dvemc_peak_bytes": d["peak_rss_bytes"],
                    "speed_ratio": round(rate / spin_rate, 3) if spin_rate else "",
                    "spin_gcc_seconds": round(spin["gcc_seconds"], 2), "dvemc_compile_ms": d.get("compile_ms"),
                })
                print(f"{inst:<12} {name}: dvemc {rate/1e6:6.2f} M/s  spin {spin_rate/1e6:6.2f} M/s  "
                      f"ratio {rows[-1]['speed_ratio']}  states {d['states']} / {spin['states']}", flush=True)
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    tmp = a.out + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, a.out)
    means = {}
    for name in ("dfs", "bfs"):
        ratios = [r["speed_ratio"] for r in rows if r["dvemc_strategy"] == name and r["speed_ratio"]]
        if ratios:
            means[name] = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
            print(f"geometric mean speed ratio dvemc {name} / spin: {means[name]:.2f}")
    print(f"report: {a.out}")
    if a.write_baseline:
        with open(a.write_baseline, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["strategy", "geomean_speed_ratio", "instances"])
            for name, g in means.items():
                w.writerow([name, round(g, 3), " ".join(a.instances)])
        print(f"baseline: {a.write_baseline}")
    if a.baseline:
        with open(a.baseline, newline="") as f:
            base = {r["strategy"]: float(r["geomean_speed_ratio"]) for r in csv.DictReader(f)}
        failed = False
        for name, b in base.items():
            g = means.get(name)
            ok = g is not None and g >= 0.7 * b
            failed |= not ok
            print(f"speed ratio dvemc {name} / spin: {g if g is None else round(g, 2)} "
                  f"(baseline {b:.2f}, floor {0.7 * b:.2f}) {'ok' if ok else 'REGRESSION'}")
        if failed:
            sys.exit(1)


if __name__ == "__main__":
    main()
