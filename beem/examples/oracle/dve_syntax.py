#!/usr/bin/env python3
"""Stand-alone syntax check of DVE files against the grammar of
docs/dve-language.md section 2 (plus the simple name rules of 3.1).

Used to double-check beem/examples/*.dve independently of the project's
parser. It only accepts or rejects; it builds no model.

Usage: python3 dve_syntax.py FILE.dve ...      (exit status 1 on any error)
Python 3.11, standard library only.
"""

from __future__ import annotations

import re
import sys

KEYWORDS = set("""guard sync async effect process state init accept commit trans
system true false and or not imply int byte const channel property assert buchi
genbuchi streett rabin muller""".split())

PUNCT = ["->", "=>", "<<", ">>", "||", "&&", "<=", ">=", "==", "!=", "++", "--",
         ".", ",", ";", ":", "{", "}", "[", "]", "(", ")", "?", "!", "~", "=",
         "+", "-", "*", "/", "%", "|", "&", "^", "<", ">"]

TOKEN = re.compile(
    r"(?P<ws>[ \t\r\n]+|\\[ \t]*\n)"
    r"|(?P<lc>//[^\n]*)"
    r"|(?P<bc>/\*)"
    r"|(?P<id>[A-Za-z_][A-Za-z0-9_$#]*)"
    r"|(?P<num>[0-9]+)"
    r"|(?P<p>" + "|".join(re.escape(p) for p in PUNCT) + ")")


class SyntaxErr(Exception):
    pass


def lex(src: str):
    toks, i, line = [], 0, 1
    while i < len(src):
        m = TOKEN.match(src, i)
        if not m:
            raise SyntaxErr(f"line {line}: bad character {src[i]!r}")
        kind = m.lastgroup
        text = m.group(kind)
        if kind == "bc":
            # block comment; a // inside swallows the rest of its line
            j = i + 2
            while True:
                if j >= len(src):
                    raise SyntaxErr(f"line {line}: unterminated comment")
                if src.startswith("*/", j):
                    j += 2
                    break
                if src.startswith("//", j):
                    k = src.find("\n", j)
                    j = len(src) if k < 0 else k
                    continue
                j += 1
            line += src.count("\n", i, j)
            i = j
            continue
        if kind == "id":
            toks.append(("kw" if text in KEYWORDS else "id", text, line))
        elif kind == "num":
            toks.append(("num", text, line))
        elif kind == "p":
            toks.append(("p", text, line))
        line += text.count("\n")
        i = m.end()
    toks.append(("eof", "", line))
    return toks


class Parser:
    def __init__(self, toks):
        self.t = toks
        self.i = 0
        self.globals: dict[str, str] = {}  # name -> kind
        self.procs: dict[str, set[str]] = {}  # process -> its state names
        self.forward_tests: list[tuple[str, str, int]] = []
        self.chan_arity: dict[str, int] = {}

    # token helpers
    def peek(self, k=0):
        return self.t[self.i + k]

    def at(self, text, k=0):
        tok = self.peek(k)
        return tok[0] in ("kw", "p") and tok[1] == text

    def fail(self, what):
        kind, text, line = self.peek()
        raise SyntaxErr(f"line {line}: expected {what}, found {text or 'end of file'!r}")

    def eat(self, text):
        if not self.at(text):
            self.fail(repr(text))
        self.i += 1

    def ident(self):
        kind, text, _ = self.peek()
        if kind != "id":
            self.fail("an identifier" + (f" ({text!r} is a keyword)" if kind == "kw" else ""))
        self.i += 1
        return text

    def number(self):
        kind, text, _ = self.peek()
        if kind != "num":
            self.fail("a number")
        self.i += 1
        return int(text)

    def line(self):
        return self.peek()[2]

    # grammar
    def model(self):
        while self.at("const") or self.at("byte") or self.at("int") or self.at("channel"):
            if self.at("channel"):
                self.chan_decl()
            else:
                self.var_decl(self.globals, None)
        if not self.at("process"):
            self.fail("'process'")
        while self.at("process"):
            self.process()
        self.eat("system")
        if self.at("async") or self.at("sync"):
            self.i += 1
        else:
            self.fail("'async' or 'sync'")
        if self.at("property"):
            self.i += 1
            p = self.ident()
            if p not in self.procs:
                raise SyntaxErr(f"property process {p} is not declared")
        self.eat(";")
        if self.peek()[0] != "eof":
            self.fail("end of file")
        for p, s, line in self.forward_tests:
            if p not in self.procs or s not in self.procs[p]:
                raise SyntaxErr(f"line {line}: {p}.{s} names no process state")

    def declare(self, scope, name, kind, line):
        if name in scope:
            raise SyntaxErr(f"line {line}: {name} redeclared")
        if scope is self.globals and name in self.procs:
            raise SyntaxErr(f"line {line}: {name} redeclared")
        scope[name] = kind

    def var_decl(self, scope, local):
        const = False
        if self.at("const"):
            const = True
            self.i += 1
        if not (self.at("byte") or self.at("int")):
            self.fail("'byte' or 'int'")
        self.i += 1
        while True:
            line = self.line()
            name = self.ident()
            kind = "const" if const else "var"
            if self.at("["):
                self.i += 1
                if self.number() < 1:
                    raise SyntaxErr(f"line {line}: array size must be >= 1")
                self.eat("]")
                kind = "array"
            if self.at("="):
                self.i += 1
                if self.at("{"):
                    if kind != "array":
                        raise SyntaxErr(f"line {line}: list initialiser on a scalar")
                    self.i += 1
                    self.expr(local)
                    while self.at(","):
                        self.i += 1
                        self.expr(local)
                    self.eat("}")
                else:
                    if kind == "array":
                        raise SyntaxErr(f"line {line}: scalar initialiser on an array")
                    self.expr(local)
            self.declare(scope, name, kind, line)
            if self.at(","):
                self.i += 1
                continue
            self.eat(";")
            return

    def chan_decl(self):
        self.eat("channel")
        if self.at("{"):
            self.i += 1
            n = 1
            self.type_kw()
            while self.at(","):
                self.i += 1
                self.type_kw()
                n += 1
            self.eat("}")
            while True:
                line = self.line()
                name = self.ident()
                self.eat("[")
                self.number()
                self.eat("]")
                self.declare(self.globals, name, "channel", line)
                self.chan_arity[name] = n
                if not self.at(","):
                    break
                self.i += 1
        else:
            while True:
                line = self.line()
                self.declare(self.globals, self.ident(), "channel", line)
                if not self.at(","):
                    break
                self.i += 1
        self.eat(";")

    def type_kw(self):
        if self.at("byte") or self.at("int"):
            self.i += 1
        else:
            self.fail("'byte' or 'int'")

    def process(self):
        self.eat("process")
        line = self.line()
        name = self.ident()
        if name in self.globals or name in self.procs:
            raise SyntaxErr(f"line {line}: {name} redeclared")
        self.procs[name] = set()
        local: dict[str, str] = {}
        self.eat("{")
        while self.at("const") or self.at("byte") or self.at("int"):
            self.var_decl(local, local)
        self.eat("state")
        while True:
            line = self.line()
            s = self.ident()
            self.declare(local, s, "state", line)
            self.procs[name].add(s)
            if not self.at(","):
                break
            self.i += 1
        self.eat(";")
        states = self.procs[name]
        seen_init = seen_commit = seen_accept = False
        while self.at("init") or self.at("commit") or self.at("accept"):
            kw = self.peek()[1]
            if (kw == "init" and seen_init) or (kw == "commit" and seen_commit) \
                    or (kw == "accept" and seen_accept):
                self.fail("one 'init', at most one 'commit' and 'accept'")
            self.i += 1
            if kw == "init":
                seen_init = True
                self.state_ref(states)
            elif kw == "commit":
                seen_commit = True
                self.state_list(states)
            else:
                seen_accept = True
                if self.at("buchi"):
                    self.i += 1
                if self.at("genbuchi") or self.at("muller") or self.at("rabin") or self.at("streett"):
                    self.fail("plain accept (generalised acceptance not checked here)")
                self.state_list(states)
            self.eat(";")
        if not seen_init:
            self.fail("'init'")
        if self.at("assert"):
            self.i += 1
            while True:
                self.state_ref(states)
                self.eat(":")
                self.expr(local)
                if not self.at(","):
                    break
                self.i += 1
            self.eat(";")
        if self.at("trans"):
            self.i += 1
            self.transition(states, local, first=True)
            while self.at(","):
                self.i += 1
                self.transition(states, local, first=False)
            self.eat(";")
        self.eat("}")

    def state_ref(self, states):
        line = self.line()
        s = self.ident()
        if s not in states:
            raise SyntaxErr(f"line {line}: {s} is not a state of this process")

    def state_list(self, states):
        self.state_ref(states)
        while self.at(","):
            self.i += 1
            self.state_ref(states)

    def transition(self, states, local, first):
        if self.at("->"):
            if first:
                self.fail("a source state")
        else:
            self.state_ref(states)
        self.eat("->")
        self.state_ref(states)
        self.eat("{")
        if self.at("guard"):
            self.i += 1
            self.expr(local)
            self.eat(";")
        if self.at("sync"):
            self.i += 1
            line = self.line()
            ch = self.ident()
            if self.globals.get(ch) != "channel":
                raise SyntaxErr(f"line {line}: {ch} is not a channel")
            if self.at("!"):
                self.i += 1
                n = self.sync_values(local, send=True)
            else:
                self.eat("?")
                n = self.sync_values(local, send=False)
            if self.chan_arity.setdefault(ch, n) != n:
                raise SyntaxErr(f"line {line}: {ch} used with {n} values, "
                                f"first use had {self.chan_arity[ch]}")
            self.eat(";")
        if self.at("effect"):
            self.i += 1
            self.assign(local)
            while self.at(","):
                self.i += 1
                self.assign(local)
            self.eat(";")
        self.eat("}")

    def sync_values(self, local, send):
        one = self.expr if send else self.lvalue
        if self.at(";"):
            return 0
        if self.at("{"):
            self.i += 1
            one(local)
            n = 1
            while self.at(","):
                self.i += 1
                one(local)
                n += 1
            self.eat("}")
            return n
        one(local)
        return 1

    def lookup(self, name, local, line):
        kind = (local or {}).get(name) or self.globals.get(name)
        if kind is None or kind == "state":
            raise SyntaxErr(f"line {line}: {name} is not a declared variable")
        return kind

    def lvalue(self, local):
        line = self.line()
        name = self.ident()
        kind = self.lookup(name, local, line)
        if kind == "array":
            self.eat("[")
            self.expr(local)
            self.eat("]")
        elif kind != "var":
            raise SyntaxErr(f"line {line}: cannot assign to {kind} {name}")

    def assign(self, local):
        self.lvalue(local)
        self.eat("=")
        self.expr(local)

    # expressions, lowest to highest binding (section 2 table)
    LEVELS = [["imply"], ["or", "||", "and", "&&"], ["|", "&", "^"], ["==", "!="],
              ["<", "<=", ">", ">="], ["<<", ">>"], ["+", "-"], ["*", "/", "%"]]

    def expr(self, local, level=0):
        if level == len(self.LEVELS):
            return self.unary(local)
        self.expr(local, level + 1)
        while any(self.at(op) for op in self.LEVELS[level]):
            self.i += 1
            self.expr(local, level + 1)

    def unary(self, local):
        if self.at("-") or self.at("~") or self.at("not"):
            self.i += 1
            return self.unary(local)
        self.primary(local)

    def primary(self, local):
        kind, text, line = self.peek()
        if kind == "num" or self.at("true") or self.at("false"):
            self.i += 1
            return
        if self.at("("):
            self.i += 1
            self.expr(local)
            self.eat(")")
            return
        name = self.ident()
        if self.at("."):
            self.i += 1
            s = self.ident()
            self.forward_tests.append((name, s, line))
            return
        if self.at("->"):
            self.i += 1
            self.ident()
            if self.at("["):
                self.i += 1
                self.expr(local)
                self.eat("]")
            if name not in self.procs:
                raise SyntaxErr(f"line {line}: {name} is not an earlier process")
            return
        vk = self.lookup(name, local, line)
        if vk == "channel":
            raise SyntaxErr(f"line {line}: channel {name} used as a value")
        if vk == "array" or self.at("["):
            self.eat("[")
            self.expr(local)
            self.eat("]")


def check(path: str) -> str | None:
    try:
        src = open(path, encoding="utf-8").read()
        Parser(lex(src)).model()
    except SyntaxErr as e:
        return str(e)
    return None


def main() -> int:
    bad = 0
    for path in sys.argv[1:]:
        err = check(path)
        if err:
            bad += 1
            print(f"{path}: {err}")
    print(f"{len(sys.argv) - 1 - bad} ok, {bad} rejected")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
