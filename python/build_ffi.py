# SPDX-License-Identifier: LGPL-2.1-or-later
"""Build rths._rths_ffi, the cffi (API mode) extension under the rths
package, against the in-tree headers and librths.so.2.

    build_ffi.py TOP LIBDIR OUTDIR

TOP is the repository, LIBDIR holds librths.so.2 (it becomes the
extension's rpath), OUTDIR is where the package is assembled (cffi's
temporary files go under OUTDIR/.tmp, never into the source tree).

The cdef is not written here: cdef.py makes it from the public headers
the package includes (the C preprocessor's view of them, see its
docstring) and it is kept in OUTDIR/rths_cdef.h for reading; the only
declarations of this file are the package's own callbacks.  cffi lays
out each struct of the headers itself and compares its layout with the
compiler's when the type is first used, so every struct and union is
used once after the build: a header that cffi cannot parse, or whose
layout it does not see (an alignment attribute), fails the build with
the header's file and line.
"""
import importlib.util
import os
import sys

import cffi

import cdef

# The package's own declarations: the Python side of a plug-in.  alloc
# has one entry per registration slot (it is told nothing else that says
# which Python class to make); the others find the Python object through
# their state handle.
CALLBACKS = r"""
extern "Python" int _py_start(void *, const double *, const double *,
	const double *, const double *, const double *, struct rths_error *);
extern "Python" int _py_predict(void *, uint64_t, const double *,
	const double *, const double *, const double *, double *,
	struct rths_error *);
extern "Python" int _py_correct(void *, uint64_t, const double *,
	const double *, const double *, const double *, const double *,
	const double *, double *, double *, double *, struct rths_error *);
extern "Python" void _py_free(void *);
"""

ALLOC = ('extern "Python" int _py_alloc_%d(void **, '
         'const struct rths_hs_integrator_problem *, struct rths_error *);\n')


def check_layouts(so, text):
    """Lay out every struct and union once: cffi compares its layout of
    each with the compiler's only when the type is first used."""
    spec = importlib.util.spec_from_file_location("rths._rths_ffi", so)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    _, structs, unions = mod.ffi.list_types()
    for kind, names in (("struct", structs), ("union", unions)):
        for name in names:
            try:
                mod.ffi.typeof("%s %s" % (kind, name)).fields
            except mod.ffi.error as e:
                where = cdef.locate(text, r"\b%s %s\s*\{" % (kind, name))
                # cffi's advice ("...;") is for a hand-written cdef
                why = str(e).split(". fix it")[0]
                sys.exit("build_ffi.py: %s: %s %s: cffi does not lay it "
                         "out as the compiler does (an attribute or "
                         "alignment it cannot see): %s"
                         % (where or "?", kind, name, why))


def main():
    top, libdir, outdir = (os.path.abspath(a) for a in sys.argv[1:4])
    try:
        text, ints = cdef.cdef(top)
    except cdef.CdefError as e:
        sys.exit("build_ffi.py: %s" % e)
    plugins = cdef.int_value(ints["RTHS_HS_MAX_PLUGINS"])
    text += CALLBACKS + "".join(ALLOC % i for i in range(plugins))
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "rths_cdef.h"), "w") as f:
        f.write(text)
    ffi = cffi.FFI()
    cdef_h = os.path.join(outdir, "rths_cdef.h")
    try:
        ffi.cdef(text)
    except (cffi.CDefError, cffi.FFIError) as e:
        sys.exit("build_ffi.py: cffi cannot take a declaration of the "
                 "public headers (%s): %s" % (cdef_h, e))
    ffi.set_source(
        "rths._rths_ffi", cdef.includes_source(),
        include_dirs=[os.path.join(top, "include/uapi"),
                      os.path.join(top, "include")],
        extra_compile_args=["-std=gnu11", "-Wall", "-Werror",
                            "-Wno-unused-variable",
                            "-Wno-unused-but-set-variable"],
        library_dirs=[libdir],
        # the soname, not the development symlink
        extra_link_args=["-l:librths.so.2", "-Wl,-rpath," + libdir])
    tmp = os.path.join(outdir, ".tmp")
    os.makedirs(tmp, exist_ok=True)
    try:
        so = ffi.compile(tmpdir=tmp, verbose=False)
    except cffi.VerificationError as e:
        sys.exit("build_ffi.py: the extension does not compile (%s, "
                 "from %s): %s"
                 % (os.path.join(tmp, "rths", "_rths_ffi.c"), cdef_h, e))
    dest = os.path.join(outdir, "rths", os.path.basename(so))
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    os.replace(so, dest)
    check_layouts(dest, text)
    print(dest)


if __name__ == "__main__":
    main()
