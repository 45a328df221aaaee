#!/usr/bin/env python3
"""SPIN's `pan -a` beside dvemc's product search (`explore --ltl`, the
sequential nested DFS) on BEEM's LTL properties, in one run.

For every LTL property of properties.csv with an answer whose instance has
at most --max-states states (BEEM's count) and a Promela translation
(promela/<instance>.pm), the formula's atoms are mapped to Promela; each
property that maps is then checked by dvemc and by pan, one after the
other. Writes a CSV (one row per property, mapped or not, with the reason)
and a markdown table of the properties both checked.

Mapping. The atoms are those `dvemc ltl2ba --model INSTANCE` reads the
formula into (BEEM's family propositions expanded), printed as DVE:
    P.s (P in state s)  ->  P@s   remote label reference
    P->v, P->a[i]       ->  P:v, P:a[i]   remote variable reference
    globals, numbers, arithmetic and comparisons as they are;
    and, or, not, imply ->  &&, ||, !, (!a || b)
BEEM's translator writes a DVE process as a proctype of the same name and
each of its states as a label of the same name; inside a name it writes
`chan`, `active` and `timeout` (Promela keywords) as `chnl`, `actv` and
`timeisout` (every state of the 1407 processes of the 235 translations
is a label so renamed). Each process is one proctype instance, so the
references need no index: SPIN 6.5 resolves `P@s` and `P:v` to the first
process of type P. An atom maps when the .pm has that proctype with that
label or local variable, or that global. The never claim is `spin -f` of
the negated formula (the one `dvemc ltl2ba --negate` prints) over fresh
names ltl_0, ltl_1, ... each `#define`d to its atom and appended to the
model: `spin -f` rather than an inline `ltl` block, so that pan checks
the automaton results/ltl/sizes.md compares. The property maps when
`spin -a` accepts the model with the claim.

pan (in a fresh directory per property; -o1: without SPIN's dead-variable
resets, so that a faithful translation has the DVE model's states):
    spin -o1 -a M.pm; gcc -O2 -DNOREDUCE -DMEMLIM=4000 -o pan pan.c
    nice -n 5 ./pan -a -n -m<depth> -w<log2 of the table size>
with -m raised until no run reports "max search depth too small", each
run stopped after --pan-budget seconds (300; the verdict is then
time_limit: some translations have many more states than the DVE model).
dvemc: `explore INSTANCE --ltl FORMULA --threads 1 --backend jit --json`.
pan's "states, stored" counts each product state once, as dvemc's `states`
does; its transitions are those of both searches of the nested DFS (the
second search visits states again: "visited" in pan's output), dvemc's
those of the first search.

The verdicts of a mapped property must agree with each other and with
BEEM's answer. Where they do not and dvemc's lasso passes a run-time error
(DVE's error state: an overflow, an index out of bounds, which the Promela
translation wraps or lets pass), the models differ there: the row's
`cause` says so. Exits 1 when verdicts differ for no such cause, or when
fewer than --min-agree properties agree (the rows are written first).

Usage: ltl_spin.py [--beem DIR] [--dvemc PATH] [--max-states N]
                   [--out CSV] [--md FILE] [--map-only] [--min-agree N]
                   [--pan-budget SECONDS] [INSTANCE...]
  INSTANCE...   only these instances' properties (default: every one)
  --map-only    map the atoms and run `spin -a` only (no searches)
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

from bench_spin import run_pan
from ltl_sizes import to_spin

# Promela keywords inside a DVE name, as BEEM's translator rewrites them.
RENAMED = [("chan", "chnl"), ("active", "actv"), ("timeout", "timeisout")]
DECL = r"(?:bit|bool|byte|short|int|unsigned|chan)\s+"


def promela_name(name):
    for dve, pml in RENAMED:
        name = name.replace(dve, pml)
    return name


class Translation:
    """The names a Promela translation declares: globals (and #defines),
    and per proctype its labels and local variables."""

    def __init__(self, text):
        parts = re.split(r"^(?:active\s+)?proctype\s+(\w+)\s*\(\)", text, flags=re.M)
        self.globals = set(re.findall(r"^(?:" + DECL + r"|#define\s+)(\w+)", parts[0], re.M))
        self.procs = {}
        for name, body in zip(parts[1::2], parts[2::2]):
            body = re.split(r"^(?:init|never)\b", body, flags=re.M)[0]
            labels = set(re.findall(r"^(\w+):", body, re.M))
            local = set(re.findall(r"^\s*" + DECL + r"(\w+)", body, re.M))
            self.procs[name] = (labels, local)


OPS = {"and": "&&", "or": "||"}
TOKEN = re.compile(r"\s*(->|==|!=|<=|>=|<<|>>|[A-Za-z_]\w*|\d+|\S)")


class Unmapped(Exception):
    pass


def to_promela(atom, pm):
    """The DVE text of an atom (as `dvemc ltl2ba` prints it: every nested
    binary operation parenthesised) as a Promela expression over the
    translation PM; raises Unmapped with the reason."""
    toks = TOKEN.findall(atom)
    pos = 0

    def peek():
        return toks[pos] if pos < len(toks) else None

    def take(expected=None):
        nonlocal pos
        t = peek()
        if t is None or (expected and t != expected):
            raise Unmapped(f"cannot read atom `{atom}`")
        pos += 1
        return t

    def operand():
        t = take()
        if t == "(":
            e = expr()
            take(")")
            return f"({e})"
        if t in ("-", "~"):
            return t + operand()
        if t == "not":
            return "!" + operand()
        if t.isdigit():
            return t
        if not re.match(r"[A-Za-z_]", t):
            raise Unmapped(f"cannot read atom `{atom}`")
        name = promela_name(t)
        if peek() in (".", "->"):
            kind = take()
            member = promela_name(take())
            if name not in pm.procs:
                raise Unmapped(f"no proctype {name}")
            labels, local = pm.procs[name]
            if kind == ".":
                if member not in labels:
                    raise Unmapped(f"no label {member} in {name}")
                return f"{name}@{member}"
            if member not in local:
                raise Unmapped(f"no variable {member} in {name}")
            ref = f"{name}:{member}"
        else:
            if name not in pm.globals:
                raise Unmapped(f"no global {name}")
            ref = name
        if peek() == "[":
            take()
            index = expr()
            take("]")
            ref += f"[{index}]"
        return ref

    def expr():
        a = operand()
        if peek() in (None, ")", "]"):
            return a
        op = take()
        b = operand()
        if op == "imply":
            return f"(!({a}) || ({b}))"
        return f"{a} {OPS.get(op, op)} {b}"

    e = expr()
    if peek() is not None:
        raise Unmapped(f"cannot read atom `{atom}`")
    return e


def abstract(dvemc, beem, instance, formula):
    """The negated formula over p0, p1, ... and the atoms' DVE text, as
    `dvemc ltl2ba --negate` prints them."""
    out = subprocess.run([dvemc, "ltl2ba", "--negate", "--format", "text", "--beem", beem,
                          "--model", instance, formula], capture_output=True, text=True)
    if out.returncode != 0:
        raise Unmapped("dvemc ltl2ba: " + out.stderr.strip().splitlines()[-1])
    negated = re.search(r"^formula: (.*)$", out.stdout, re.M).group(1)
    atoms = dict(re.findall(r"^  (p\d+) = (.*)$", out.stdout, re.M))
    return negated, atoms


def claim_model(dvemc, beem, row, workdir):
    """Writes the model with the never claim to WORKDIR/model.pm; raises
    Unmapped with the reason when the property does not map."""
    pm_path = os.path.join(beem, "promela", row["instance"] + ".pm")
    if not os.path.exists(pm_path):
        raise Unmapped("no Promela translation")
    text = open(pm_path).read()
    pm = Translation(text)
    negated, atoms = abstract(dvemc, beem, row["instance"], row["formula"])
    defines = [f"#define ltl_{p[1:]} ({to_promela(a, pm)})" for p, a in atoms.items()]
    spin_formula = re.sub(r"\bp(\d+)\b", r"ltl_\1", to_spin(negated))
    claim = subprocess.run(["spin", "-f", spin_formula], capture_output=True, text=True)
    if claim.returncode != 0 or "never" not in claim.stdout:
        raise Unmapped("spin -f rejects " + spin_formula)
    with open(os.path.join(workdir, "model.pm"), "w") as f:
        f.write(text + "\n" + "\n".join(defines) + "\n" + claim.stdout)
    # -o1: no dead-variable resets, which would shrink the state space
    # below the DVE model's and change what a remote reference P:v reads.
    spin = subprocess.run(["spin", "-o1", "-a", "model.pm"], cwd=workdir, capture_output=True, text=True)
    if spin.returncode != 0 or not os.path.exists(os.path.join(workdir, "pan.c")):
        lines = (spin.stdout + spin.stderr).strip().splitlines()
        raise Unmapped("spin -a: " + (lines[0] if lines else f"exit {spin.returncode}"))
    return defines


def run_spin_ltl(workdir, table_states, budget):
    subprocess.run(["gcc", "-O2", "-DNOREDUCE", "-DMEMLIM=4000", "-o", "pan", "pan.c"],
                   cwd=workdir, check=True, capture_output=True)
    # The nested DFS stores a state once per search: room for both.
    w = min(26, max(16, math.ceil(math.log2(max(table_states, 1) * 4))))
    # A nested DFS goes as deep as the states of both searches at most.
    pan = run_pan(workdir, ["-a", "-n", f"-w{w}"], prefix=("timeout", str(budget), "nice", "-n", "5"),
                  depth=max(100000, 2 * table_states))
    text = pan["output"]
    errors = re.search(r"errors: (\d+)", text)
    if "reached -DMEMLIM bound" in text:
        pan["verdict"] = "memory_limit"
    elif not errors:
        pan["verdict"] = "time_limit"
        pan["seconds"] = budget
    else:
        pan["verdict"] = "violated" if int(errors.group(1)) else "holds"
    found = re.search(r"pan:\d+: (.*?) \(at depth", text)
    pan["violation"] = found.group(1) if found else ""
    return pan


def run_dvemc(dvemc, beem, instance, formula):
    out = subprocess.run(["nice", "-n", "5", dvemc, "explore", "--beem", beem, instance,
                          "--ltl", formula, "--threads", "1", "--backend", "jit", "--json"],
                         capture_output=True, text=True)
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"dvemc failed on {instance} `{formula}`: {out.stderr}")


def properties(beem, max_states, only):
    with open(os.path.join(beem, "instances.csv")) as f:
        states = {r["instance"]: int(r["states"] or 0) for r in csv.DictReader(f)}
    with open(os.path.join(beem, "properties.csv")) as f:
        for r in csv.DictReader(f):
            if (r["type"] == "LTL" and r["beem_answer"] in ("yes", "no")
                    and r["instance"] in states and states[r["instance"]] <= max_states
                    and (not only or r["instance"] in only)):
                # BEEM's "no" for an LTL property: it does not hold (an accepting cycle).
                r["beem"] = "violated" if r["beem_answer"] == "no" else "holds"
                r["beem_states"] = states[r["instance"]]
                yield r


def rate(states, seconds):
    return round(states / seconds) if states and seconds else ""


def check(a, row, wd):
    """One property: its CSV row (mapping, then both searches)."""
    out = {"instance": row["instance"], "prop": row["prop_id"], "formula": row["formula"],
           "beem": row["beem"]}
    try:
        out["defines"] = " ".join(claim_model(a.dvemc, a.beem, row, wd))
        out["mapped"] = "yes"
        out["reason"] = ""
    except Unmapped as e:
        out.update(mapped="no", reason=str(e))
        return out
    if a.map_only:
        return out
    d = run_dvemc(a.dvemc, a.beem, row["instance"], row["formula"])
    s = run_spin_ltl(wd, max(d["states"], row["beem_states"]), a.pan_budget)
    out.update({
        "dvemc_verdict": d["verdict"] if d["result"] == "complete" else d["result"],
        "pan_verdict": s["verdict"], "pan_violation": s["violation"],
        # (A search stopped by the time budget leaves pan's counters empty.)
        "dvemc_states": d["states"], "pan_states": s["states"] or "",
        "pan_visited": s["visited"] or "",
        "dvemc_transitions": d["transitions"], "pan_transitions": s["transitions"] or "",
        "dvemc_seconds": round(d["time_s"], 6), "pan_seconds": round(s["seconds"], 6),
        "dvemc_states_per_s": rate(d["states"], d["time_s"]),
        "pan_states_per_s": rate(s["states"], s["seconds"]),
        "pan_depth_limit": s["depth_limit"],
    })
    lasso = d.get("trace", {})
    out["dvemc_error_transitions"] = d["error_transitions"]
    out["dvemc_lasso_errs"] = "yes" if any(s["error"] for s in lasso.get("stem", []) + lasso.get("cycle", [])) else ""
    verdicts = {out["dvemc_verdict"], out["pan_verdict"], out["beem"]}
    if not verdicts <= {"holds", "violated"}:
        out["agree"] = "incomplete"
    else:
        out["agree"] = "yes" if len(verdicts) == 1 else "NO"
    if out["agree"] == "NO" and out["dvemc_lasso_errs"]:
        out["cause"] = ERROR_STATE
    return out


# A DVE run-time error (an overflow, an index out of bounds) leads to DVE's
# error state, where the Promela translation wraps or stops: the models
# differ there.
ERROR_STATE = "dvemc's lasso passes a run-time error (DVE's error state; not in the Promela model)"


FIELDS = ["instance", "prop", "formula", "beem", "mapped", "reason", "dvemc_verdict", "pan_verdict",
          "agree", "cause", "pan_violation", "dvemc_states", "pan_states", "pan_visited", "dvemc_transitions",
          "pan_transitions", "dvemc_error_transitions", "dvemc_lasso_errs",
          "dvemc_seconds", "pan_seconds", "dvemc_states_per_s", "pan_states_per_s", "pan_depth_limit",
          "defines"]


# Below this many states a search takes a few milliseconds, too few for
# pan's clock (hundredths of a second): no speed ratio.
SPEED_MIN_STATES = 50000


def summary(rows, max_states):
    """The counts a run ends with, as lines of text."""
    mapped = [r for r in rows if r["mapped"] == "yes"]
    translated = [r for r in rows if r["reason"] != "no Promela translation"]
    lines = [f"{len(rows)} LTL properties with an answer on instances up to {max_states} states; "
             f"{len(translated)} with a Promela translation, of which {len(mapped)} map."]
    reasons = {}
    for r in rows:
        if r["mapped"] == "no":
            reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
    lines += [f"  {n} do not map: {reason}" for reason, n in sorted(reasons.items(), key=lambda x: -x[1])]
    checked = [r for r in rows if "agree" in r]
    if checked:
        done = [r for r in checked if r["agree"] != "incomplete"]
        agree = sum(r["agree"] == "yes" for r in done)
        lines.append(f"Verdicts: {agree} of the {len(done)} properties both searched to a verdict agree "
                     f"(dvemc, pan, BEEM's answer); not completed (a time or memory limit): {len(checked) - len(done)}.")
        for r in checked:
            if r["agree"] != "yes":
                lines.append(f"  {r['instance']} #{r['prop']}: BEEM {r['beem']}, dvemc {r['dvemc_verdict']}, "
                             f"pan {r['pan_verdict']}"
                             + ("" if r["agree"] == "incomplete" else f": {r.get('cause') or 'cause unknown'}"))
    timed = [r for r in checked if r["agree"] == "yes" and r["dvemc_states_per_s"] and r["pan_states_per_s"]
             and min(r["dvemc_states"], r["pan_states"]) >= SPEED_MIN_STATES]
    if timed:
        ratio = math.exp(sum(math.log(r["dvemc_states_per_s"] / r["pan_states_per_s"]) for r in timed) / len(timed))
        lines.append(f"States per second, dvemc / pan, geometric mean over the {len(timed)} properties where "
                     f"both stored at least {SPEED_MIN_STATES} states: {ratio:.2f}.")
    return lines


def markdown(rows, lines):
    out = ["| property | BEEM | dvemc | pan | dvemc states | pan states | dvemc transitions "
           "| pan transitions | dvemc s | pan s | dvemc states/s | pan states/s |",
           "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if "agree" not in r:
            continue
        out.append(f"| {r['instance']} #{r['prop']} | {r['beem']} | {r['dvemc_verdict']} "
                   f"| {r['pan_verdict']} | {r['dvemc_states']} | {r['pan_states']} "
                   f"| {r['dvemc_transitions']} | {r['pan_transitions']} | {r['dvemc_seconds']} "
                   f"| {r['pan_seconds']} | {r['dvemc_states_per_s']} | {r['pan_states_per_s']} |")
    return "\n".join(out + [""] + [line.strip() + "  " for line in lines]) + "\n"


def csv_rows(f, rows):
    w = csv.DictWriter(f, fieldnames=FIELDS, restval="")
    w.writeheader()
    w.writerows(rows)


MARK = {"yes": "", "incomplete": "INCOMPLETE", "NO": "DISAGREE"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--beem", default=os.environ.get("BEEM_DIR", "../shared/beem"))
    ap.add_argument("--dvemc", default="./target/release/dvemc")
    ap.add_argument("--max-states", type=int, default=1000000)
    ap.add_argument("--out", default="results/ltl/spin-pan.csv")
    ap.add_argument("--md", default="results/ltl/spin-pan.md")
    ap.add_argument("--map-only", action="store_true")
    ap.add_argument("--min-agree", type=int, default=0)
    ap.add_argument("--pan-budget", type=int, default=300, help="seconds for one pan search")
    ap.add_argument("instances", nargs="*")
    a = ap.parse_args()
    for tool in ("spin", "gcc"):
        if not shutil.which(tool):
            sys.exit(f"{tool} is not installed (apt-get install spin gcc)")
    rows = []
    for row in properties(a.beem, a.max_states, set(a.instances)):
        with tempfile.TemporaryDirectory() as wd:
            r = check(a, row, wd)
        rows.append(r)
        name = f"{r['instance']} #{r['prop']}"
        if "agree" in r:
            print(f"{name:<24} BEEM {r['beem']:<8} dvemc {r['dvemc_verdict']:<8} pan {r['pan_verdict']:<8} "
                  f"states {r['dvemc_states']} / {r['pan_states']}  states/s {r['dvemc_states_per_s']} / "
                  f"{r['pan_states_per_s']}  {MARK[r['agree']]}", flush=True)
        else:
            print(f"{name:<24} {'maps' if r['mapped'] == 'yes' else 'does not map: ' + r['reason']}", flush=True)
    lines = summary(rows, a.max_states)
    for path, write in ((a.out, lambda f: csv_rows(f, rows)), (a.md, lambda f: f.write(markdown(rows, lines)))):
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path + ".tmp", "w", newline="") as f:
            write(f)
        os.replace(path + ".tmp", path)
    print("\n".join(lines))
    print(f"report: {a.out}, {a.md}")
    checked = [r for r in rows if "agree" in r]
    agree = sum(r["agree"] == "yes" for r in checked)
    unexplained = sum(r["agree"] == "NO" and not r.get("cause") for r in checked)
    if unexplained or agree < a.min_agree:
        sys.exit(f"ltl_spin: {unexplained} verdicts differ for no known cause; {agree} agree "
                 f"(at least {a.min_agree} wanted)")


if __name__ == "__main__":
    main()
