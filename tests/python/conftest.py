# SPDX-License-Identifier: LGPL-2.1-or-later
"""pytest setup for the rths package's tests: RTHS_TAP names a file that
gets one TAP line per test (tests/summary.sh counts them); RTHS_DEVICE
names a sim-card device for the tests marked "device" (the guest test,
tests/vm/python-guest.sh), which are skipped without it."""
import os

import pytest

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

_tap = []


def pytest_configure(config):
    config.addinivalue_line("markers", "device: needs RTHS_DEVICE")


def pytest_collection_modifyitems(config, items):
    skip = pytest.mark.skip(reason="RTHS_DEVICE not set (the guest's)")
    for it in items:
        if "device" in it.keywords and not os.environ.get("RTHS_DEVICE"):
            it.add_marker(skip)


def pytest_runtest_logreport(report):
    if report.when == "call" or (report.when == "setup" and
                                 not report.passed):
        if report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr,
                                                      tuple) else ""
            _tap.append(("ok", report.nodeid, " # SKIP " + reason, ""))
        elif report.passed:
            _tap.append(("ok", report.nodeid, "", ""))
        else:
            _tap.append(("not ok", report.nodeid, "",
                         str(report.longrepr)))


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("RTHS_TAP")
    if not path:
        return
    with open(path, "w") as f:
        f.write("TAP version 13\n1..%d\n" % len(_tap))
        for i, (st, name, skip, why) in enumerate(_tap, 1):
            f.write("%s %d - %s%s\n" % (st, i, name, skip))
            for line in why.splitlines()[-30:]:
                f.write("# %s\n" % line)


@pytest.fixture
def top():
    return TOP


@pytest.fixture
def record():
    return os.path.join(TOP, "tests/data/elcentro-ns-1940.AT2")
