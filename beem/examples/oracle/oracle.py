#!/usr/bin/env python3
"""Independent oracle for the example models in beem/examples/.

Each of the four example systems (phils2, bounded_buffer, readers_writers,
sum_to_n) is encoded here BY HAND as Python transition tables, translated
directly from the .dve files next to this directory.  Nothing here parses DVE
and nothing here uses the project's interpreter, so the figures printed are an
independent cross-check for it.

Semantics followed (docs/dve-language.md):
  * a state is: every global variable, then per process its control state and
    its locals; two states are equal iff all of these are equal (section 4);
  * byte = 0..255, int = -32768..32767; storing a value outside the range is a
    run-time error that leads to the single error state (sections 6, 8);
  * a local transition first sets the process's control state to the target,
    then runs the effects sequentially, each seeing the previous ones (7.2);
  * successors are generated process by process (declaration order), each
    process's enabled transitions in declaration order (7.7).  None of these
    models uses channels, so rendezvous never arises.
  * a deadlock is a state without successors (7.8); every generated successor
    is one transition (edge), duplicates and self-loops included.
  * "BFS levels" counts levels 0..d where d is the largest BFS distance from
    the initial state, i.e. the <levels> figure of BEEM's stats files.

The models are written so that no run-time error is reachable; the oracle
checks that (an erroneous transition aborts the run with a message).

Usage:  python3 oracle.py [--levels] [--buffer-size K] [--sum-n N]
                          [--sum-width W] [model ...]
Python 3.11, standard library only.
"""

from __future__ import annotations

import argparse
import sys
from collections import deque

BYTE = ("byte", 0, 255, 1)  # name, min, max, bytes in the state vector
INT = ("int", -32768, 32767, 2)


class RuntimeErr(Exception):
    """A DVE run-time error (out-of-range store etc.)."""


class System:
    """A DVE system: global scalars plus processes with local transitions.

    Transitions are (process, source, target, guard, effect) where guard is a
    function of the state returning a number (0 = false) and effect a function
    that assigns into the state through `set`, in the order of the DVE effect
    list.  This is just bookkeeping; the model-specific content is in the
    tables further down, written by hand from the .dve files.
    """

    def __init__(self, name: str):
        self.name = name
        self.vars: list[tuple[str, tuple, int]] = []  # (name, type, initial)
        self.procs: list[tuple[str, list[str], str]] = []  # (name, states, init)
        self.trans: dict[str, list[tuple]] = {}

    # declarations -----------------------------------------------------------
    def var(self, name: str, typ: tuple, init: int = 0) -> None:
        assert typ[1] <= init <= typ[2]
        self.vars.append((name, typ, init))

    def process(self, name: str, states: list[str], init: str) -> None:
        assert init in states
        self.procs.append((name, states, init))
        self.trans[name] = []

    def t(self, proc: str, src: str, dst: str, guard=None, effect=None) -> None:
        states = dict((p, s) for p, s, _ in self.procs)[proc]
        assert src in states and dst in states, (proc, src, dst)
        self.trans[proc].append((src, dst, guard, effect))

    # layout -------------------------------------------------------------------
    def slots(self) -> list[str]:
        return [v for v, _, _ in self.vars] + [p for p, _, _ in self.procs]

    def state_size_bytes(self) -> int:
        # section 4: globals (byte 1, int 2), then per process a 2-byte control
        # state (these models have no process-local variables)
        return sum(t[3] for _, t, _ in self.vars) + 2 * len(self.procs)

    def initial(self) -> tuple:
        return tuple(i for _, _, i in self.vars) + tuple(i for _, _, i in self.procs)

    # successor generation -----------------------------------------------------
    def successors(self, state: tuple) -> list[tuple]:
        env = View(self, state)
        out = []
        for proc, _states, _init in self.procs:
            for src, dst, guard, effect in self.trans[proc]:
                if env[proc] != src:
                    continue
                if guard is not None and not guard(env):
                    continue
                new = View(self, state)
                new.values[proc] = dst  # control state first (7.2) ...
                if effect is not None:
                    effect(new)  # ... then the effects, in sequence
                out.append(new.freeze())
        return out


class View:
    """Mutable copy of a state, indexed by variable or process name."""

    def __init__(self, system: System, state: tuple):
        self.system = system
        self.values = dict(zip(system.slots(), state))
        self.types = {v: t for v, t, _ in system.vars}

    def __getitem__(self, name: str):
        return self.values[name]

    def set(self, name: str, value: int) -> None:
        typ = self.types[name]
        if not typ[1] <= value <= typ[2]:
            raise RuntimeErr(f"{name} = {value} is outside {typ[0]}")
        self.values[name] = value

    def at(self, proc: str, state: str) -> int:  # DVE's P.s
        return 1 if self.values[proc] == state else 0

    def freeze(self) -> tuple:
        return tuple(self.values[s] for s in self.system.slots())


# ---------------------------------------------------------------------------
# phils2.dve -- Figure 1.1, two dining philosophers
# ---------------------------------------------------------------------------
def phils2() -> System:
    m = System("phils2")
    m.var("fork1", BYTE, 0)
    m.var("fork2", BYTE, 0)
    st = ["think", "hungry", "eat", "done"]
    # Philosopher1 takes fork1 then fork2, puts fork2 then fork1.
    # Philosopher2 takes fork2 then fork1, puts fork1 then fork2.
    for p, first, second in (("Philosopher1", "fork1", "fork2"),
                             ("Philosopher2", "fork2", "fork1")):
        m.process(p, st, "think")
        m.t(p, "think", "hungry", lambda s, f=first: s[f] == 0,
            lambda s, f=first: s.set(f, 1))
        m.t(p, "hungry", "eat", lambda s, f=second: s[f] == 0,
            lambda s, f=second: s.set(f, 1))
        m.t(p, "eat", "done", None, lambda s, f=second: s.set(f, 0))
        m.t(p, "done", "think", None, lambda s, f=first: s.set(f, 0))
    return m


# ---------------------------------------------------------------------------
# bounded_buffer.dve -- Figure 1.3, generalised to a buffer of SIZE slots
# ---------------------------------------------------------------------------
def bounded_buffer(size: int) -> System:
    m = System("bounded_buffer")
    m.var("count", BYTE, 0)   # items in the buffer ("full" == count == SIZE)
    m.var("locked", BYTE, 0)  # the lock
    st = ["acquire", "check", "work", "release"]
    m.process("Producer", st, "acquire")
    m.t("Producer", "acquire", "check", lambda s: s["locked"] == 0,
        lambda s: s.set("locked", 1))
    m.t("Producer", "check", "acquire", lambda s: s["count"] == size,
        lambda s: s.set("locked", 0))
    m.t("Producer", "check", "work", lambda s: s["count"] < size)
    m.t("Producer", "work", "release", None,
        lambda s: s.set("count", s["count"] + 1))
    m.t("Producer", "release", "acquire", None, lambda s: s.set("locked", 0))
    m.process("Consumer", st, "acquire")
    m.t("Consumer", "acquire", "check", lambda s: s["locked"] == 0,
        lambda s: s.set("locked", 1))
    m.t("Consumer", "check", "acquire", lambda s: s["count"] == 0,
        lambda s: s.set("locked", 0))
    m.t("Consumer", "check", "work", lambda s: s["count"] > 0)
    m.t("Consumer", "work", "release", None,
        lambda s: s.set("count", s["count"] - 1))
    m.t("Consumer", "release", "acquire", None, lambda s: s.set("locked", 0))
    return m


# ---------------------------------------------------------------------------
# readers_writers.dve -- Figure 1.4
# ---------------------------------------------------------------------------
def readers_writers(readers: int, writers: int) -> System:
    m = System("readers_writers")
    m.var("nr", INT, 0)
    m.var("nw", INT, 0)
    for i in range(readers):
        p = f"Reader_{i}"
        m.process(p, ["idle", "reading", "leaving"], "idle")
        m.t(p, "idle", "reading", lambda s: s["nw"] == 0,
            lambda s: s.set("nr", s["nr"] + 1))
        m.t(p, "reading", "leaving")
        m.t(p, "leaving", "idle", None, lambda s: s.set("nr", s["nr"] - 1))
    for i in range(writers):
        p = f"Writer_{i}"
        m.process(p, ["idle", "writing", "leaving"], "idle")
        # `nr == 0 && nw < 1`: both operands are comparisons (0/1), so the
        # DVE rule "right operand tested with > 0" agrees with Python's `and`
        m.t(p, "idle", "writing", lambda s: s["nr"] == 0 and s["nw"] < 1,
            lambda s: s.set("nw", s["nw"] + 1))
        m.t(p, "writing", "leaving")
        m.t(p, "leaving", "idle", None, lambda s: s.set("nw", s["nw"] - 1))
    return m


# ---------------------------------------------------------------------------
# sum_to_n.dve -- Figure 1.5 (as described in the text), x kept modulo W
# ---------------------------------------------------------------------------
def sum_to_n(n: int, width: int) -> System:
    m = System("sum_to_n")
    m.var("x", BYTE, 1)
    m.var("t1", BYTE, 0)
    m.var("t2", BYTE, 0)
    m.process("Thread0", ["watch", "violated"], "watch")
    m.t("Thread0", "watch", "watch", lambda s: s["x"] != n)
    m.t("Thread0", "watch", "violated", lambda s: s["x"] == n)
    m.process("Thread1", ["copy", "add"], "copy")
    m.t("Thread1", "copy", "add", None, lambda s: s.set("t1", s["x"]))
    m.t("Thread1", "add", "copy", None,
        lambda s: s.set("x", (s["t1"] + s["t2"]) % width))
    m.process("Thread2", ["copy", "add"], "copy")
    m.t("Thread2", "copy", "add", None, lambda s: s.set("t2", s["x"]))
    m.t("Thread2", "add", "copy", None,
        lambda s: s.set("x", (s["t1"] + s["t2"]) % width))
    return m


# ---------------------------------------------------------------------------
# exploration
# ---------------------------------------------------------------------------
def explore(m: System):
    init = m.initial()
    depth = {init: 0}
    order = [init]
    queue = deque([init])
    edges = 0
    deadlocks = []
    level_states: list[int] = []
    level_edges: list[int] = []
    while queue:
        s = queue.popleft()
        d = depth[s]
        while len(level_states) <= d:
            level_states.append(0)
            level_edges.append(0)
        level_states[d] += 1
        try:
            succ = m.successors(s)
        except RuntimeErr as e:
            sys.exit(f"{m.name}: run-time error reachable from {s}: {e}")
        edges += len(succ)
        level_edges[d] += len(succ)
        if not succ:
            deadlocks.append(s)
        for t in succ:
            if t not in depth:
                depth[t] = d + 1
                order.append(t)
                queue.append(t)
    return {
        "states": len(depth),
        "transitions": edges,
        "deadlocks": deadlocks,
        "levels": len(level_states),
        "level_states": level_states,
        "level_edges": level_edges,
        "depth": depth,
    }


def show(m: System, s: tuple) -> str:
    return ", ".join(f"{k}={v}" for k, v in zip(m.slots(), s))


def check(name: str, m: System, r: dict, args) -> list[str]:
    """Model-specific facts printed under the figures (and sanity checks)."""
    notes = []
    slots = m.slots()
    views = [dict(zip(slots, s)) for s in r["depth"]]
    if name == "phils2":
        for s in r["deadlocks"]:
            notes.append(f"deadlock: {show(m, s)}")
        assert all(v["fork1"] in (0, 1) and v["fork2"] in (0, 1) for v in views)
    elif name == "bounded_buffer":
        assert all(0 <= v["count"] <= args.buffer_size for v in views)
        inside = ("check", "work", "release")
        assert all(not (v["Producer"] in inside and v["Consumer"] in inside)
                   for v in views), "lock violated"
        assert all(v["locked"] == (v["Producer"] in inside or v["Consumer"] in inside)
                   for v in views)
        notes.append(f"invariants hold: 0 <= count <= {args.buffer_size}; "
                     "at most one process holds the lock")
    elif name == "readers_writers":
        assert all((v["nr"] == 0 or v["nw"] == 0) and v["nw"] <= 1 for v in views)
        readers = sum(1 for p in slots if p.startswith("Reader_"))
        assert all(v["nr"] == sum(1 for p in slots if p.startswith("Reader_")
                                  and v[p] != "idle") for v in views)
        both = sum(1 for v in views if v["nr"] == readers)
        notes.append("invariant holds: (nr == 0 or nw == 0) and nw <= 1; "
                     f"{both} states with all {readers} readers inside")
    elif name == "sum_to_n":
        bad = [s for s in r["depth"] if dict(zip(slots, s))["Thread0"] == "violated"]
        first = min(r["depth"][s] for s in bad) if bad else None
        xs = sorted({v["x"] for v in views})
        notes.append(f"Thread0.violated (assertion x != {args.sum_n} fails) in "
                     f"{len(bad)} states; shortest violating run: {first} steps")
        if xs == list(range(args.sum_width)):
            notes.append(f"every value 0..{args.sum_width - 1} of x is reachable")
        else:
            notes.append(f"reachable values of x: {xs}")
    return notes


MODELS = ("phils2", "bounded_buffer", "readers_writers", "sum_to_n")


def build(name: str, args) -> System:
    if name == "phils2":
        return phils2()
    if name == "bounded_buffer":
        return bounded_buffer(args.buffer_size)
    if name == "readers_writers":
        return readers_writers(args.readers, args.writers)
    if name == "sum_to_n":
        return sum_to_n(args.sum_n, args.sum_width)
    raise SystemExit(f"unknown model {name}; known: {', '.join(MODELS)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("models", nargs="*", default=list(MODELS))
    ap.add_argument("--levels", action="store_true",
                    help="also print states and edges per BFS level")
    ap.add_argument("--buffer-size", type=int, default=2,
                    help="SIZE of bounded_buffer (file: 2; 1 = the paper's boolean full)")
    ap.add_argument("--readers", type=int, default=3, help="readers_writers: readers (file: 3)")
    ap.add_argument("--writers", type=int, default=2, help="readers_writers: writers (file: 2)")
    ap.add_argument("--sum-n", type=int, default=3, help="sum_to_n: N (file: 3)")
    ap.add_argument("--sum-width", type=int, default=8,
                    help="sum_to_n: W, x is kept modulo W (file: 8; 256 = 8-bit wrap-around)")
    args = ap.parse_args()
    print(f"{'model':<16} {'states':>8} {'transitions':>12} {'deadlocks':>10} "
          f"{'BFS levels':>11} {'state bytes':>12}")
    for name in args.models:
        m = build(name, args)
        r = explore(m)
        print(f"{name:<16} {r['states']:>8} {r['transitions']:>12} "
              f"{len(r['deadlocks']):>10} {r['levels']:>11} {m.state_size_bytes():>12}")
        for note in check(name, m, r, args):
            print(f"    {note}")
        if args.levels:
            for i, (s, e) in enumerate(zip(r["level_states"], r["level_edges"])):
                print(f"    level {i:>3}: {s:>6} states {e:>7} edges")


if __name__ == "__main__":
    main()
