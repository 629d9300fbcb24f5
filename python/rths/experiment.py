# SPDX-License-Identifier: LGPL-2.1-or-later
"""Experiment files (include/rths/files.h): load one, run it, the
history as numpy arrays."""
from collections import namedtuple

import numpy as np

from ._core import Error, ffi, lib, check, copy, fspath, _str, _Handle
from .plugin import Registration

History = namedtuple("History", "t ag u v a target command disp force "
                     "compute flags x_if x_meas f_meas dt")
History.__doc__ = """One row per step (row 0 is t = 0): t, ag (s, m/s^2);
u, v, a (rows x DOFs); target, command, disp, force (rows x actuators:
decoupled strokes, compensated commands, measured); compute (s from
feedback to command); flags (RTHS_FB_F_*: rths.FB_*); x_if, x_meas, f_meas
(rows x interface coordinates); dt (s)."""

Result = namedtuple("Result", "steps steps_planned late_steps interrupted "
                    "held error message compute_mean compute_p99 "
                    "compute_max wall")
Result.__doc__ = """steps done of steps_planned, late_steps (feedback
flagged late), interrupted, held, error (0 or the negative code that
ended the run early) and its message, compute time per step (s: mean,
p99, max) and the run's wall time (s)."""


class Experiment(_Handle):
    """An experiment file, loaded and checked (rths.load(path)).

    method: the integrator's method number (a built-in's, or a
    Registration's method to run a Python integrator); step_ticks and
    dt: the step (0 while the file says "auto": set_step(d) fixes it).
    """

    def __init__(self, path):
        self.path = path
        self._x = ffi.NULL
        out = ffi.new("struct rths_hs_experiment **")
        err = ffi.new("struct rths_error *")
        check(lib.rths_hs_experiment_load(fspath(path), out, err), err)
        self._x = out[0]

    @property
    def name(self):
        return _str(self._x.name)

    @property
    def method(self):
        return int(self._x.integrator.method)

    @method.setter
    def method(self, m):
        self._x.integrator.method = m

    @property
    def method_name(self):
        return _str(lib.rths_hs_method_name(self._x.integrator.method))

    @property
    def step_ticks(self):
        return int(self._x.device.step_ticks)

    @property
    def rate(self):
        return int(self._x.device.rate)

    @property
    def dt(self):
        return float(self._x.integrator.dt)

    @property
    def duration(self):
        return float(self._x.duration)

    @property
    def device(self):
        return _str(self._x.device.name)

    def set_step(self, step_ticks):
        """Fix the step to @step_ticks ticks of the device's rate."""
        err = ffi.new("struct rths_error *")
        check(lib.rths_hs_experiment_set_step(self._x, step_ticks, err),
              err)

    def run(self, offline=True, integrator=None, params=None,
            trace_dir=None):
        """Run it and return (History, Result).

        offline: librths's modelled actuator (False: the device the
        file names; the sim card is created for the run).  integrator:
        a Python integrator (an rths.Integrator subclass, or a
        Registration) in place of the file's.  A run that cannot start
        raises Error; one that fails on the way raises Error with the
        steps done in its .history and .result.
        """
        if self.dt == 0:
            raise Error(-22, "%s: device.step_ticks is \"auto\": call "
                        "set_step(d) first (rths-run previews it)"
                        % self.path)
        reg = None
        saved = self.method
        if integrator is not None:
            reg = integrator if isinstance(integrator, Registration) \
                else Registration(integrator, params)
            self.method = reg.method
        h = ffi.new("struct rths_hs_history *")
        res = ffi.new("struct rths_hs_run_result *")
        err = ffi.new("struct rths_error *")
        flags = lib.RTHS_HS_RUN_OFFLINE if offline else 0
        try:
            r = lib.rths_hs_experiment_run(
                self._x, flags,
                fspath(trace_dir) if trace_dir else ffi.NULL, h, res, err)
            hist = _history(h)
        finally:
            lib.rths_hs_history_free(h)
            self.method = saved
            if reg is not None and reg is not integrator:
                reg.unregister()
        result = Result(int(res.steps_done), int(res.steps_planned),
                        int(res.late_steps), bool(res.interrupted),
                        bool(res.held), int(res.error),
                        Error.from_struct(res.err, res.error).message
                        if res.error else "",
                        float(res.compute_mean), float(res.compute_p99),
                        float(res.compute_max), float(res.wall))
        if r < 0:
            e = Error.from_struct(err if err.code else res.err, r)
            e.history = hist
            e.result = result
            raise e
        return hist, result

    def close(self):
        if self._x != ffi.NULL:
            lib.rths_hs_experiment_free(self._x)
            self._x = ffi.NULL


def _history(h):
    rows = int(h.rows)
    nd, ni, na = int(h.n_dof), int(h.n_if), int(h.n_act)

    def tab(p, w):
        if p == ffi.NULL or rows == 0:
            return np.zeros((rows, w))
        return copy(p, rows * w, shape=(rows, w))

    def col(p, dtype=np.float64):
        if p == ffi.NULL or rows == 0:
            return np.zeros(rows, dtype=dtype)
        return copy(p, rows, dtype=dtype)

    return History(col(h.t), col(h.ag), tab(h.u, nd), tab(h.v, nd),
                   tab(h.a, nd), tab(h.target, na), tab(h.command, na),
                   tab(h.disp, na), tab(h.force, na), col(h.compute),
                   col(h.flags, np.uint32), tab(h.x_if, ni),
                   tab(h.x_meas, ni), tab(h.f_meas, ni), float(h.dt))


def load(path):
    """Load and check an experiment file (Error names file:line)."""
    return Experiment(path)


def run(path, offline=True, integrator=None, params=None, step_ticks=None,
        trace_dir=None):
    """Load @path and run it (Experiment.run): (History, Result).
    step_ticks: the step, in place of the file's (needed for "auto")."""
    with Experiment(path) as x:
        if step_ticks is not None:
            x.set_step(step_ticks)
        return x.run(offline, integrator, params, trace_dir)
