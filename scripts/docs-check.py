#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Documentation as TAP: every Documentation/*.rst parses with docutils
without a warning, index.rst lists every page, and every man page renders
without a groff warning.  Usage: docs-check.py [TOP]"""
import glob
import os
import subprocess
import sys

from docutils import nodes
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, directives


class TocTree(Directive):
    """Sphinx's toctree, reduced to its list of page names."""
    has_content = True
    option_spec = {"maxdepth": directives.unchanged}

    def run(self):
        node = nodes.bullet_list()
        node["toctree"] = [line.strip() for line in self.content
                           if line.strip()]
        return [node]


directives.register_directive("toctree", TocTree)

top = sys.argv[1] if len(sys.argv) > 1 else "."
pages = sorted(glob.glob(os.path.join(top, "Documentation", "*.rst")))
mans = sorted(glob.glob(os.path.join(top, "Documentation", "man", "*.[1-8]")))
checks = []


def check(name, ok, detail=""):
    checks.append((name, ok, detail))


listed = set()
for page in pages:
    with open(page, encoding="utf-8") as f:
        text = f.read()
    messages = []
    doc = publish_doctree(text, source_path=page, settings_overrides={
        "report_level": 2, "halt_level": 5, "warning_stream": False})
    for m in doc.traverse(nodes.system_message):
        if m["level"] >= 2:
            messages.append("line %s: %s" % (m.get("line", "?"),
                                             m.astext().splitlines()[0]))
    for n in doc.traverse(nodes.bullet_list):
        listed.update(n.get("toctree", []))
    check("rst " + os.path.relpath(page, top), not messages,
          "\n".join(messages))

names = {os.path.splitext(os.path.basename(p))[0] for p in pages}
missing = sorted(names - listed - {"index"})
unknown = sorted(listed - names)
check("index.rst lists every page", not missing and not unknown,
      "not listed: %s; no such page: %s" % (missing, unknown))

for man in mans:
    r = subprocess.run(["man", "--warnings", "-E", "UTF-8", "-l", man],
                       env=dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8"),
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    check("man " + os.path.relpath(man, top),
          r.returncode == 0 and not r.stderr.strip(), r.stderr.strip())

print("TAP version 13")
print("1..%d" % len(checks))
failed = 0
for i, (name, ok, detail) in enumerate(checks, 1):
    print("%s %d %s" % ("ok" if ok else "not ok", i, name))
    if not ok:
        failed = 1
        for line in detail.splitlines():
            print("# " + line)
sys.exit(failed)
