#!/usr/bin/env python3
"""Lasso lengths of the BEEM LTL properties that do not hold, beside BEEM's.

For every LTL property of properties.csv answered "no", with a .propN.dve
file, on a complete instance of at most MAX_STATES states: the stem and
cycle of `dvemc explore INSTANCE --property N` and of `--ltl FORMULA`
(the formula as properties.csv writes it), beside BEEM's cex_length. With
--raw OTHER_DVEMC, also the lasso of another dvemc for --property N (the
stacks as the search left them, before shortening). Prints a Markdown table.

Usage: ltl_lassos.py DVEMC BEEM_DIR [--max-states N] [--raw OTHER_DVEMC]
"""

import argparse
import csv
import json
import os
import subprocess


def lasso(dvemc, args, beem):
    out = subprocess.run(
        [dvemc, "explore", *args, "--json", "--beem", beem],
        capture_output=True,
        text=True,
        check=False,
    )
    rec = json.loads(out.stdout)
    if rec.get("verdict") != "violated":
        return None
    stem = rec["trace"]["cycle_start"]
    return stem, rec["cex_length"] - stem


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dvemc")
    ap.add_argument("beem")
    ap.add_argument("--max-states", type=int, default=50_000)
    ap.add_argument("--raw")
    a = ap.parse_args()
    with open(os.path.join(a.beem, "instances.csv")) as f:
        small = {
            r["instance"]
            for r in csv.DictReader(f)
            if r["complete"] == "yes" and r["states"] and int(r["states"]) <= a.max_states
        }
    with open(os.path.join(a.beem, "properties.csv")) as f:
        rows = [
            r
            for r in csv.DictReader(f)
            if r["type"] == "LTL"
            and r["beem_answer"] == "no"
            and r["instance"] in small
            and os.path.exists(os.path.join(a.beem, "dve", f"{r['instance']}.prop{r['prop_id']}.dve"))
        ]
    raw_head = " nested DFS stacks (stem + cycle) |" if a.raw else ""
    print(f"| property | BEEM cex_length |{raw_head} --property: stem | cycle | --ltl: stem | cycle |")
    print("|---|---:|" + ("---:|" if a.raw else "") + "---:|---:|---:|---:|")
    for r in rows:
        prop = [r["instance"], "--property", r["prop_id"]]
        p = lasso(a.dvemc, prop, a.beem)
        l = lasso(a.dvemc, [r["instance"], "--ltl", r["formula"]], a.beem)
        cells = [f"{r['instance']} #{r['prop_id']}", r["cex_length"] or "-"]
        if a.raw:
            raw = lasso(a.raw, prop, a.beem)
            cells.append(f"{raw[0]} + {raw[1]}" if raw else "-")
        for x in (p, l):
            cells += [str(x[0]), str(x[1])] if x else ["-", "-"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
