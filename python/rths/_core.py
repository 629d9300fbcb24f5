# SPDX-License-Identifier: LGPL-2.1-or-later
"""The extension, the error type and the numpy <-> C helpers."""
import os

import numpy as np

from ._rths_ffi import ffi, lib

FB_EXTRAPOLATED = lib.RTHS_FB_F_EXTRAPOLATED
FB_HELD = lib.RTHS_FB_F_HELD
FB_DECELERATED = lib.RTHS_FB_F_DECELERATED
FB_GAP = lib.RTHS_FB_F_GAP
E_CALLBACK = lib.RTHS_E_CALLBACK
E_NONFINITE = lib.RTHS_E_NONFINITE


def _str(p):
    return ffi.string(p).decode(errors="replace") if p != ffi.NULL else ""


def strerror(code):
    """librths's text for a (negative) errno or -RTHS_E_xxx code."""
    return _str(lib.rths_strerror(int(code)))


class Error(Exception):
    """A librths failure: code is the negative errno or -RTHS_E_xxx,
    message says what went wrong and where (file:line: path: ... for
    text inputs); file, line and path as struct rths_error has them."""

    def __init__(self, code, message, file="", line=0, path=""):
        super().__init__(code, message)
        self.code = int(code)
        self.message = message
        self.file = file
        self.line = line
        self.path = path

    __module__ = "rths"

    @property
    def name(self):
        """The code's short name: ENOENT, json-syntax, callback, ..."""
        return _str(lib.rths_strerror_name(self.code))

    def __str__(self):
        return self.message

    @classmethod
    def from_struct(cls, err, code=None):
        """From a struct rths_error (its code, unless @code is given and
        the struct is empty)."""
        if ffi.typeof(err).kind == "struct":
            err = ffi.addressof(err)
        if code is None or (err.code and err.msg[0] != b"\0"):
            code = err.code or code or -5
        if err.code == 0 and err.msg[0] == b"\0":
            return cls(code, strerror(code))
        buf = ffi.new("char[1024]")
        msg = _str(lib.rths_error_str(err, buf, len(buf)))
        return cls(code, msg or strerror(code), _str(err.file),
                   int(err.line), _str(err.path))


def check(r, err):
    """Raise Error from @err if @r is negative, else return @r."""
    if r < 0:
        raise Error.from_struct(err, r)
    return r


def as_doubles(values, n, name="values"):
    """@values (a number, sequence or array) as a C double[@n] and the
    array that keeps its memory alive."""
    a = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
    if a.size == 1 and n > 1:
        a = np.full(n, a[0])
    if a.size != n:
        raise Error(-22, "%s: %d values for %d channels"
                    % (name, a.size, n))
    return ffi.cast("double *", ffi.from_buffer(a)), a


def view(ptr, n, writable=False):
    """A numpy view of @n doubles at @ptr (no copy)."""
    a = np.frombuffer(ffi.buffer(ptr, n * 8), dtype=np.float64)
    if not writable:
        a.flags.writeable = False
    return a


def copy(ptr, n, dtype=np.float64, shape=None):
    """A numpy copy of @n values at @ptr."""
    size = np.dtype(dtype).itemsize
    a = np.frombuffer(ffi.buffer(ptr, n * size), dtype=dtype).copy() \
        if n else np.zeros(0, dtype=dtype)
    return a.reshape(shape) if shape is not None else a


def fspath(path):
    return os.fsencode(os.fspath(path))


class _Handle:
    """A librths handle: the subclass's close() frees it (again: nothing);
    a context manager ("with ... as h:" closes it), closed when collected
    too."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


class _Actuator(_Handle):
    """What rths.Device and rths.Offline share, over the subclass's
    _live() (raises once closed) and its librths calls _post(step, p),
    _hold() and _stop()."""

    def post(self, step, target):
        """Post the targets of @step (m, a number or one per channel)."""
        self._live()
        if self.channels == 1 and isinstance(target, float):
            self._tgt[0] = target	# the common case, without numpy
            p = self._tgt
        else:
            p, keep = as_doubles(target, self.channels, "target")
        self._post(step, p)

    def hold(self):
        """Running -> holding (the outputs ramp down and hold)."""
        self._live()
        self._hold()

    def stop(self):
        """To stopped, ramping a moving rig to rest first."""
        self._live()
        self._stop()
