#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Tests of runner_layers.py: the runner's include graph, its circles and
upward includes, on small made-up trees, then on testcases/runner itself."""

import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import runner_layers as L  # noqa: E402

LAYERS = ["core", "lib", "cmd"]

# A clean tree: main.c above the layers, each layer calling down.
CLEAN = {
    "main.c": '#include "wl.h"\n#include "cmd.h"\nint main(void)\n{\n\treturn wl_run() + cmd_go();\n}\n',
    "core/wl.h": "/* wl_run() runs it all */\nint wl_run(void);\nvoid wl_diag(const char *m);\n"
                 "#define WL_EXPECT(c) do { if (!(c)) wl_diag(#c); } while (0)\n",
    "core/run.c": '#include "wl.h"\nint wl_run(void)\n{\n\twl_diag("x");\n\treturn 0;\n}\n',
    "core/diag.c": '#include "wl.h"\nvoid wl_diag(const char *m)\n{\n\t(void)m;\n}\n',
    "lib/q.h": '#include "wl.h"\nstatic inline int q_open(void)\n{\n\treturn wl_run();\n}\n'
               "int q_read(int fd);\n",
    "lib/q.c": '#include "q.h"\nint q_read(int fd)\n{\n\tWL_EXPECT(fd >= 0);\n\treturn fd;\n}\n',
    "cmd/cmd.h": '#include "q.h"\nint cmd_go(void);\nextern const struct wl_cmd cmd_as;\n',
    "cmd/cmd.c": '#include "cmd.h"\nint cmd_go(void)\n{\n\treturn q_read(q_open()) + cmd_as.n;\n}\n',
    "cmd/cmd_as.c": '#include "cmd.h"\nconst struct wl_cmd cmd_as = { 1 };\n',
}


def tree(files, layers=LAYERS):
    d = Path(tempfile.mkdtemp())
    for name, text in files.items():
        (d / name).parent.mkdir(parents=True, exist_ok=True)
        (d / name).write_text(text)
    return L.Tree(d, layers)


def failed(t):
    return {name: diag for ok, name, diag in t.checks() if not ok}


class Graph(unittest.TestCase):
    def test_clean_tree_passes(self):
        t = tree(CLEAN)
        self.assertEqual(failed(t), {})
        # Each check once per layer, and the entry point's.
        self.assertEqual(len(t.checks()), 3 * len(LAYERS) + 1)

    def test_edges_follow_what_is_used(self):
        t = tree(CLEAN)
        self.assertEqual(t.deps["main.c"], {"core/run.c": ["wl_run"], "cmd/cmd.c": ["cmd_go"]})
        # Through a macro (WL_EXPECT -> wl_diag) and a static inline (q_open -> wl_run).
        self.assertEqual(t.deps["lib/q.c"], {"core/diag.c": ["wl_diag"]})
        self.assertIn("core/run.c", t.deps["cmd/cmd.c"])
        # A variable is a definition too; a comment names nothing.
        self.assertEqual(t.deps["cmd/cmd.c"]["cmd/cmd_as.c"], ["cmd_as"])
        self.assertNotIn("core/run.c", t.deps["core/diag.c"])

    def test_circle_in_a_layer(self):
        files = dict(CLEAN)
        files["core/diag.c"] = ('#include "wl.h"\nvoid wl_diag(const char *m)\n{\n'
                                '\t(void)m;\n\twl_run();\n}\n')
        bad = failed(tree(files))
        self.assertEqual(sorted(bad), ["no_circle:core"])
        self.assertIn("core/diag.c [wl_run] -> core/run.c [wl_diag] -> core/diag.c",
                      bad["no_circle:core"])

    def test_circle_across_layers_is_an_upward_call(self):
        files = dict(CLEAN)
        files["core/run.c"] = ('#include "wl.h"\nint cmd_go(void);\nint wl_run(void)\n{\n'
                               '\treturn cmd_go();\n}\n')
        files["core/wl.h"] += "int cmd_go(void);\n"
        bad = failed(tree(files))
        self.assertIn("core/run.c calls cmd/cmd.c (cmd): cmd_go", bad["calls_point_down:core"])
        self.assertIn("no_circle:core", bad)
        self.assertIn("no_circle:cmd", bad)

    def test_upward_include(self):
        files = dict(CLEAN)
        files["lib/q.c"] = '#include "cmd.h"\n' + files["lib/q.c"]
        bad = failed(tree(files))
        self.assertEqual(bad["includes_point_down:lib"], "lib/q.c includes cmd/cmd.h (cmd)")

    def test_entry_point_inside_a_layer(self):
        files = dict(CLEAN)
        files["core/main.c"] = files.pop("main.c")
        bad = failed(tree(files))
        self.assertIn("core/main.c defines main() inside layer core",
                      bad["entry_point_above_layers"])
        # ... and it calls up into cmd.
        self.assertIn("core/main.c calls cmd/cmd.c (cmd): cmd_go", bad["calls_point_down:core"])

    def test_no_entry_point(self):
        files = dict(CLEAN)
        del files["main.c"]
        self.assertEqual(failed(tree(files)), {"entry_point_above_layers": "no file defines main()"})

    def test_layers_from_the_makefile(self):
        mk = Path(tempfile.mkdtemp()) / "Makefile"
        mk.write_text("X := 1\nRUNNER_LAYERS := core lib scenario\n")
        self.assertEqual(L.layers_of(mk), ["core", "lib", "scenario"])

    def test_the_runner_itself(self):
        """testcases/runner, with the Makefile's layers: every check passes."""
        t = L.Tree(L.TOP / "testcases/runner", L.layers_of(L.TOP / "Makefile"))
        self.assertEqual(failed(t), {})
        self.assertEqual([f for f in t.mains], ["main.c"])


if __name__ == "__main__":
    unittest.main(verbosity=1)
