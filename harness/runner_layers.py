#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The in-guest runner's layering, derived from its include graph.

testcases/runner/ has layers, lowest first, as the Makefile's RUNNER_LAYERS
lists them (core lib scenario cmd suites), each a folder, and the entry
point above them all: the files directly in testcases/runner/ (main.c).  A
file may call only down: into its own layer or a lower one, never into a
layer above, and no two files may depend on each other, however far round.

The graph: a file's #include "x.h" lines, resolved as gcc does with the
Makefile's flags (the including file's folder, then each layer's folder in
RUNNER_LAYERS order; a header found nowhere, such as the generated
wl_lists.h, is outside the tree).  A header belongs to the .c files that
define what it offers: the functions it declares, or names in its macros'
bodies (WL_SUITE offers wl_register_suite()).  File A depends on file B
when A includes, directly or through other headers, a header that offers
a function B defines and A names that function (itself or through a macro
of those headers).  So a header that declares the functions of several
files ties its includer only to the files whose functions it uses.

Checks, each reported as a line "ok|not ok<TAB>NAME<TAB>DIAGNOSTIC":
  includes_point_down:LAYER  no file of LAYER includes a header of a higher
                             layer (or of the entry point)
  calls_point_down:LAYER     no file of LAYER depends on a file of a higher
                             layer
  no_circle:LAYER            no circle of dependencies through a file of
                             LAYER (each circle is printed file by file)
  entry_point_above_layers   main() is defined only above the layers

What the graph cannot see: a function a layer reaches through a pointer.
The registry (core/registry.c) calls the suites' and programs' functions
that WL_SUITE and WL_REGISTER hand it, upward by design; the entry point
above every layer is what calls through it.

Usage: runner_layers.py [--dot] [RUNNER_DIR [MAKEFILE]]; exit 1 on any
failed check, 2 when it could not read the tree.  --dot prints the file
graph instead (Graphviz).
"""

import re
import sys
from pathlib import Path

TOP = Path(__file__).resolve().parent.parent
ENTRY = "(entry point)"

_COMMENT_OR_LITERAL = re.compile(
    r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)
_IDENT = re.compile(r"[A-Za-z_]\w*")
# A function definition at file scope: a return type, the name, the
# parameters, then the body; not static (a static is no other file's).
_FUNC_DEF = re.compile(
    r"^(?!static\b|extern\b|typedef\b|#)[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*"
    r"\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*\{", re.M)
# ... and one returning a function pointer: int (*name(args))(args) {
_FUNCPTR_DEF = re.compile(
    r"^(?!static\b)[A-Za-z_][\w \t\*]*\(\s*\*\s*([A-Za-z_]\w*)\s*\([^;{}()]*\)\s*\)"
    r"\s*\([^;{}()]*\)\s*\{", re.M)
# A variable defined at file scope, not static: const struct wl_cmd wl_cmd_as = {
_VAR_DEF = re.compile(
    r"^(?!static\b|extern\b|typedef\b|return\b|#)(?:const[ \t]+)?(?:(?:struct|enum|union)[ \t]+)?"
    r"[A-Za-z_]\w*[ \t\*]+(?:const[ \t]+)?([A-Za-z_]\w*)[ \t]*(?:\[[^\]\n]*\][ \t]*)*(?:=|;)",
    re.M)
# A header's static inline function: its body is its includers' as a macro's is.
_INLINE = re.compile(r"^static[ \t]+inline\b[^;{}]*?\b([A-Za-z_]\w*)\s*\([^;{}]*\)\s*\{", re.M)
# A tag (enum wl_transport) is a type, not a use of a function of that name.
_TAG = re.compile(r"\b(?:enum|struct|union)\s+[A-Za-z_]\w*")
_MACRO = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)((?:[^\n\\]|\\.)*)", re.M | re.S)


def strip(text):
    """The text without comments and string or character literals (each
    replaced by a space, or by as many newlines as it spanned)."""
    def blank(m):
        s = m.group(0)
        if s.startswith('"') or s.startswith("'"):
            return '""'
        return "\n" * s.count("\n") or " "
    return _COMMENT_OR_LITERAL.sub(blank, text)


def idents(text):
    """The identifiers a piece of C names, struct, enum and union tags left out."""
    return set(_IDENT.findall(_TAG.sub(" ", text)))


def body(text, start):
    """The text from start (just after a "{") to its matching "}"."""
    depth, i = 1, start
    while depth and i < len(text):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        i += 1
    return text[start:i]


def layers_of(makefile):
    """RUNNER_LAYERS from the Makefile, lowest first."""
    m = re.search(r"^RUNNER_LAYERS\s*:?=\s*(.*)$", Path(makefile).read_text(), re.M)
    if not m:
        raise SystemExit(f"{makefile}: no RUNNER_LAYERS line")
    return m.group(1).split()


class Tree:
    """The runner's files, includes, definitions and dependencies."""

    def __init__(self, root, layers):
        self.root = Path(root)
        self.layers = list(layers)
        self.files = sorted(
            p.relative_to(self.root).as_posix()
            for p in self.root.rglob("*") if p.suffix in (".c", ".h") and p.is_file())
        if not self.files:
            raise SystemExit(f"{self.root}: no .c or .h file")
        self.text = {f: strip((self.root / f).read_text(errors="replace")) for f in self.files}
        self.includes = {f: self._includes(f) for f in self.files}
        self.defs = {}          # function or variable -> the .c file defining it
        self.mains = []         # files defining main()
        for f in self.files:
            if not f.endswith(".c"):
                continue
            names = (_FUNC_DEF.findall(self.text[f]) + _FUNCPTR_DEF.findall(self.text[f]) +
                     _VAR_DEF.findall(self.text[f]))
            for n in names:
                if n == "main":
                    self.mains.append(f)
                else:
                    self.defs.setdefault(n, f)
        self.macros = {}        # header -> {macro: identifiers of its body}
        for f in self.files:
            if f.endswith(".h"):
                self.macros[f] = {m.group(1): idents(m.group(2))
                                  for m in _MACRO.finditer(self.text[f])}
                for m in _INLINE.finditer(self.text[f]):
                    self.macros[f][m.group(1)] = idents(body(self.text[f], m.end()))
        self.deps = {f: self._deps(f) for f in self.files if f.endswith(".c")}

    def layer(self, f):
        """The layer a file is in, or ENTRY for a file above them all."""
        first = f.split("/", 1)[0]
        return first if "/" in f and first in self.layers else ENTRY

    def rank(self, f):
        lay = self.layer(f)
        return self.layers.index(lay) if lay != ENTRY else len(self.layers)

    def _resolve(self, f, name):
        """Where gcc finds #include "name" from f: f's folder, then -I of each layer."""
        here = Path(f).parent
        for d in [here] + [Path(lay) for lay in self.layers]:
            cand = (d / name).as_posix()
            if cand in self.text:
                return cand
        return None

    def _includes(self, f):
        out = []
        raw = (self.root / f).read_text(errors="replace")
        for name in _INCLUDE.findall(_COMMENT.sub(" ", raw)):
            r = self._resolve(f, name)
            if r:
                out.append(r)
        return out

    def headers_seen(self, f):
        """Every header f includes, directly or through other headers."""
        seen, todo = [], list(self.includes[f])
        while todo:
            h = todo.pop(0)
            if h in seen:
                continue
            seen.append(h)
            todo.extend(self.includes.get(h, []))
        return seen

    def _deps(self, f):
        """{file f depends on: [function names]} (see the module's doc)."""
        headers = self.headers_seen(f)
        macros = {}
        for h in headers:
            macros.update(self.macros.get(h, {}))
        used = idents(self.text[f])
        todo = [n for n in used if n in macros]
        while todo:         # the names the used macros name, and theirs
            for n in macros.pop(todo.pop(), ()):
                if n not in used:
                    used.add(n)
                    if n in macros:
                        todo.append(n)
        offered = set()
        for h in headers:
            offered |= set(_IDENT.findall(self.text[h]))
        out = {}
        for n in sorted(used & offered):
            g = self.defs.get(n)
            if g and g != f:
                out.setdefault(g, []).append(n)
        return out

    def circles(self):
        """Each strongly connected group of files (Tarjan), with one circle
        through it, as a list of files ending where it began."""
        index, low, stack, on, groups = {}, {}, [], set(), []
        counter = [0]

        def visit(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            for w in self.deps.get(v, {}):
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                group = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    group.append(w)
                    if w == v:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))

        sys.setrecursionlimit(10000)
        for v in sorted(self.deps):
            if v not in index:
                visit(v)
        return [(g, self._circle_in(g)) for g in sorted(groups)]

    def _circle_in(self, group):
        """A shortest circle through the group's first file."""
        start, members = group[0], set(group)
        paths, seen = [[start]], {start}
        while paths:
            nxt = []
            for p in paths:
                for w in sorted(self.deps.get(p[-1], {})):
                    if w == start:
                        return p + [start]
                    if w in members and w not in seen:
                        seen.add(w)
                        nxt.append(p + [w])
            paths = nxt
        return group + [start]

    def checks(self):
        """[(ok, name, diagnostic)], every check of the module's doc."""
        results = []
        circles = self.circles()
        for lay in self.layers:
            files = [f for f in self.files if self.layer(f) == lay]
            bad = [f"{f} includes {h} ({self.layer(h)})"
                   for f in files for h in self.includes[f] if self.rank(h) > self.rank(f)]
            results.append((not bad, f"includes_point_down:{lay}", "\n".join(bad)))
            bad = [f"{f} calls {g} ({self.layer(g)}): {', '.join(ns)}"
                   for f in files if f in self.deps
                   for g, ns in sorted(self.deps[f].items()) if self.rank(g) > self.rank(f)]
            results.append((not bad, f"calls_point_down:{lay}", "\n".join(bad)))
            mine = [(g, c) for g, c in circles if any(self.layer(f) == lay for f in g)]
            diag = "\n".join(f"circle among {len(g)} files ({', '.join(g)}), e.g. " +
                             " -> ".join(self._step(c, i) for i in range(len(c)))
                             for g, c in mine)
            results.append((not mine, f"no_circle:{lay}", diag))
        inside = [f for f in self.mains if self.layer(f) != ENTRY]
        results.append((bool(self.mains) and not inside, "entry_point_above_layers",
                        "\n".join(f"{f} defines main() inside layer {self.layer(f)}: the entry "
                                  "point calls every layer, so it belongs above them"
                                  for f in inside) or
                        ("" if self.mains else "no file defines main()")))
        return results

    def _step(self, circle, i):
        """A circle's i-th file, with what it calls of the next."""
        f = circle[i]
        if i + 1 == len(circle):
            return f
        ns = self.deps[f][circle[i + 1]]
        return f"{f} [{', '.join(ns[:3])}{', ...' if len(ns) > 3 else ''}]"

    def dot(self):
        lines = ["digraph runner {", "  rankdir=BT;"]
        for f in sorted(self.deps):
            for g in sorted(self.deps[f]):
                lines.append(f'  "{f}" -> "{g}";')
        lines.append("}")
        return "\n".join(lines)


def main(argv):
    dot = "--dot" in argv
    args = [a for a in argv if a != "--dot"]
    root = Path(args[0]) if args else TOP / "testcases/runner"
    makefile = Path(args[1]) if len(args) > 1 else TOP / "Makefile"
    try:
        tree = Tree(root, layers_of(makefile))
    except (OSError, SystemExit) as e:
        print(f"not ok\trunner_layers_script\t{e}")
        return 2
    if dot:
        print(tree.dot())
        return 0
    failed = 0
    for ok, name, diag in tree.checks():
        failed += not ok
        print(f"{'ok' if ok else 'not ok'}\t{name}\t{diag.replace(chr(10), ' | ')}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
