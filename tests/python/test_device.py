# SPDX-License-Identifier: LGPL-2.1-or-later
"""The rths package on the sim card (the guest test,
tests/vm/python-guest.sh): RTHS_DEVICE names a one-channel sim device of
stiffness RTHS_KE at 1024 Hz, 10 ticks a step, event-driven."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import rths

pytestmark = pytest.mark.device
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "examples", "python"))
from cr_integrator import ChenRicles  # noqa: E402


@pytest.fixture
def dev():
    return os.environ["RTHS_DEVICE"]


def test_device_post_wait_stats_info(dev):
    ke = float(os.environ.get("RTHS_KE", "5e5"))
    with rths.Device(dev) as d:
        assert d.channels == 1
        d.start()
        assert d.info()["state"] == "running"
        for n in range(1, 31):
            d.post(n, 1e-4 * n)
            fb = d.wait(2000)
            assert fb.step == n and fb.disp.shape == (1,)
        # the sim card's force: ke at the measured displacement
        assert fb.force[0] == pytest.approx(ke * fb.disp[0], rel=0.05)
        st = d.stats()
        assert st["steps"] >= 30 and st["ticks"] >= 300
        assert st["thread_lat_hist"].shape[0] > 0
        d.hold()
        d.stop()
        assert d.info()["state"] == "stopped"


def test_observer_cannot_post(dev):
    with rths.Device(dev, owner=False) as d:
        with pytest.raises(rths.Error) as ei:
            d.post(1, 0.0)
        assert ei.value.code == -9		# EBADF


def test_monitor_sees_the_run(dev):
    with rths.Monitor() as mon, rths.Device(dev) as d:
        d.start()
        d.stop()
        states = []
        while True:
            ev = mon.read(2000)
            if ev is None:
                break
            if ev.device == dev and ev.type == "state":
                states.append(ev.state)
            if "stopped" in states:
                break
    assert "running" in states and "stopped" in states


def test_own_loop_on_the_sim_card(dev, top, record):
    ke = float(os.environ.get("RTHS_KE", "5e5"))
    p = subprocess.run([sys.executable,
                        os.path.join(top, "examples/python/own_loop.py"),
                        "-d", dev, record], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    rows = np.loadtxt(p.stdout.splitlines())
    assert rows.shape == (3193, 3)
    pu, pr = np.abs(rows[:, 1]).max(), np.abs(rows[:, 2]).max()
    assert pu > 1e-3 and 0.95 * ke < pr / pu < 1.05 * ke


def test_python_integrator_on_the_sim_card(tmp_path, top):
    # the frame on a sim card of its own (created and removed by the
    # run), 3 s, with the Python Chen-Ricles in place of the file's cr
    with open(os.path.join(top, "examples/two-story-frame-sim.json")) as f:
        d = json.load(f)
    d["device"]["name"] = "pyexp"
    d["ground_motion"]["synthetic"]["duration"] = 3
    p = tmp_path / "sim.json"
    p.write_text(json.dumps(d))
    h, res = rths.run(p, offline=False, integrator=ChenRicles)
    assert res.error == 0 and res.steps == res.steps_planned == 384
    assert np.isfinite(h.u).all() and np.abs(h.force).max() > 0
    ho, reso = rths.run(p, offline=True, integrator=ChenRicles)
    # the card and its offline model agree on the peak to a few percent
    # (late steps under TCG aside)
    assert np.abs(h.u).max() == pytest.approx(np.abs(ho.u).max(), rel=0.2)
