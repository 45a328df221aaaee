"""LTSmin's `dve2lts-mc` on a BEEM instance: full and partial-order reduced
state counts and exploration times, for scripts/bench_por.py --ltsmin.

LTSmin is a measuring instrument, not a dependency: it is built outside the
repository by the recipe in ../shared/anchors/ltsmin/BUILD.md (LTSmin 3.0.2
with the LTSmin group's DiVinE 2.4 fork, whose `divine compile -l` turns a
.dve model into the .dve2C shared object that `dve2lts-mc` loads).
"""
import math
import os
import re
import shutil
import subprocess
import time

EXPLORED = re.compile(r"Explored (\d+) states (\d+) transitions")
EXPLORATION_TIME = re.compile(r"Total exploration time\s+([0-9.]+) sec")


def find_tools(root):
    """The `divine` and `dve2lts-mc` binaries under `root` (the build
    directory of BUILD.md, or any directory holding the two). A libtool
    .libs copy is passed over for the program beside it."""
    found = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x != ".libs" and not x.startswith("."))
        for name in ("divine", "dve2lts-mc"):
            path = os.path.join(d, name)
            if name in files and name not in found and os.access(path, os.X_OK):
                found[name] = path
        if len(found) == 2:
            return found["divine"], found["dve2lts-mc"]
    missing = ", ".join(n for n in ("divine", "dve2lts-mc") if n not in found)
    raise SystemExit(f"--ltsmin {root}: no executable {missing} under it "
                     "(build LTSmin by ../shared/anchors/ltsmin/BUILD.md)")


def compile_model(divine, dve, workdir, timeout):
    """`divine compile -l` of `dve` in `workdir`; the .dve2C is kept there,
    so an instance is compiled once per run. None when DiVinE refuses the
    model or takes longer than `timeout` seconds."""
    name = os.path.basename(dve)
    out = os.path.join(workdir, name + "2C")
    if os.path.exists(out):
        return out
    shutil.copy(dve, os.path.join(workdir, name))
    try:
        subprocess.run([divine, "compile", "-l", name], cwd=workdir, check=True, timeout=timeout,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
        return None
    return out if os.path.exists(out) else None


def table_size(states):
    """log2 of the state store's size: at most a quarter full with the
    instance's full state count, at least 2^20 (BUILD.md: a table sized to
    the run is faster than the default, which takes 20 % of the memory)."""
    return max(20, math.ceil(math.log2(max(states, 1))) + 2)


# The tree store's node table is 2^(size - ratio) entries, a quarter of the
# root table by default; szymanski.4 needs more than two nodes a state, so
# it is made as large as the root table (memory is mapped as it is used).
RATIO = 0


def explore(mc, model, por, size, timeout):
    """One `dve2lts-mc --threads=1 --strategy=bfs` run, with `--por=<por>`
    unless `por` is None. Returns dict(states, transitions, seconds) with
    LTSmin's own exploration time (loading the model left out, as dvemc's
    time_s leaves out compiling it), or dict(error=...) when it is over
    `timeout` or fails."""
    args = [mc, "--threads=1", "--strategy=bfs", f"--size={size}", f"--ratio={RATIO}"]
    if por is not None:
        # `--por` takes an optional argument: `--por heur` would read the
        # model's path as the algorithm's name.
        args.append(f"--por={por}")
    args.append(model)
    t0 = time.time()
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(error=f"over {timeout:g} s")
    wall = time.time() - t0
    text = out.stdout + out.stderr
    m = EXPLORED.search(text)
    if "table full" in text and size < 32:
        return explore(mc, model, por, size + 2, timeout)
    if out.returncode != 0 or not m:
        last = [line for line in text.splitlines() if line.strip()][-1:] or [f"exit {out.returncode}"]
        return dict(error=f"failed: {last[0][:120]}")
    t = EXPLORATION_TIME.search(text)
    return dict(states=int(m.group(1)), transitions=int(m.group(2)),
                seconds=float(t.group(1)) if t else wall)


def measure(tools, workdir, dve, states, dvemc_full, dvemc_por, timeout, del_timeout):
    """bench_por.py's LTSmin columns for one instance: full, `--por=heur`
    and `--por=del` runs; `states` (the census's count) sizes the store,
    `dvemc_full` and `dvemc_por` are dvemc's counts (`dvemc_por` None when
    its reduced search did not finish)."""
    divine, mc = tools
    model = compile_model(divine, dve, workdir, timeout)
    if model is None:
        return dict(ltsmin_note="divine compile -l failed")
    size = table_size(states)
    row, notes = {}, []
    runs = {"full": explore(mc, model, None, size, timeout),
            "heur": explore(mc, model, "heur", size, timeout),
            "del": explore(mc, model, "del", size, del_timeout)}
    for key, r in runs.items():
        if "error" in r:
            notes.append(f"{key} {r['error']}")
        else:
            row[f"ltsmin_{key}_states"] = r["states"]
            row[f"ltsmin_{key}_s"] = r["seconds"]
    full = runs["full"]
    if "states" in full and full["states"] != dvemc_full:
        notes.append(f"full count {full['states']} differs from dvemc's {dvemc_full}")
    reduced = [r for r in (runs["heur"], runs["del"]) if "states" in r]
    if reduced:
        best = min(reduced, key=lambda r: (r["states"], r["seconds"]))
        row.update(ltsmin_por_states=best["states"], ltsmin_por_s=best["seconds"])
        if dvemc_por is not None:
            row["vs_ltsmin"] = dvemc_por / best["states"]
    row["ltsmin_note"] = "; ".join(notes)
    return row


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def summary(rows):
    """The markdown's lines on dvemc beside LTSmin."""
    both = [r for r in rows if r.get("vs_ltsmin", "") != ""]
    agree = [r for r in rows if r.get("ltsmin_full_states", "") != ""]
    differ = [r["instance"] for r in agree if int(r["ltsmin_full_states"]) != int(r["full_states"])]
    if not both:
        return ["- No instance with both reduced counts."]
    vs = [r["vs_ltsmin"] for r in both]
    lines = [
        f"- LTSmin's full count equals dvemc's on {len(agree) - len(differ)} of {len(agree)} instances"
        + (f" (not on {', '.join(differ)})" if differ else "") + ".",
        f"- Reduced states, dvemc over LTSmin (the smaller of `--por=heur` and `--por=del`) on "
        f"{len(both)} instances: dvemc keeps fewer on {sum(x < 0.99 for x in vs)}, the same "
        f"(within 1 %) on {sum(0.99 <= x <= 1.01 for x in vs)}, more on {sum(x > 1.01 for x in vs)}, "
        f"of which {sum(x >= 1.25 for x in vs)} by a quarter or more.",
    ]
    whys = [r["why"] for r in both if r.get("why")]
    if whys:
        kinds = [w.split(":")[0] for w in whys]
        lines.append(
            f"- Where dvemc keeps more, reduced again as if no step could err (`--attribute`): run-time "
            f"errors account for it on {kinds.count('run-time errors')} (then at most LTSmin's count), "
            f"errors and the choice on {kinds.count('run-time errors and the choice')}, the choice alone "
            f"on {kinds.count('the choice')}.")
    # Both reduce: each reduced count at most 0.99 of the full one.
    cut = [r for r in both if r["states_ratio"] <= 0.99
           and r["ltsmin_por_states"] <= 0.99 * r["full_states"]]
    if cut:
        faster = sum(r["por_s"] < r["ltsmin_por_s"] for r in cut)
        lines.append(
            f"- Time, on the {len(cut)} instances both reduce: dvemc's reduced search is faster than "
            f"LTSmin's (the run whose count is taken) on {faster}; dvemc's over LTSmin's, geometric "
            f"mean {geomean([r['por_s'] / r['ltsmin_por_s'] for r in cut if r['ltsmin_por_s'] > 0]):.2f}.")
    timed = [r for r in rows if r.get("ltsmin_full_s", "") not in ("", 0) and r["full_s"] > 0]
    if timed:
        lines.append(
            f"- Full searches: dvemc's time over LTSmin's, geometric mean "
            f"{geomean([r['full_s'] / r['ltsmin_full_s'] for r in timed]):.2f} on {len(timed)} instances.")
    return lines


def against(r):
    """The markdown cell saying whether dvemc keeps more states than LTSmin,
    and why where `why` says (bench_por.py --attribute)."""
    if r.get("vs_ltsmin", "") == "":
        return "no comparison"
    d = r["por_states"] - r["ltsmin_por_states"]
    if d > 0:
        cell = f"**more**: +{d:,} ({100 * d / r['ltsmin_por_states']:.1f} %)"
        return cell + (f"; {r['why']}" if r.get("why") else "")
    return "same" if d == 0 else f"fewer: {d:,}"


def why(r):
    """Why dvemc keeps more states than LTSmin, from the count of the
    reduction as if no step could err (LTSmin's front end has no error
    state), `states_without_errors`; empty where dvemc keeps no more."""
    if r.get("vs_ltsmin", "") == "" or r["por_states"] <= r["ltsmin_por_states"]:
        return ""
    n, lts, err = r.get("states_without_errors", ""), r["ltsmin_por_states"], r.get("groups_may_err", "")
    if n == "":
        return ""
    err = f"{err} group{'' if err == 1 else 's'} may err"
    if n >= r["por_states"]:
        return f"the choice: {n:,} as if no step could err too ({n / lts:.2f} of LTSmin's)"
    if n <= lts * 1.01:
        return (f"run-time errors: as if no step could err, as LTSmin assumes, dvemc keeps {n:,} "
                f"({n / lts:.2f} of LTSmin's); {err}")
    return (f"run-time errors and the choice: as if no step could err, {n:,} ({n / lts:.2f} of "
            f"LTSmin's); {err}")


def write_table(f, rows, fmt):
    """The second table of bench_por.py's markdown: dvemc beside LTSmin."""
    f.write("\n## Beside LTSmin\n\n")
    f.write("One thread, breadth-first, deadlocks only; `dve2lts-mc --threads=1 --strategy=bfs`, "
            "each instance's LTSmin runs right after dvemc's. Times in seconds, LTSmin's without "
            "loading the model; LTSmin reduced = the smaller of its heur and del counts.\n\n")
    f.write("\n".join(summary(rows)) + "\n\n")
    f.write("| instance | full states | LTSmin full | LTSmin heur | LTSmin del | dvemc reduced | "
            "dvemc / LTSmin | dvemc keeps | full s | LTSmin full s | reduced s | LTSmin heur s | "
            "LTSmin del s | note |\n")
    f.write("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---|\n")
    for r in rows:
        f.write("| " + " | ".join([
            r["instance"], fmt(r["full_states"]), fmt(r.get("ltsmin_full_states", "")),
            fmt(r.get("ltsmin_heur_states", "")), fmt(r.get("ltsmin_del_states", "")),
            fmt(r["por_states"]), fmt(r.get("vs_ltsmin", ""), 2), against(r), fmt(r["full_s"]),
            fmt(r.get("ltsmin_full_s", "")), fmt(r["por_s"]), fmt(r.get("ltsmin_heur_s", "")),
            fmt(r.get("ltsmin_del_s", "")), r.get("ltsmin_note", ""),
        ]) + " |\n")
