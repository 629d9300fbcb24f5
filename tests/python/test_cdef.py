# SPDX-License-Identifier: LGPL-2.1-or-later
"""The package's cdef comes from the public headers (python/cdef.py):
reproducible, and a header that cffi cannot take, or lay out as the
compiler does, fails the build naming it.  Needs the compiler and the
built library (RTHS_LIBDIR, which make python-check sets)."""
import os
import shutil
import subprocess
import sys

import pytest

from rths._rths_ffi import lib

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "python"))
import cdef  # noqa: E402

LIBDIR = os.environ.get("RTHS_LIBDIR")
pytestmark = pytest.mark.skipif(
    not LIBDIR, reason="RTHS_LIBDIR not set (make python-check sets it)")


def test_cdef_is_reproducible_and_names_only_the_headers(tmp_path):
    text, ints = cdef.cdef(TOP)
    assert cdef.cdef(TOP) == (text, ints)
    assert TOP not in text
    markers = {line.split('"')[1] for line in text.splitlines()
               if line.startswith("# ")}
    assert markers and all(m.startswith("include/") for m in markers)
    # the same text from a copy of the headers elsewhere
    shutil.copytree(os.path.join(TOP, "include"), tmp_path / "include")
    assert cdef.cdef(str(tmp_path)) == (text, ints)


def test_constants_are_the_headers():
    _, ints = cdef.cdef(TOP)
    for name in ("RTHS_HS_MAX_PLUGINS", "RTHS_MAX_CHANNELS",
                 "RTHS_FB_F_GAP", "RTHS_E_BASE"):
        assert getattr(lib, name) == cdef.int_value(ints[name])
    # a float (RTHS_HS_G) or a string (RTHS_HS_PLUGIN_SYMBOL) is none
    assert "RTHS_HS_G" not in ints and "RTHS_HS_PLUGIN_SYMBOL" not in ints


def test_every_declared_function_is_there():
    text, _ = cdef.cdef(TOP)
    # every prototype the compiler sees in the package's headers
    aux = subprocess.run(
        cdef.compiler() + cdef.CPPFLAGS + ["-fsyntax-only", "-aux-info",
                                   "/dev/stdout", "-x", "c", "-"],
        cwd=TOP, input=cdef.includes_source(), capture_output=True,
        text=True, check=True).stdout
    names = {line.split("(")[0].split()[-1].lstrip("*")
             for line in aux.splitlines() if "include/rths/" in line}
    assert "rths_hs_experiment_run" in names
    missing = [n for n in sorted(names) if not hasattr(lib, n)]
    assert not missing


def patched_top(tmp_path, header, text):
    """A copy of the headers with TEXT before HEADER's last #endif; the
    line it lands on."""
    shutil.copytree(os.path.join(TOP, "include"), tmp_path / "include")
    path = tmp_path / "include" / header
    head, tail = path.read_text().rsplit("#endif", 1)
    path.write_text(head + text + "\n#endif" + tail)
    return head.count("\n") + 1


def build(tmp_path):
    return subprocess.run(
        [sys.executable, os.path.join(TOP, "python/build_ffi.py"),
         str(tmp_path), LIBDIR, str(tmp_path / "out")],
        capture_output=True, text=True)


def test_a_construct_cffi_cannot_take_fails_naming_its_line(tmp_path):
    line = patched_top(tmp_path, "rths/files.h",
                       "_Static_assert(sizeof(int) == 4, \"int\");")
    r = build(tmp_path)
    assert r.returncode != 0
    assert "include/rths/files.h:%d:" % line in r.stderr
    assert "StaticAssert" in r.stderr


def test_a_layout_cffi_does_not_see_fails_naming_the_struct(tmp_path):
    line = patched_top(tmp_path, "rths/files.h",
                       "struct rths_py_aligned { char c; "
                       "double d __attribute__((aligned(32))); };")
    r = build(tmp_path)
    assert r.returncode != 0
    assert "struct rths_py_aligned" in r.stderr
    assert "include/rths/files.h:%d:" % line in r.stderr
    assert "wrong offset for field 'd'" in r.stderr
