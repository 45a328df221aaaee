#!/usr/bin/env python3
"""Partial-order reduction over the census: for every instance the census
(results/census/beem-census.csv) explored to its end, up to --max-states
states, `dvemc explore INSTANCE --threads 1` and the same with `--por`
(breadth-first, exact store, deadlocks only: no goal, so no visible
transition and no proviso), one after the other in one run; beside them,
where BEEM has a Promela translation with at most --spin-max-states states,
SPIN's verifier compiled with and without -DNOREDUCE (scripts/bench_spin.py
says how it is run).

Writes --out (CSV, one row per instance) and --table (markdown: the summary
the issue asks for, then every instance). A reduced search that loses or
adds a deadlock state count fails the run: the counts are compared.

With --attribute PATH (the example por_without_errors, built by `cargo build
--release --example por_without_errors`) and --ltsmin, every instance where
dvemc keeps more states than LTSmin is also reduced as if no step could err,
as LTSmin's DVE front end assumes (it has no error state): the columns
states_without_errors and why say whether preserving run-time errors
accounts for the difference (the markdown puts the why beside the count).

With --ltsmin DIR, LTSmin runs beside dvemc on each instance, right after
dvemc's two searches: DIR is LTSmin's build directory, or any directory with
the two binaries `divine` and `dve2lts-mc` under it. LTSmin is optional and
never built here (CI does not need it): build it outside the repository by
the recipe in ../shared/anchors/ltsmin/BUILD.md (LTSmin 3.0.2 and the
LTSmin group's DiVinE 2.4 fork, Debian packages only). Each instance is
compiled once with `divine compile -l` into a temporary directory, then
explored by `dve2lts-mc --threads=1 --strategy=bfs --size=N --ratio=0` (N:
log2 of a store at most a quarter full, its node table as large; a run that
fills the store is repeated in one four times larger) without reduction,
with `--por=heur` (within
--timeout) and with `--por=del` (within --ltsmin-del-timeout: the deletion
algorithm can be far slower). Times are LTSmin's "Total exploration time",
loading the model left out. The CSV then has the columns ltsmin_full_states,
ltsmin_full_s, ltsmin_heur_states, ltsmin_heur_s, ltsmin_del_states,
ltsmin_del_s, ltsmin_por_states and ltsmin_por_s (the smaller of the heur
and del counts, and its run's time), vs_ltsmin (dvemc's reduced states over
ltsmin_por_states) and ltsmin_note (runs over the time limit or failed, and
a full count that differs from dvemc's), and the markdown a second table,
dvemc beside LTSmin, saying where dvemc keeps more states. Without --ltsmin
the CSV's columns and the markdown are the same as before it existed: the
LTSmin columns are added only with it.

Usage: bench_por.py [--beem DIR] [--dvemc PATH] [--census FILE]
                    [--max-states N] [--spin-max-states N] [--timeout S]
                    [--ltsmin DIR] [--ltsmin-del-timeout S]
                    [--attribute PATH] [--out FILE] [--table FILE] [--resume]
                    [INSTANCE...]
"""
import argparse
import csv
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_ltsmin  # noqa: E402
from bench_spin import run_spin  # noqa: E402

COLUMNS = [
    "instance", "family", "full_states", "full_transitions", "full_deadlocks", "full_s",
    "por_states", "por_transitions", "por_deadlocks", "por_s", "states_ratio",
    "transitions_ratio", "full_share", "select_s", "time_ratio",
    "spin_full_states", "spin_full_s", "spin_por_states", "spin_por_s", "spin_states_ratio",
    "processes", "groups", "groups_may_err",
]
ATTRIBUTE_COLUMNS = ["states_without_errors", "why"]
LTSMIN_COLUMNS = [
    "ltsmin_full_states", "ltsmin_full_s", "ltsmin_heur_states", "ltsmin_heur_s",
    "ltsmin_del_states", "ltsmin_del_s", "ltsmin_por_states", "ltsmin_por_s", "vs_ltsmin",
    "ltsmin_note",
]


def structure(dvemc, beem, instance):
    """The processes, transition groups and groups that may err, which
    bound what the reduction can do: from `dvemc check` and a `--por` run
    stopped at its first state."""
    model = os.path.join(beem, "dve", instance + ".dve")
    line = subprocess.run([dvemc, "check", model], capture_output=True, text=True, check=True).stdout
    processes = int(line.split("ok: ")[1].split(" process")[0])
    out = subprocess.run([dvemc, "explore", model, "--por", "--threads", "1", "--max-states", "1", "--json"],
                         capture_output=True, text=True)
    rec = json.loads(out.stdout)
    return dict(processes=processes, groups=rec["por_groups"], groups_may_err=rec["por_groups_may_err"])


def explore(dvemc, beem, instance, por, timeout):
    args = [dvemc, "explore", os.path.join(beem, "dve", instance + ".dve"), "--threads", "1", "--json"]
    if por:
        args.append("--por")
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode not in (0, 1):
        raise SystemExit(f"dvemc failed on {instance}: {out.stderr}")
    return json.loads(out.stdout)


def spin(pm, expected, reduce, timeout):
    with tempfile.TemporaryDirectory() as wd:
        try:
            return run_spin(pm, wd, expected, reduce=reduce, timeout=timeout)
        except (subprocess.TimeoutExpired, subprocess.CalledProcessError):
            # Over the time limit, or a translation SPIN does not take.
            return None


def attribute(example, beem, r):
    """`states_without_errors` and `why` for a row where dvemc keeps more
    states than LTSmin (bench_ltsmin.why)."""
    if r.get("vs_ltsmin", "") == "" or r["por_states"] <= r["ltsmin_por_states"]:
        r["why"] = ""
        return
    if r.get("states_without_errors", "") == "":
        out = subprocess.run([example, os.path.join(beem, "dve", r["instance"] + ".dve")],
                             capture_output=True, text=True, check=True).stdout
        got = json.loads(out)
        if got["complete"] and got["states"] != r["por_states"]:
            raise SystemExit(f"{r['instance']}: {got['states']} reduced states, {r['por_states']} in the row")
        r["states_without_errors"] = got["states_without_errors"] if got["complete"] else ""
    r["why"] = bench_ltsmin.why(r)


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def summary(rows):
    done = [r for r in rows if r["por_states"] != ""]
    ratios = [r["states_ratio"] for r in done]
    # Times below 50 ms are mostly start-up and noise.
    timed = [r for r in done if r["full_s"] >= 0.05]
    reduced2 = [r["time_ratio"] for r in timed if r["states_ratio"] <= 0.5]
    flat = [r["time_ratio"] for r in timed if r["states_ratio"] >= 0.99]
    flat_rows = [r for r in done if r["states_ratio"] >= 0.99 and r.get("processes", "") != ""]
    spun = [r for r in done if r["spin_states_ratio"] != ""]
    lines = [
        f"- Instances: {len(done)} explored with and without `--por`"
        + (f" ({len(rows) - len(done)} reduced searches over the time limit)" if len(done) < len(rows) else ""),
        f"- Reduced/full states: median {statistics.median(ratios):.3f}; at most 0.5 on "
        f"{sum(x <= 0.5 for x in ratios)}, at most 0.9 on {sum(x <= 0.9 for x in ratios)}, "
        f"not reduced (at least 0.99) on {sum(x >= 0.99 for x in ratios)}." if ratios else "- No instance.",
        f"- Time, reduced/full (instances whose full search takes at least 50 ms): geometric mean "
        f"{geomean(reduced2):.2f} on the {len(reduced2)} reduced at least 2x; "
        f"{geomean(flat):.2f} (at most {max(flat):.2f}) on the {len(flat)} not reduced."
        if reduced2 and flat else "- Too few timed instances for the time figures.",
    ]
    if flat_rows:
        one = sum(int(r["processes"]) == 1 for r in flat_rows)
        err = sum(int(r["processes"]) > 1 and int(r["groups_may_err"]) > 0 for r in flat_rows)
        lines.append(
            f"- Of the {len(flat_rows)} not reduced: {one} have one process (nothing to interleave); "
            f"of the others, {err} have groups that may err and {len(flat_rows) - one - err} have none.")
    if spun:
        sr = [r["spin_states_ratio"] for r in spun]
        ours = [r["states_ratio"] for r in spun]
        lines.append(
            f"- SPIN's reduction on the {len(spun)} Promela translations: median reduced/full "
            f"{statistics.median(sr):.3f} (dvemc on the same instances: {statistics.median(ours):.3f}); "
            f"dvemc reduces more on {sum(a < b for a, b in zip(ours, sr))}, less on "
            f"{sum(a > b for a, b in zip(ours, sr))}.")
    return lines


def fmt(x, digits=3):
    if x == "" or x is None:
        return ""
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def write_table(path, rows, args):
    with open(path, "w") as f:
        f.write("# Partial-order reduction over the census\n\n")
        f.write(f"Written by `scripts/bench_por.py --max-states {args.max_states} --spin-max-states "
                f"{args.spin_max_states}"
                + (f" --timeout {args.timeout:g} --ltsmin DIR --ltsmin-del-timeout {args.ltsmin_del_timeout:g}"
                   if args.ltsmin else "")
                + "` (one thread, breadth-first, exact store, deadlocks only).\n\n")
        f.write("\n".join(summary(rows)) + "\n\n")
        f.write("| instance | full states | reduced | ratio | transitions ratio | fully expanded | "
                "full s | reduced s | time ratio | SPIN full | SPIN reduced | SPIN ratio | "
                "processes | groups | may err |\n")
        f.write("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        for r in rows:
            f.write("| " + " | ".join([
                r["instance"], fmt(r["full_states"]), fmt(r["por_states"]), fmt(r["states_ratio"]),
                fmt(r["transitions_ratio"]), fmt(r["full_share"], 2), fmt(r["full_s"]), fmt(r["por_s"]),
                fmt(r["time_ratio"], 2), fmt(r["spin_full_states"]), fmt(r["spin_por_states"]),
                fmt(r["spin_states_ratio"]), fmt(r.get("processes", "")), fmt(r.get("groups", "")),
                fmt(r.get("groups_may_err", "")),
            ]) + " |\n")
        if args.ltsmin:
            bench_ltsmin.write_table(f, rows, fmt)


def write_rows(path, rows, columns):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        w.writerows(rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--beem", default=os.environ.get("BEEM_DIR", "../shared/beem"))
    ap.add_argument("--dvemc", default="target/release/dvemc")
    ap.add_argument("--census", default="results/census/beem-census.csv")
    ap.add_argument("--max-states", type=int, default=10_000_000)
    ap.add_argument("--spin-max-states", type=int, default=1_000_000)
    ap.add_argument("--timeout", type=float, default=1800)
    ap.add_argument("--out", default="results/por/runs.csv")
    ap.add_argument("--table", default="results/por/table.md")
    ap.add_argument("--ltsmin", metavar="DIR", help="LTSmin's build directory: its columns beside dvemc's")
    ap.add_argument("--ltsmin-del-timeout", type=float, default=120,
                    help="seconds for LTSmin's --por=del run (--timeout for its other runs)")
    ap.add_argument("--resume", action="store_true", help="keep the rows of --out and run the rest")
    ap.add_argument("--attribute", metavar="PATH",
                    help="the example por_without_errors (cargo build --release --example "
                         "por_without_errors): with --ltsmin, says why dvemc keeps more states than LTSmin")
    ap.add_argument("instances", nargs="*")
    args = ap.parse_args()
    tools = bench_ltsmin.find_tools(args.ltsmin) if args.ltsmin else None
    columns = COLUMNS + (LTSMIN_COLUMNS if args.ltsmin else []) + (ATTRIBUTE_COLUMNS if args.attribute else [])
    census = [r for r in csv.DictReader(open(args.census)) if r["result"] == "complete"]
    picked = [r for r in census if int(r["states"]) <= args.max_states
              and (not args.instances or r["instance"] in args.instances)]
    picked.sort(key=lambda r: int(r["states"]))
    rows = []
    if args.resume and os.path.exists(args.out):
        for r in csv.DictReader(open(args.out)):
            for k, v in r.items():
                if v != "" and k not in ("instance", "family", "ltsmin_note", "why"):
                    r[k] = float(v) if "." in v or "e" in v else int(v)
            rows.append(r)
            if "ltsmin_note" in r and not args.ltsmin:
                columns = COLUMNS + LTSMIN_COLUMNS
            if "why" in r and not args.attribute:
                columns = columns + [c for c in ATTRIBUTE_COLUMNS if c not in columns]
    for r in rows:
        # Rows of an earlier run without the structure columns.
        if r.get("groups", "") in ("", None):
            r.update(structure(args.dvemc, args.beem, r["instance"]))
    done = {r["instance"] for r in rows}
    # The .dve2C of each instance, compiled once.
    workdir = tempfile.TemporaryDirectory(prefix="bench-por-ltsmin-") if tools else None
    for c in picked:
        inst = c["instance"]
        if inst in done:
            continue
        full = explore(args.dvemc, args.beem, inst, False, args.timeout)
        if full is None or int(full["states"]) != int(c["states"]):
            raise SystemExit(f"{inst}: the full search does not give the census's {c['states']} states")
        por = explore(args.dvemc, args.beem, inst, True, args.timeout)
        row = dict.fromkeys(columns, "")
        row.update(instance=inst, family=c["family"], full_states=full["states"],
                   full_transitions=full["transitions"], full_deadlocks=full["deadlocks"],
                   full_s=full["time_s"])
        if por is not None:
            if por["deadlocks"] != full["deadlocks"]:
                raise SystemExit(f"{inst}: {por['deadlocks']} deadlocks reduced, {full['deadlocks']} full")
            row.update(por_states=por["states"], por_transitions=por["transitions"],
                       por_deadlocks=por["deadlocks"], por_s=por["time_s"],
                       states_ratio=por["states"] / full["states"],
                       transitions_ratio=por["transitions"] / max(full["transitions"], 1),
                       full_share=por.get("por_full_share", ""), select_s=por.get("por_select_s", ""),
                       time_ratio=por["time_s"] / full["time_s"] if full["time_s"] > 0 else "")
        if tools:
            row.update(bench_ltsmin.measure(
                tools, workdir.name, os.path.join(args.beem, "dve", inst + ".dve"), int(c["states"]),
                full["states"], por["states"] if por else None, args.timeout, args.ltsmin_del_timeout))
        row.update(structure(args.dvemc, args.beem, inst))
        pm = os.path.join(args.beem, "promela", inst + ".pm")
        if os.path.exists(pm) and int(c["states"]) <= args.spin_max_states:
            a = spin(pm, int(c["states"]), False, args.timeout)
            b = spin(pm, int(c["states"]), True, args.timeout)
            if a and b and a["states"]:
                row.update(spin_full_states=a["states"], spin_full_s=a["seconds"],
                           spin_por_states=b["states"], spin_por_s=b["seconds"],
                           spin_states_ratio=b["states"] / a["states"])
        rows.append(row)
        print(f"{inst}: {row['full_states']} -> {row['por_states']} ({fmt(row['states_ratio'])}), "
              f"time {fmt(row['time_ratio'], 2)}, SPIN {fmt(row['spin_states_ratio'])}"
              + (f", LTSmin {fmt(row['ltsmin_por_states'])} ({fmt(row['vs_ltsmin'], 2)}) {row['ltsmin_note']}"
                 if tools else ""), flush=True)
        write_rows(args.out, rows, columns)
    if args.attribute:
        for r in rows:
            attribute(args.attribute, args.beem, r)
        write_rows(args.out, rows, columns)
    write_table(args.table, rows, args)
    print("\n".join(summary(rows)))


if __name__ == "__main__":
    main()
