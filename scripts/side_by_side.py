#!/usr/bin/env python3
"""What the machine itself gives a second core: two one-thread searches
of the same instance run side by side, their states per second together
against one search's alone (2.0 on a machine whose cores do not slow
each other). The ceiling for `--threads 2` against `--threads 1`: run it
beside `speed_ratio.py` to tell the search's losses from the machine's.

    python3 scripts/side_by_side.py DVEMC [INSTANCE ...]

An INSTANCE may carry explore options in the same argument, e.g.
"lup.3 --property 2" for an LTL check.
"""
import json
import math
import os
import subprocess
import sys

DEFAULT = ["at.4", "fischer.6", "elevator2.3", "phils.6", "hanoi.3", "frogs.4", "anderson.6"]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    exe, insts = sys.argv[1], sys.argv[2:] or DEFAULT
    env = {**os.environ, "DVEMC_THREADS": "1"}

    def cmd(inst):
        return [exe, "explore", *inst.split(), "--threads", "1", "--json"]

    ratios = []
    for inst in insts:
        alone = json.loads(subprocess.run(cmd(inst), capture_output=True, text=True, env=env, check=True).stdout)
        pair = [subprocess.Popen(cmd(inst), stdout=subprocess.PIPE, text=True, env=env) for _ in range(2)]
        times = [json.loads(p.communicate()[0])["time_s"] for p in pair]
        r = 2 * alone["time_s"] / (sum(times) / 2)
        ratios.append(r)
        print(f"{inst:12} alone {alone['time_s']:.2f} s  side by side {times[0]:.2f} s {times[1]:.2f} s"
              f"  together / alone {r:.3f}", flush=True)
    print(f"geometric mean {math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}")


if __name__ == "__main__":
    main()
