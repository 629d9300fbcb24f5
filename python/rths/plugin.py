# SPDX-License-Identifier: LGPL-2.1-or-later
"""A Python integrator as an engine plug-in (include/rths/hs_plugin.h).

The engine calls, per step n -> n+1 (numpy views of its own arrays,
valid during the call only; write the outputs in place):

    predict(n, u, v, a, f1, u1)                 the command u1
    correct(n, u, v, a, u1, f1, r1, u_out, v_out, a_out)

after alloc(problem) and start(u0, v0, a0, f0, r0).  An exception in a
callback, or a negative int returned, fails the step with that code
(-RTHS_E_CALLBACK for an exception) and the exception's text in the
run's error; a NaN or infinity written is the engine's to refuse.
"""
import json
import threading
import traceback
from collections import namedtuple

import numpy as np

from ._core import Error, ffi, lib, check, view, E_CALLBACK, _Handle

Problem = namedtuple("Problem", "n dt m c c0 k0 has_specimen params")
Problem.__doc__ = """What the integrator integrates: n DOFs, dt (s), the
model's M and C, C0 (C + the specimen's damping estimate) and K0 (K0 +
its stiffness estimate) as n x n numpy copies, has_specimen, and params
(the registration's params, a dict, or None)."""


class Integrator:
    """Base class of a Python integrator plug-in; override predict and
    correct (alloc and start keep nothing by default).  name is what the
    engine's messages call it."""

    name = "python"

    def alloc(self, problem):
        self.problem = problem

    def start(self, u0, v0, a0, f0, r0):
        pass

    def predict(self, n, u, v, a, f1, u1):
        raise NotImplementedError("predict")

    def correct(self, n, u, v, a, u1, f1, r1, u_out, v_out, a_out):
        raise NotImplementedError("correct")

    def free(self):
        pass


_lock = threading.Lock()
_slots = [None] * lib.RTHS_HS_MAX_PLUGINS
_states = {}		# handle address -> (handle, _State)


class _State:
    __slots__ = ("obj", "n")

    def __init__(self, obj, n):
        self.obj = obj
        self.n = n


def _fail(err, code, obj, cb, exc):
    """Fill @err with the exception's text; return the code."""
    tb = traceback.extract_tb(exc.__traceback__)
    where = " (%s:%d)" % (tb[-1].filename, tb[-1].lineno) if tb else ""
    msg = "%s.%s: %s: %s%s" % (type(obj).__name__, cb,
                               type(exc).__name__, exc, where)
    return _fill(err, code, msg)


def _fill(err, code, msg):
    if err != ffi.NULL:
        err.code = code
        err.file = b""
        err.path = b""
        err.line = 0
        err.msg = msg.encode(errors="replace")[:ffi.sizeof(err.msg) - 1]
    return code


def _result(r, err, obj, cb):
    if r is None or r is True:
        return 0
    if isinstance(r, (int, np.integer)) and r <= 0:
        if r < 0:
            return _fill(err, int(r), "%s.%s returned %d"
                         % (type(obj).__name__, cb, r))
        return 0
    return _fill(err, -E_CALLBACK, "%s.%s returned %r, not None or a "
                 "negative code" % (type(obj).__name__, cb, r))


def _matrix(p, n):
    if p == ffi.NULL:
        return None
    return view(p, n * n).reshape((n, n), order="F").copy()


def _silent(exc, value, tb):
    """cffi's last resort (an exception outside the callbacks' own try,
    which none expects): no traceback printed, the error value returned."""
    return None


def _make_alloc(slot):
    def alloc(state, p, err):
        reg = _slots[slot]
        obj = None
        try:
            n = int(p.n)
            params = None
            if p.params != ffi.NULL:
                params = json.loads(ffi.string(p.params).decode())
            prob = Problem(n, float(p.dt), _matrix(p.m, n), _matrix(p.c, n),
                           _matrix(p.c0, n), _matrix(p.k0, n),
                           bool(p.has_specimen), params)
            obj = reg.factory()
            r = _result(obj.alloc(prob), err, obj, "alloc")
            if r < 0:
                return r
        except BaseException as e:	# never into the engine
            return _fail(err, -E_CALLBACK, obj if obj else reg.factory,
                         "alloc", e)
        st = _State(obj, n)
        h = ffi.new_handle(st)
        with _lock:
            _states[int(ffi.cast("uintptr_t", h))] = (h, st)
        state[0] = h
        return 0
    alloc.__name__ = "_py_alloc_%d" % slot
    ffi.def_extern(name=alloc.__name__, error=-E_CALLBACK,
                   onerror=_silent)(alloc)


for _i in range(lib.RTHS_HS_MAX_PLUGINS):
    _make_alloc(_i)


@ffi.def_extern(error=-E_CALLBACK, onerror=_silent)
def _py_start(state, u0, v0, a0, f0, r0, err):
    st = ffi.from_handle(state)
    n = st.n
    try:
        return _result(st.obj.start(view(u0, n), view(v0, n), view(a0, n),
                                    view(f0, n), view(r0, n)),
                       err, st.obj, "start")
    except BaseException as e:
        return _fail(err, -E_CALLBACK, st.obj, "start", e)


@ffi.def_extern(error=-E_CALLBACK, onerror=_silent)
def _py_predict(state, step, u, v, a, f1, u1, err):
    st = ffi.from_handle(state)
    n = st.n
    try:
        return _result(st.obj.predict(int(step), view(u, n), view(v, n),
                                      view(a, n), view(f1, n),
                                      view(u1, n, True)),
                       err, st.obj, "predict")
    except BaseException as e:
        return _fail(err, -E_CALLBACK, st.obj, "predict", e)


@ffi.def_extern(error=-E_CALLBACK, onerror=_silent)
def _py_correct(state, step, u, v, a, u1, f1, r1, u_out, v_out, a_out, err):
    st = ffi.from_handle(state)
    n = st.n
    try:
        return _result(st.obj.correct(int(step), view(u, n), view(v, n),
                                      view(a, n), view(u1, n), view(f1, n),
                                      view(r1, n), view(u_out, n, True),
                                      view(v_out, n, True),
                                      view(a_out, n, True)),
                       err, st.obj, "correct")
    except BaseException as e:
        return _fail(err, -E_CALLBACK, st.obj, "correct", e)


@ffi.def_extern(onerror=_silent)
def _py_free(state):
    if state == ffi.NULL:
        return
    with _lock:
        h, st = _states.pop(int(ffi.cast("uintptr_t", state)),
                            (None, None))
    if st is not None:
        try:
            st.obj.free()
        except BaseException:	# nowhere to report it: free cannot fail
            pass


class Registration(_Handle):
    """A Python integrator registered with librths: method is its method
    number (for an experiment's integrator.method); unregister() (or the
    end of a with block) frees the number."""

    def __init__(self, factory, params=None, name=None):
        self._slot = None
        self.factory = factory
        name = name or getattr(factory, "name", None) or \
            getattr(factory, "__name__", "python")
        self.name = name
        self._name = ffi.new("char[]", name.encode())
        err = ffi.new("struct rths_error *")
        with _lock:
            try:
                slot = _slots.index(None)
            except ValueError:
                raise Error(-28, "too many Python integrators registered "
                            "(%d)" % len(_slots)) from None
            _slots[slot] = self
        t = ffi.new("struct rths_hs_integrator_type *")
        t.abi = lib.RTHS_HS_PLUGIN_ABI
        t.name = self._name
        t.alloc = getattr(lib, "_py_alloc_%d" % slot)
        t.start = lib._py_start
        t.predict = lib._py_predict
        t.correct = lib._py_correct
        t.free = lib._py_free
        self._type = t
        m = ffi.new("enum rths_hs_method *")
        text = json.dumps(params).encode() if params is not None \
            else ffi.NULL
        try:
            check(lib.rths_hs_integrator_register(t, text, m, err), err)
        except Error:
            _slots[slot] = None
            raise
        self.method = int(m[0])
        self._slot = slot

    def unregister(self):
        if self._slot is not None:
            lib.rths_hs_integrator_unregister(self.method)
            _slots[self._slot] = None
            self._slot = None

    # _Handle's with and collection end here: the type struct dies with
    # this object, librths must not keep it
    close = unregister


def register(factory, params=None, name=None):
    """Register @factory (an Integrator subclass, or any callable that
    makes an object with its methods; one is made for every run) with
    @params (anything json.dumps takes; the problem's params)."""
    return Registration(factory, params, name)
