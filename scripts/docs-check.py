#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Documentation as TAP: every Documentation/*.rst parses with docutils
without a warning, an undefined substitution (|G| where \\|G\\| was meant)
or an unresolved reference (a citation such as
[CN109359427B]_ resolves to references.rst, as Sphinx resolves citations
across pages), index.rst lists every page, every man page renders without a
groff warning, and no page or man page names a path outside the repository
(``../shared/...``: a reader has only the repository).
Usage: docs-check.py [TOP]"""
import glob
import os
import re
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


# A path that climbs out of the repository, or one on the machine that
# wrote the page.  Pages write paths from the repository's top.
CLIMB = re.compile(r"(?<![\w./-])((?:\.\./)+[\w.-][\w./-]*)")
ABSOLUTE = re.compile(r"(?<![\w./-])(/(?:work|home|root)/[\w./-]+)")


def outside_paths(text):
    """The paths in @text that lead out of the repository."""
    found = []
    root = os.path.realpath(top)
    for m in CLIMB.finditer(text):
        where = os.path.normpath(os.path.join(root, m.group(1)))
        if os.path.commonpath([root, where]) != root:
            found.append(m.group(1))
    found += [m.group(1) for m in ABSOLUTE.finditer(text)]
    return found


def doctree(text, page):
    return publish_doctree(text, source_path=page, settings_overrides={
        "report_level": 2, "halt_level": 5, "warning_stream": False})


# The citations every page may refer to.
cited = set()
refs = os.path.join(top, "Documentation", "references.rst")
if os.path.exists(refs):
    with open(refs, encoding="utf-8") as f:
        for c in doctree(f.read(), refs).traverse(nodes.citation):
            cited.update(n.lower() for n in c["names"])

listed = set()
for page in pages:
    with open(page, encoding="utf-8") as f:
        text = f.read()
    messages = []
    doc = doctree(text, page)
    for m in doc.traverse(nodes.system_message):
        if m["level"] >= 2:
            messages.append("line %s: %s" % (m.get("line", "?"),
                                             m.astext().splitlines()[0]))
    # an unresolved citation or substitution stays in the text as a
    # "problematic" node (its message is not in the tree: a transform's)
    for n in doc.traverse(nodes.problematic):
        label = re.fullmatch(r"\[([^\]]+)\]_", n.astext())
        if label and label.group(1).lower() not in cited:
            messages.append("unresolved citation %s" % n.astext())
        elif re.fullmatch(r"\|[^|]+\|_{0,2}", n.astext()):
            messages.append("undefined substitution %s (write \\| for a"
                            " literal bar)" % n.astext())
    for n in doc.traverse(nodes.bullet_list):
        listed.update(n.get("toctree", []))
    check("rst " + os.path.relpath(page, top), not messages,
          "\n".join(messages))

names = {os.path.splitext(os.path.basename(p))[0] for p in pages}
missing = sorted(names - listed - {"index"})
unknown = sorted(listed - names)
check("index.rst lists every page", not missing and not unknown,
      "not listed: %s; no such page: %s" % (missing, unknown))

for path in pages + mans:
    with open(path, encoding="utf-8") as f:
        bad = outside_paths(f.read())
    check("no path outside the repository in " + os.path.relpath(path, top),
          not bad, "\n".join(bad))

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
