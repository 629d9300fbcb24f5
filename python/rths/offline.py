# SPDX-License-Identifier: LGPL-2.1-or-later
"""librths's modelled actuator (include/rths/hs_backend.h, the offline
backend) and ground-motion records."""
import numpy as np

from ._core import Error, ffi, lib, check, as_doubles, fspath, _str, \
    _Actuator
from .device import _feedback

_BSTATS = ("steps ticks missed_ticks late_steps late_extrapolated "
           "late_held late_decelerated late_faulted limit_trips "
           "fb_overflows card_errors").split()


class Offline(_Actuator):
    """A specimen and an actuator modelled in userspace as the sim card
    does, with the shape of rths.Device: start(), post(step, target),
    wait() -> Feedback, stop(), close().

    k (and c): the specimen's stiffness (damping) matrix at the
    @channels actuators, a number for one channel; rate (Hz) and
    step_ticks (ticks a step); lag (s), delay_ticks, noise_disp (m),
    noise_force (N) and seed as the sim card's.
    """

    def __init__(self, channels=1, k=None, c=None, rate=1024, step_ticks=1,
                 lag=0.0, delay_ticks=0, noise_disp=0.0, noise_force=0.0,
                 seed=1, quantize=False):
        self.channels = channels
        self._b = ffi.new("struct rths_hs_backend *")
        self._err = ffi.new("struct rths_error *")
        self._open = False
        p = ffi.new("struct rths_hs_offline_params *")
        lib.rths_hs_offline_defaults(p)
        p.rate = rate
        p.step_ticks = step_ticks
        p.lag = lag
        p.delay_ticks = delay_ticks
        p.noise_disp = noise_disp
        p.noise_force = noise_force
        p.seed = seed
        p.quantize = quantize
        setup = ffi.new("struct rths_hs_setup *")
        check(lib.rths_hs_setup_direct(setup, channels, self._err),
              self._err)
        p.setup = setup
        keep = []
        for name, m in (("k", k), ("c", c)):
            if m is None:
                continue
            a = np.asarray(m, dtype=np.float64)
            if a.size != channels * channels:
                raise Error(-22, "%s: %d values for a %d x %d matrix"
                            % (name, a.size, channels, channels))
            # column-major, as librths's matrices are
            ptr, arr = as_doubles(np.asfortranarray(a.reshape(
                channels, channels)).reshape(-1, order="F"),
                channels * channels, name)
            keep.append(arr)
            setattr(p, name, ptr)
        check(lib.rths_hs_offline_open(self._b, p, self._err), self._err)
        self._open = True
        self._fb = ffi.new("struct rths_hs_feedback *")
        self._tgt = ffi.new("double[]", channels)
        self._step = 0
        self.rate = rate
        self.step_ticks = step_ticks
        self.dt = step_ticks / rate

    def _check(self, r):
        if r < 0:
            raise Error.from_struct(self._err, r)
        return r

    def _live(self):
        if not self._open:
            raise Error(-9, "offline backend: closed")

    def start(self):
        self._live()
        self._check(lib.rths_hs_backend_start(self._b, self._err))

    def _post(self, step, p):
        self._check(lib.rths_hs_backend_post(self._b, step, p, self._err))
        self._step = step

    def wait(self, step=None, timeout_ms=None):
        """Step @step's feedback (default: the last one posted);
        @timeout_ms is accepted for rths.Device's shape and not used."""
        self._live()
        step = self._step if step is None else step
        self._check(lib.rths_hs_backend_wait(self._b, step, self._fb,
                                             self._err))
        return _feedback(self._fb, self.channels)

    def _hold(self):
        self._check(lib.rths_hs_backend_hold(self._b, self._err))

    def _stop(self):
        self._check(lib.rths_hs_backend_stop(self._b, self._err))

    def stats(self):
        st = ffi.new("struct rths_hs_backend_stats *")
        self._live()
        self._check(lib.rths_hs_backend_stats(self._b, st))
        return {k: int(getattr(st, k)) for k in _BSTATS}

    def close(self):
        if self._open:
            lib.rths_hs_backend_close(self._b)
            self._open = False


class GroundMotion:
    """A ground-motion record: GroundMotion.read_at2(path) (PEER NGA),
    .read_two_column(path, to_si), or GroundMotion(accel, dt).
    at(t) interpolates (m/s^2, 0 outside), duration (s), dt (s), accel
    (a numpy copy)."""

    G = 9.80665

    def __init__(self, accel=None, dt=None, source="array"):
        self._gm = ffi.new("struct rths_hs_gm *")
        self._err = ffi.new("struct rths_error *")
        self._loaded = False
        if accel is not None:
            a = np.ascontiguousarray(accel, dtype=np.float64)
            p, keep = as_doubles(a, a.size, "accel")
            self._done(lib.rths_hs_gm_from_array(
                self._gm, p, a.size, dt, source.encode(), self._err))

    def _done(self, r):
        check(r, self._err)
        self._loaded = True

    @classmethod
    def read_at2(cls, path):
        gm = cls()
        gm._done(lib.rths_hs_gm_read_at2(gm._gm, fspath(path), gm._err))
        return gm

    @classmethod
    def read_two_column(cls, path, to_si=1.0, shift_to_zero=False):
        gm = cls()
        gm._done(lib.rths_hs_gm_read_two_column(
            gm._gm, fspath(path), to_si, 1 if shift_to_zero else 0,
            gm._err))
        return gm

    def at(self, t):
        return lib.rths_hs_gm_at(self._gm, t)

    @property
    def duration(self):
        return lib.rths_hs_gm_duration(self._gm)

    @property
    def dt(self):
        return self._gm.dt

    @property
    def source(self):
        return _str(self._gm.source)

    @property
    def accel(self):
        n = self._gm.npts
        return np.frombuffer(ffi.buffer(self._gm.acc, n * 8)).copy()

    def __del__(self):
        if self._loaded:
            lib.rths_hs_gm_free(self._gm)
            self._loaded = False
