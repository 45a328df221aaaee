#!/usr/bin/env python3
"""Automaton sizes for the distinct LTL formulas of BEEM's properties.csv:
the Büchi automaton `dvemc ltl2ba --negate` gives (the one a check uses)
beside SPIN's never claim for the same negated formula (`spin -f`), as a
markdown table on standard output.

States are states; transitions count one per printed edge (both tools
print one edge per target with any boolean condition), and `pairs`
counts the distinct (source, target) pairs, which does not depend on how
conditions are split.

    python3 scripts/ltl_sizes.py DVEMC BEEM_DIR > results/ltl/sizes.md
"""
import csv
import os
import re
import subprocess
import sys


def dvemc_size(exe, instance, formula):
    out = subprocess.run(
        [exe, "ltl2ba", "--negate", "--format", "text", "--model", instance, formula],
        capture_output=True, text=True, check=True).stdout
    spin_formula = re.search(r"^formula: (.*)$", out, re.M).group(1)
    states, pairs, trans, state = 0, set(), 0, None
    for line in out.splitlines():
        m = re.match(r"^state (\d+)", line)
        if m:
            state, states = int(m.group(1)), states + 1
            continue
        m = re.match(r"^  .* -> (\d+)$", line)
        if m and state is not None:
            trans += 1
            pairs.add((state, int(m.group(1))))
    return spin_formula, states, trans, len(pairs)


def to_spin(f):
    # dvemc's text: G, F, X, U, R, W, !, &&, ||, ->, <->; SPIN: [], <>, X, U, V, W.
    f = re.sub(r"\bG ", "[] ", f)
    f = re.sub(r"\bF ", "<> ", f)
    f = re.sub(r"\bR\b", "V", f)
    return f


def spin_size(f):
    out = subprocess.run(["spin", "-f", f], capture_output=True, text=True, check=True).stdout
    states, trans, pairs, state = 0, 0, set(), None
    for line in out.splitlines():
        m = re.match(r"^(\w+):", line)
        if m:
            state, states = m.group(1), states + 1
            continue
        m = re.search(r"goto (\w+)", line)
        if m and line.strip().startswith("::"):
            trans += 1
            pairs.add((state, m.group(1)))
        elif line.strip().startswith(":: atomic") and "assert" in line:
            # SPIN's short form of a transition into accept_all (its
            # condition reached, the claim is violated).
            trans += 1
            pairs.add((state, "accept_all"))
        elif line.strip().startswith("skip"):  # accept_all: a true self-loop
            trans += 1
            pairs.add((state, state))
    return states, trans, len(pairs)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    exe, beem = sys.argv[1], sys.argv[2]
    seen = {}
    with open(os.path.join(beem, "properties.csv")) as fh:
        for row in csv.DictReader(fh):
            if row["type"] == "LTL" and row["formula"] not in seen:
                seen[row["formula"]] = row["instance"]
    print("| # | formula (BEEM's text) | dvemc states | dvemc transitions | dvemc pairs "
          "| SPIN states | SPIN transitions | SPIN pairs |")
    print("|---|---|---|---|---|---|---|---|")
    larger, fewer, more_trans, fewer_trans, more_pairs = 0, 0, 0, 0, 0
    for n, (formula, instance) in enumerate(sorted(seen.items()), 1):
        abstract, s, t, p = dvemc_size(exe, instance, formula)
        ss, st, sp = spin_size(to_spin(abstract))
        larger += s > ss
        fewer += s < ss
        more_trans += t > st
        fewer_trans += t < st
        more_pairs += p > sp
        shown = formula.replace("|", "\\|")
        print(f"| {n} | `{shown}` | {s} | {t} | {p} | {ss} | {st} | {sp} |")
    print()
    print(f"{len(seen)} distinct formulas; dvemc has more states than SPIN on {larger}, fewer on "
          f"{fewer}; more transitions on {more_trans}, fewer on {fewer_trans}; more (source, target) "
          f"pairs on {more_pairs}.")


if __name__ == "__main__":
    main()
