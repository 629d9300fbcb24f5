# SPDX-License-Identifier: LGPL-2.1-or-later
"""The cffi cdef of the rths package, made from the public headers.

    cdef.py TOP [HEADER...]     print the cdef of HEADERs (default: the
                                package's, INCLUDES below)

The C preprocessor ($CC -E -dD, run in TOP) expands the headers with the
real system headers; what the project's own headers (include/) declare is
kept, everything that came from system headers or the compiler is dropped.
On what is kept:

- line markers stay, relative to TOP, so that cffi names a header's file
  and line when it cannot parse a declaration (and the text does not
  depend on where the tree is checked out);
- "#define NAME VALUE" becomes "#define NAME ..." (cffi asks the compiler
  for the value) when VALUE, with the header's other object-like macros
  expanded, is an integer expression of literals; floating, string,
  function-like and sizeof-based macros have no Python constant;
- a static inline function's body becomes ";" (the compiler builds it
  from the real header), or goes with its prototype where the header
  declared the function before; "#pragma" and "#undef" lines go;
- __attribute__ is defined away; a pointer to const arrays loses the
  const (_CONST_ARRAY_POINTER);
- PRELUDE declares the system headers' types that cffi does not know.

Everything else reaches cffi as the header wrote it, so that cffi lays
out each struct itself and compares the layout with the compiler's; a
construct cffi cannot parse fails build_ffi.py with the header's
file:line.  The text is the same for the same headers and compiler.
"""
import os
import re
import subprocess
import sys

# What the package includes (its extension's C source includes the same).
INCLUDES = ("rths/error.h", "rths/device.h", "rths/hs_backend.h",
            "rths/hs_experiment.h", "rths/hs_groundmotion.h",
            "rths/hs_integrator.h", "rths/hs_plugin.h", "rths/hs_sim.h",
            "rths/files.h")

CPPFLAGS = ["-std=gnu11", "-D_GNU_SOURCE", "-Iinclude/uapi", "-Iinclude",
            "-D__attribute__(x)="]

# The system headers' types that the public headers use and cffi does not
# know (it knows <stdint.h>'s, size_t, bool, FILE): integers whose size
# and sign cffi asks the compiler for ("int...").
PRELUDE = "".join("typedef int... %s;\n" % t for t in (
    "__u8", "__s8", "__u16", "__s16", "__u32", "__s32", "__u64", "__s64",
    "sig_atomic_t"))

# cffi 1.15 writes "const double (*p)[3]" as "double(const * p)[3]" in the
# C it generates; a pointer to const arrays is declared to it without the
# const, which C accepts where the header's function is called.
_CONST_ARRAY_POINTER = re.compile(
    r"\bconst\s+((?:(?:struct|union|enum|unsigned|signed|long|short)\s+)*"
    r"\w+)\s*\(\s*\*")

_MARKER = re.compile(r'^# (\d+) "([^"]*)"')
_DEFINE = re.compile(r"^#define ([A-Za-z_]\w*)(\(?)\s*(.*)$")
_INT_TOKEN = re.compile(r"\s*(0[xX][0-9A-Fa-f]+[uUlL]*|[0-9]+[uUlL]*(?![.\w])"
                        r"|<<|>>|[-+*/%()~|&^])")
_WORD = re.compile(r"\b[A-Za-z_]\w*\b")


class CdefError(Exception):
    pass


def includes_source(headers=INCLUDES):
    return "".join("#include <%s>\n" % h for h in headers)


def compiler():
    return os.environ.get("CC", "gcc").split()


def preprocess(top, headers=INCLUDES):
    cc = compiler()
    r = subprocess.run(cc + ["-E", "-dD"] + CPPFLAGS + ["-"], cwd=top,
                       input=includes_source(headers), capture_output=True,
                       text=True)
    if r.returncode != 0:
        raise CdefError("%s -E failed:\n%s" % (" ".join(cc), r.stderr))
    return r.stdout


def own_lines(text):
    """The lines that came from include/, each chunk after its marker."""
    out, mine = [], False
    for line in text.splitlines():
        m = _MARKER.match(line)
        if m:
            mine = m.group(2).startswith("include/")
            if mine:
                out.append('# %s "%s"' % m.groups())
        elif mine:
            out.append(line)
    return out


def _expand(value, macros, seen=()):
    def word(m):
        name = m.group()
        if name in macros and name not in seen:
            return "(%s)" % _expand(macros[name], macros, seen + (name,))
        return name
    return _WORD.sub(word, value)


def is_int_expression(value):
    pos = 0
    value = value.strip()
    while pos < len(value):
        m = _INT_TOKEN.match(value, pos)
        if not m:
            return False
        pos = m.end()
    return bool(value)


def int_macros(lines):
    """NAME -> value of each macro whose value is an integer expression."""
    macros = {}
    for line in lines:
        m = _DEFINE.match(line)
        if m and not m.group(2):
            macros[m.group(1)] = m.group(3)
    ints = {}
    for name, value in macros.items():
        full = _expand(value, macros, (name,))
        if is_int_expression(full):
            ints[name] = full
    return ints


def int_value(expression):
    """The value of an integer expression of literals."""
    py = re.sub(r"(?<=[0-9A-Fa-f])[uUlL]+\b", "", expression)
    return int(eval(py.replace("/", "//"), {"__builtins__": {}}))


def _normalized(declaration):
    code = (line for line in declaration.splitlines()
            if not line.lstrip().startswith("#"))
    return " ".join(" ".join(code).split())


def strip_bodies(text):
    """A function definition (static inline) becomes a declaration, or
    nothing where the header declared the function before it (cffi takes
    one declaration of a name).  Newlines stay, so that the line markers
    that follow keep their lines."""
    edits, seen = [], set()
    i, n, depth, decl, body = 0, len(text), 0, 0, None
    while i < n:
        c = text[i]
        if c in "\"'":		# literals in a body
            i += 1
            while i < n and text[i] != c:
                i += 2 if text[i] == "\\" else 1
        elif c == ";" and depth == 0:
            seen.add(_normalized(text[decl:i]))
            decl = i + 1
        elif c == "{":
            if depth == 0 and text[decl:i].rstrip().endswith(")"):
                body = i
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and body is not None:
                proto = _normalized(text[decl:body])
                start = decl if proto in seen else body
                edits.append((start, i + 1, "" if proto in seen else ";"))
                seen.add(proto)
                body, decl = None, i + 1
        i += 1
    out, pos = [], 0
    for start, end, repl in edits:
        out += [text[pos:start], repl, "\n" * text.count("\n", start, end)]
        pos = end
    return "".join(out) + text[pos:]


def locate(text, pattern):
    """"FILE:LINE" of the header line where PATTERN (a regex) first
    matches in a cdef text, from its line markers; None if nowhere."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.search(pattern, line):
            for j in range(i - 1, -1, -1):
                m = _MARKER.match(lines[j])
                if m:
                    return "%s:%d" % (m.group(2), int(m.group(1)) + i - j - 1)
            return None
    return None


def cdef(top, headers=INCLUDES):
    """(cdef text, {macro: integer expression})"""
    lines = own_lines(preprocess(top, headers))
    ints = int_macros(lines)
    kept = []
    for line in lines:
        m = _DEFINE.match(line)
        if m:
            kept.append("#define %s ..." % m.group(1)
                        if m.group(1) in ints else "")
        elif line.startswith(("#pragma", "#undef")):
            kept.append("")
        else:
            kept.append(line)
    text = strip_bodies("\n".join(kept) + "\n")
    return PRELUDE + _CONST_ARRAY_POINTER.sub(r"\1 (*", text), ints


def main():
    top = os.path.abspath(sys.argv[1])
    try:
        text, _ = cdef(top, tuple(sys.argv[2:]) or INCLUDES)
    except CdefError as e:
        sys.exit("cdef.py: %s" % e)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
