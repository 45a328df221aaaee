#!/usr/bin/env python3
"""The distributed search (`--distributed`, 2 ranks under mpirun) against
what the machine gives two one-thread processes side by side, turn by
turn in one run: per instance, one search alone, two alone side by side,
and the 2-rank search (with each --partition given, `whole` by default);
prints the 2-rank speed-up over one search, the machine's two-process ratio
(as scripts/side_by_side.py measures it), their quotient (the issue's
figure: at least 0.8), the bytes and messages sent per state, and the
largest rank's states against an even share. Each instance runs in
--turns turns (each turn: alone, pair, every partition), and each time is
the median of its turns: on a virtual machine a run's time moves with how
fast fresh memory faults in. Needs a dvemc built with `--features mpi`.

    python3 scripts/bench_distributed.py DVEMC [--ranks N] [--turns N] [--partition whole local] [INSTANCE ...]
"""
import argparse
import json
import math
import os
import statistics
import subprocess

DEFAULT = ["at.4", "fischer.6", "elevator2.3", "phils.6", "hanoi.3", "frogs.4", "anderson.6"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dvemc")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--turns", type=int, default=3)
    ap.add_argument("--partition", nargs="+", default=["whole"], choices=["whole", "local"])
    ap.add_argument("instances", nargs="*", default=DEFAULT)
    a = ap.parse_args()
    env = {**os.environ, "DVEMC_THREADS": "1"}

    def one(inst):
        return [a.dvemc, "explore", inst, "--threads", "1", "--json"]

    mpirun = ["mpirun", "--oversubscribe", "-np", str(a.ranks)]
    if os.geteuid() == 0:
        mpirun.insert(1, "--allow-run-as-root")
    quotients = {p: [] for p in a.partition}
    print(f"{'instance':12} {'spread':6} {'alone s':>8} {'pair s':>7} {'machine':>7} {'ranks s':>8} {'speed-up':>8} "
          f"{'quotient':>8} {'B/state':>7} {'msg/state':>9} {'wait s':>6} {'largest':>7}")
    for inst in a.instances:
        alones, pairs, ranks = [], [], {p: [] for p in a.partition}
        for _ in range(a.turns):
            alone = json.loads(subprocess.run(one(inst), capture_output=True, text=True, env=env, check=True).stdout)
            alones.append(alone["time_s"])
            pair = [subprocess.Popen(one(inst), stdout=subprocess.PIPE, text=True, env=env) for _ in range(2)]
            pairs.append(sum(json.loads(p.communicate()[0])["time_s"] for p in pair) / 2)
            for p in a.partition:
                cmd = mpirun + one(inst) + ["--distributed", "--partition", p]
                d = json.loads(subprocess.run(cmd, capture_output=True, text=True, env=env).stdout)
                assert d["states"] == alone["states"], inst
                ranks[p].append(d)
        alone_s, pair_s = statistics.median(alones), statistics.median(pairs)
        machine = 2 * alone_s / pair_s
        for p in a.partition:
            d = sorted(ranks[p], key=lambda r: r["time_s"])[len(ranks[p]) // 2]
            speedup = alone_s / d["time_s"]
            quotients[p].append(speedup / machine)
            largest = max(r["states"] for r in d["rank_figures"]) * a.ranks / d["states"]
            print(f"{inst:12} {p:6} {alone_s:8.2f} {pair_s:7.2f} {machine:7.3f} {d['time_s']:8.2f} "
                  f"{speedup:8.3f} {speedup / machine:8.3f} {d['bytes_sent_per_state']:7.1f} "
                  f"{d['messages_per_state']:9.2e} {d['wait_s']:6.2f} {largest:7.3f}", flush=True)
    for p, q in quotients.items():
        print(f"--partition {p}: geometric mean of the quotient {math.exp(sum(map(math.log, q)) / len(q)):.3f}")


if __name__ == "__main__":
    main()
