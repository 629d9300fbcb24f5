# SPDX-License-Identifier: LGPL-2.1-or-later
"""The rths package on the host: no device, librths's offline backend,
experiment files and Python integrator plug-ins (make python-check)."""
import errno
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import rths

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "examples", "python"))
from cr_integrator import ChenRicles  # noqa: E402


def frame(top):
    return os.path.join(top, "examples/two-story-frame.json")


# ---- errors ---------------------------------------------------------------

def test_error_text_and_name():
    e = rths.Error(-errno.ENOENT, "x")
    assert e.name == "ENOENT" and str(e) == "x" and e.code == -2
    assert rths.strerror(-rths.E_NONFINITE)
    assert rths.Error(-rths.E_CALLBACK, "y").name == "callback"


def test_missing_device_raises():
    # the host has no rths module: ENOENT, saying so; in the guest the
    # module is there and the device is not
    with pytest.raises(rths.Error) as ei:
        rths.Device("rths-py-none")
    assert ei.value.code in (-errno.ENOENT, -errno.ENODEV)
    assert "rths-py-none" in str(ei.value)


@pytest.mark.skipif(os.environ.get("RTHS_DEVICE") is not None,
                    reason="the guest has the module")
def test_monitor_without_module_raises():
    with pytest.raises(rths.Error) as ei:
        rths.Monitor()
    assert ei.value.code < 0 and "monitor" in str(ei.value) or \
        "rths events" in str(ei.value)


# ---- the offline backend --------------------------------------------------

def test_offline_post_wait_force_is_k_times_disp():
    with rths.Offline(k=2e5, rate=1024, step_ticks=4) as rig:
        rig.start()
        for n in range(1, 21):
            rig.post(n, 1e-3 * n)
            fb = rig.wait()
            assert fb.step == n
            assert isinstance(fb.disp, np.ndarray) and fb.disp.shape == (1,)
            assert fb.disp[0] == pytest.approx(1e-3 * n, rel=1e-12)
            assert fb.force[0] == pytest.approx(2e5 * fb.disp[0], rel=1e-9)
            assert fb.flags == 0
        st = rig.stats()
        assert st["steps"] == 20 and st["ticks"] == 80
        rig.stop()


def test_offline_two_channels_matrix():
    k = np.array([[3e5, -1e5], [-1e5, 2e5]])
    with rths.Offline(channels=2, k=k) as rig:
        rig.start()
        rig.post(1, np.array([1e-3, -2e-3]))
        fb = rig.wait(1)
        assert np.allclose(fb.force, k @ fb.disp, rtol=1e-9)
        rig.stop()


def test_offline_errors():
    with pytest.raises(rths.Error, match="4 values for a 1 x 1"):
        rths.Offline(k=[1, 2, 3, 4])
    rig = rths.Offline(k=1e5)
    with pytest.raises(rths.Error):
        rig.post(1, [1e-3, 2e-3])		# two targets, one channel
    rig.close()
    rig.close()				# twice: nothing
    with pytest.raises(rths.Error, match="closed"):
        rig.start()


def test_offline_post_before_start_fails():
    with rths.Offline(k=1e5) as rig:
        with pytest.raises(rths.Error) as ei:
            rig.post(1, 1e-3)
        assert ei.value.code < 0 and str(ei.value)


# ---- ground motion ----------------------------------------------------------

def test_ground_motion_at2(record):
    gm = rths.GroundMotion.read_at2(record)
    assert gm.dt == 0.02 and gm.accel.shape == (1560,)
    assert gm.duration == pytest.approx(1559 * 0.02)
    assert gm.at(0.01) == pytest.approx((gm.accel[0] + gm.accel[1]) / 2)
    assert gm.at(-1) == 0


def test_ground_motion_bad_file_names_it(top):
    bad = os.path.join(top, "tests/data/hs/bad-value.AT2")
    with pytest.raises(rths.Error) as ei:
        rths.GroundMotion.read_at2(bad)
    assert "bad-value.AT2" in str(ei.value)
    with pytest.raises(rths.Error) as ei:
        rths.GroundMotion.read_at2("/nonexistent.AT2")
    assert ei.value.code == -errno.ENOENT


def test_ground_motion_from_array():
    gm = rths.GroundMotion([0.0, 1.0, 0.0], 0.5)
    assert gm.at(0.25) == 0.5 and gm.duration == 1.0


# ---- the own loop example ---------------------------------------------------

def test_own_loop_offline_prints_what_the_c_one_prints(top, record):
    c = os.environ.get("RTHS_OWN_LOOP")
    if not c:
        pytest.skip("RTHS_OWN_LOOP (examples/c/own-loop) not set")
    want = subprocess.run([c, "-o", record], capture_output=True,
                          check=True).stdout
    got = subprocess.run([sys.executable,
                          os.path.join(top, "examples/python/own_loop.py"),
                          "-o", record], capture_output=True, check=True)
    assert got.stdout == want and got.stderr == b""


def test_own_loop_usage(top):
    p = subprocess.run([sys.executable,
                        os.path.join(top, "examples/python/own_loop.py")],
                       capture_output=True)
    assert p.returncode != 0 and b"usage" in p.stderr


# ---- experiment files -------------------------------------------------------

def test_load(top):
    with rths.load(frame(top)) as x:
        assert x.name == "two-story-frame"
        assert x.method_name == "cr" and x.step_ticks == 0 and x.dt == 0
        x.set_step(5)
        assert x.dt == 5 / 1024 and x.step_ticks == 5


def test_load_bad_file_names_file_and_line(top):
    bad = os.path.join(top, "tests/data/hs/bad-syntax.json")
    with pytest.raises(rths.Error) as ei:
        rths.load(bad)
    e = ei.value
    assert e.name == "json-syntax"
    assert e.file.endswith("bad-syntax.json") and e.line == 3
    assert "bad-syntax.json:3" in str(e)


def test_load_missing_field_names_path(top):
    bad = os.path.join(top, "tests/data/hs/bad-missing-field.json")
    with pytest.raises(rths.Error) as ei:
        rths.load(bad)
    assert ei.value.name == "missing-field" and ei.value.path


def test_load_missing_file():
    with pytest.raises(rths.Error) as ei:
        rths.load("/nonexistent.json")
    assert ei.value.code == -errno.ENOENT


def test_run_auto_step_needs_a_step(top):
    with pytest.raises(rths.Error, match="auto"):
        rths.run(frame(top))


def test_run_offline(top):
    h, res = rths.run(frame(top), step_ticks=5)
    assert res.error == 0 and res.message == ""
    assert res.steps == res.steps_planned == 3072
    rows = res.steps + 1
    assert h.t.shape == (rows,) and h.u.shape == (rows, 2)
    assert h.disp.shape == (rows, 1) and h.force.shape == (rows, 1)
    assert h.flags.dtype == np.uint32 and h.compute.shape == (rows,)
    assert h.dt == 5 / 1024 and h.t[-1] == pytest.approx(15.0)
    assert 1e-3 < np.abs(h.u).max() < 0.05
    assert np.isfinite(h.command).all()


def test_run_offline_same_twice(top):
    h1, _ = rths.run(frame(top), step_ticks=5)
    h2, _ = rths.run(frame(top), step_ticks=5)
    assert np.array_equal(h1.u, h2.u) and np.array_equal(h1.force,
                                                         h2.force)


# ---- Python integrators -------------------------------------------------

def test_python_cr_matches_builtin_cr(top):
    hc, rc = rths.run(frame(top), step_ticks=5)
    hp, rp = rths.run(frame(top), step_ticks=5, integrator=ChenRicles)
    assert rp.steps == rc.steps
    for q in ("u", "v", "a", "command", "disp", "force"):
        ref, got = getattr(hc, q), getattr(hp, q)
        assert np.abs(got - ref).max() <= 1e-12 * np.abs(ref).max(), q


class Recorder(rths.Integrator):
    name = "recorder"
    seen = {}

    def alloc(self, p):
        Recorder.seen = {"n": p.n, "dt": p.dt, "params": p.params,
                         "m": p.m, "k0": p.k0, "spec": p.has_specimen}
        self.cr = ChenRicles()
        self.cr.alloc(p)

    def start(self, u0, v0, a0, f0, r0):
        Recorder.seen["u0"] = u0.copy()
        Recorder.seen["readonly"] = not u0.flags.writeable

    def predict(self, n, u, v, a, f1, u1):
        self.cr.predict(n, u, v, a, f1, u1)

    def correct(self, n, u, v, a, u1, f1, r1, uo, vo, ao):
        self.cr.correct(n, u, v, a, u1, f1, r1, uo, vo, ao)

    def free(self):
        Recorder.seen["freed"] = True


def test_python_integrator_problem_and_params(top):
    rths.run(frame(top), step_ticks=5, integrator=Recorder,
             params={"gain": 2})
    s = Recorder.seen
    assert s["n"] == 2 and s["dt"] == 5 / 1024 and s["spec"]
    assert s["params"] == {"gain": 2}
    assert np.array_equal(s["m"], np.diag([1000.0, 1000.0]))
    assert s["k0"].shape == (2, 2) and s["k0"][0, 1] == s["k0"][1, 0]
    assert s["readonly"] and np.array_equal(s["u0"], [0, 0])
    assert s["freed"]


class Raises(ChenRicles):
    name = "raises"

    def predict(self, n, u, v, a, f1, u1):
        if n == 10:
            raise ZeroDivisionError("step ten")
        super().predict(n, u, v, a, f1, u1)


def test_integrator_that_raises(top):
    with pytest.raises(rths.Error) as ei:
        rths.run(frame(top), step_ticks=5, integrator=Raises)
    e = ei.value
    assert e.code == -rths.E_CALLBACK
    assert "'raises'" in str(e) and "predict" in str(e)
    assert "ZeroDivisionError: step ten" in str(e)
    assert "test_offline.py" in str(e)
    assert e.result.steps == 10 and e.history.u.shape[0] == 11


class NaN(ChenRicles):
    name = "nan"

    def correct(self, n, u, v, a, u1, f1, r1, uo, vo, ao):
        super().correct(n, u, v, a, u1, f1, r1, uo, vo, ao)
        if n == 3:
            ao[1] = math.nan


def test_integrator_that_returns_nan(top):
    with pytest.raises(rths.Error) as ei:
        rths.run(frame(top), step_ticks=5, integrator=NaN)
    e = ei.value
    assert e.code == -rths.E_NONFINITE
    assert "'nan'" in str(e) and "correct" in str(e) and "DOF 1" in str(e)


class Code(ChenRicles):
    name = "code"

    def alloc(self, p):
        return -errno.EDOM


def test_integrator_returns_a_code(top):
    with pytest.raises(rths.Error) as ei:
        rths.run(frame(top), step_ticks=5, integrator=Code)
    assert ei.value.code == -errno.EDOM
    assert "Code.alloc returned" in str(ei.value)


def test_integrator_alloc_raises_in_constructor(top):
    def factory():
        raise RuntimeError("no state")
    with pytest.raises(rths.Error, match="RuntimeError: no state"):
        rths.run(frame(top), step_ticks=5, integrator=factory)


def test_registrations_are_limited_and_freed(top):
    regs = [rths.register(ChenRicles, name="cr%d" % i)
            for i in range(16)]
    assert len({r.method for r in regs}) == 16
    with pytest.raises(rths.Error):
        rths.register(ChenRicles)
    for r in regs:
        r.unregister()
    with rths.register(ChenRicles) as r:
        h, res = rths.run(frame(top), step_ticks=5, integrator=r)
        assert res.steps == 3072


def test_cr_integrator_example(top):
    p = subprocess.run([sys.executable,
                        os.path.join(top, "examples/python/cr_integrator.py"),
                        frame(top), "5"], capture_output=True, text=True,
                       check=True)
    lines = p.stdout.splitlines()
    assert len(lines) == 3073 and "3072 of 3072 steps" in p.stderr


def test_experiment_file_json_roundtrip(tmp_path, top):
    # a file written by a script runs like one written by hand
    with open(frame(top)) as f:
        d = json.load(f)
    d["device"]["step_ticks"] = 4
    d["ground_motion"]["synthetic"]["duration"] = 2
    p = tmp_path / "short.json"
    p.write_text(json.dumps(d))
    h, res = rths.run(p)
    assert res.steps == res.steps_planned == 512


def test_the_package_prints_nothing(top):
    # errors, a raising and a NaN integrator, a missing device: all
    # raised, nothing on stdout or stderr
    code = r'''
import errno, math, sys
sys.path.insert(0, sys.argv[2])
import rths
from cr_integrator import ChenRicles

class Bad(ChenRicles):
    def predict(self, n, u, v, a, f1, u1):
        raise KeyError("x")

class Nan(ChenRicles):
    def predict(self, n, u, v, a, f1, u1):
        u1[:] = math.nan

for f in (lambda: rths.Device("rths-py-none"),
          lambda: rths.load(sys.argv[1] + "x"),
          lambda: rths.run(sys.argv[1], step_ticks=5, integrator=Bad),
          lambda: rths.run(sys.argv[1], step_ticks=5, integrator=Nan)):
    try:
        f()
        sys.exit(1)
    except rths.Error:
        pass
'''
    p = subprocess.run([sys.executable, "-c", code, frame(top),
                        os.path.join(top, "examples/python")],
                       capture_output=True)
    assert p.returncode == 0 and p.stdout == b"" and p.stderr == b""
