# SPDX-License-Identifier: LGPL-2.1-or-later
"""An rths device (include/rths/device.h) and the kernel's events."""
from collections import namedtuple

import numpy as np

from ._core import Error, ffi, lib, strerror, _str, _Actuator, _Handle

class Feedback:
    """One step's sample: step, tick, time_ns, flags (rths.FB_*),
    late_ticks, and command, disp (m) and force (N) as read-only numpy
    arrays of one value per channel (made when asked for: a loop that
    reads one of them pays for one)."""

    __slots__ = ("step", "tick", "time_ns", "flags", "late_ticks", "_raw",
                 "_n")

    def __init__(self, step, tick, time_ns, flags, late_ticks, raw, n):
        self.step = step
        self.tick = tick
        self.time_ns = time_ns
        self.flags = flags
        self.late_ticks = late_ticks
        self._raw = raw		# bytes: command, disp, force, _MAX each
        self._n = n

    def _col(self, i):
        return np.frombuffer(self._raw, np.float64, self._n, i * _MAX * 8)

    command = property(lambda self: self._col(0))
    disp = property(lambda self: self._col(1))
    force = property(lambda self: self._col(2))

    def __repr__(self):
        return ("Feedback(step=%d, tick=%d, time_ns=%d, flags=%#x, "
                "late_ticks=%d, command=%r, disp=%r, force=%r)"
                % (self.step, self.tick, self.time_ns, self.flags,
                   self.late_ticks, self.command, self.disp, self.force))


Event = namedtuple("Event", "type device dev_id tick step state reason "
                   "fault channel limit value late_action late_ticks ring")
Event.__doc__ = """A monitor event; type, state, reason, fault, limit,
late_action and ring as rthsctl names them ("" when absent)."""

_STATS = ("periods ticks missed steps stretch_ticks step_ticks_now "
          "halt_ticks wait_ticks late_steps late_extrapolated late_held "
          "late_decelerated late_faulted fb_records fb_overflows "
          "trace_records trace_overflows ring_faults limit_trips "
          "card_errors events_dropped irq_lat_min irq_lat_avg irq_lat_max "
          "thread_lat_min thread_lat_avg thread_lat_max "
          "lat_samples").split()


_MAX = lib.RTHS_MAX_CHANNELS
# command, disp and force follow one another in both feedback structs:
# one copy takes the three
for _t in ("struct rths_feedback", "struct rths_hs_feedback"):
    assert ffi.offsetof(_t, "disp") - ffi.offsetof(_t, "command") == \
        ffi.offsetof(_t, "force") - ffi.offsetof(_t, "disp") == _MAX * 8
assert lib.RTHS_HS_MAX_CHANNELS == _MAX


def _feedback(fb, n):
    return Feedback(fb.step, fb.tick, fb.time_ns, fb.flags, fb.late_ticks,
                    ffi.buffer(fb.command, 3 * _MAX * 8)[:], n)


class Device(_Actuator):
    """An rths device, opened by name (it must exist: rthsctl dev add).

    With owner=True (the default) this handle owns the run: start(),
    post(), stop(); closing it during a run makes the device hold.
    Without, it observes: wait() and read() follow the owner's feedback.
    A context manager: "with rths.Device('rths0') as d:" closes it.
    """

    def __init__(self, name, owner=True):
        self.name = name
        self._bname = name.encode()
        self._ctl = ffi.NULL
        self._dev = ffi.NULL
        ctl = ffi.new("struct rths_ctl **")
        r = lib.rths_ctl_open(ctl)
        if r == -2:
            raise Error(r, "%s: the rths module is not loaded (no \"rths\" "
                        "generic netlink family)" % name)
        self._call(r, "%s: cannot open a control socket" % name)
        self._ctl = ctl[0]
        dev = ffi.new("struct rths_dev **")
        flags = lib.RTHS_OPEN_OWNER if owner else 0
        self._call(lib.rths_dev_open(self._ctl, self._bname, flags, dev),
                   "cannot open device %s" % name)
        self._dev = dev[0]
        self.channels = int(lib.rths_dev_channels(self._dev))
        self._fb = ffi.new("struct rths_feedback *")
        self._tgt = ffi.new("double[]", self.channels)

    def _call(self, r, what=None):
        if r < 0:
            why = _str(lib.rths_ctl_error(self._ctl)) \
                if self._ctl != ffi.NULL else ""
            msg = strerror(r)
            if why:
                msg += ": " + why
            raise Error(r, "%s: %s" % (what, msg) if what else
                        "%s: %s" % (self.name, msg))
        return r

    def _live(self):
        if self._dev == ffi.NULL:
            raise Error(-9, "%s: the device is closed" % self.name)

    def start(self):
        """Start a run (RUN_START) and follow its fresh rings."""
        self._live()
        self._call(lib.rths_run_start(self._ctl, self._bname))
        lib.rths_dev_sync(self._dev)

    def _stop(self):
        self._call(lib.rths_run_stop(self._ctl, self._bname))

    def stop_now(self):
        self._live()
        self._call(lib.rths_run_stop_now(self._ctl, self._bname))

    def _hold(self):
        self._call(lib.rths_run_hold(self._ctl, self._bname))

    def tick(self, ticks=1):
        """Manual clock only: advance @ticks ticks."""
        self._live()
        self._call(lib.rths_run_tick(self._ctl, self._bname, ticks))

    def _post(self, step, p):
        self._call(lib.rths_post(self._dev, step, p))

    def wait(self, timeout_ms=1000, spin=False):
        """The next feedback record (Feedback); Error -ETIMEDOUT after
        @timeout_ms (-1: forever), -EPIPE once the run ended."""
        self._live()
        r = lib.rths_wait_feedback(self._dev, self._fb, timeout_ms,
                                   lib.RTHS_WAIT_SPIN if spin else 0)
        self._call(r)
        return _feedback(self._fb, self.channels)

    def read(self):
        """The next feedback record without waiting, or None."""
        self._live()
        r = lib.rths_read_feedback(self._dev, self._fb)
        if r == -11:
            return None
        self._call(r)
        return _feedback(self._fb, self.channels)

    def stats(self):
        """The device's counters as a dict (latencies in ns; the two
        log2 latency histograms as numpy arrays)."""
        st = ffi.new("struct rths_stats *")
        self._call(lib.rths_stats_get(self._ctl, self._bname, st))
        d = {k: int(getattr(st, k)) for k in _STATS}
        n = lib.RTHS_LAT_HIST_BUCKETS
        d["irq_lat_hist"] = np.array(list(st.irq_lat_hist)[:n], np.uint64)
        d["thread_lat_hist"] = np.array(list(st.thread_lat_hist)[:n],
                                        np.uint64)
        return d

    def reset_stats(self):
        self._call(lib.rths_stats_reset(self._ctl, self._bname))

    def info(self):
        """What the kernel reports: state, rate_hz, step_ticks, cpu, ..."""
        i = ffi.new("struct rths_dev_info *")
        self._call(lib.rths_dev_get(self._ctl, self._bname, i,
                                    ffi.sizeof("struct rths_dev_info")))
        return {"id": i.id, "name": _str(i.name), "card": _str(i.card),
                "channels": i.channels,
                "state": _str(lib.rths_state_name(i.state)),
                "rate_hz": i.rate_hz, "step_ticks": i.step_ticks,
                "cpu": i.cpu, "priority": i.priority,
                "owned": bool(i.owned), "step": int(i.step),
                "tick": int(i.tick),
                "position": np.array(list(i.position)[:i.channels])}

    def close(self):
        """Close (a run this handle owns holds); again: nothing."""
        if self._dev != ffi.NULL:
            lib.rths_dev_close(self._dev)
            self._dev = ffi.NULL
        if self._ctl != ffi.NULL:
            lib.rths_ctl_close(self._ctl)
            self._ctl = ffi.NULL


def _name(fn, v):
    return _str(fn(v)) if v else ""


class Monitor(_Handle):
    """The kernel's events (state changes, faults, limits, late steps)
    of every device: read(timeout_ms) gives one Event or None; iterating
    gives them as they come.  A context manager."""

    def __init__(self):
        self._mon = ffi.NULL
        m = ffi.new("struct rths_mon **")
        r = lib.rths_mon_open(m)
        if r < 0:
            raise Error(r, "cannot subscribe to rths events: %s"
                        % strerror(r))
        self._mon = m[0]
        self._ev = ffi.new("struct rths_event *")

    def fileno(self):
        return lib.rths_mon_fd(self._mon)

    def read(self, timeout_ms=-1):
        """One event, or None after @timeout_ms (0: poll, -1: forever)."""
        if self._mon == ffi.NULL:
            raise Error(-9, "the monitor is closed")
        r = lib.rths_mon_read(self._mon, self._ev, timeout_ms)
        if r < 0:
            raise Error(r, "monitor: %s" % strerror(r))
        if r == 0:
            return None
        e = self._ev
        return Event(_name(lib.rths_event_name, e.type),
                     _str(e.dev_name), int(e.dev_id), int(e.tick),
                     int(e.step), _name(lib.rths_state_name, e.state),
                     _name(lib.rths_reason_name, e.reason),
                     _name(lib.rths_fault_name, e.fault), int(e.channel),
                     _name(lib.rths_limit_name, e.limit), float(e.value),
                     _name(lib.rths_late_action_name, e.late_action),
                     int(e.late_ticks), _name(lib.rths_ring_name, e.ring))

    def __iter__(self):
        while True:
            yield self.read(-1)

    def close(self):
        if self._mon != ffi.NULL:
            lib.rths_mon_close(self._mon)
            self._mon = ffi.NULL
