# SPDX-License-Identifier: LGPL-2.1-or-later
"""rths: Python over librths.so.2 (Documentation/python.rst).

    rths.Device(name)       an rths device: post commands, wait for feedback
    rths.Monitor()          the kernel's events
    rths.Offline(...)       librths's modelled actuator, the same post/wait
    rths.GroundMotion       a PEER .AT2 or two-column record
    rths.load(path)         an experiment file
    rths.run(path, ...)     run one, the history as numpy arrays
    rths.Integrator         base class of a Python integrator plug-in

Every failure raises rths.Error(code, message); the package never prints.
"""
from ._core import Error, strerror, FB_EXTRAPOLATED, FB_HELD, \
    FB_DECELERATED, FB_GAP, E_CALLBACK, E_NONFINITE
from .device import Device, Monitor, Feedback, Event
from .offline import Offline, GroundMotion
from .experiment import Experiment, History, Result, load, run
from .plugin import Integrator, Problem, Registration, register

__all__ = ["Error", "strerror", "Device", "Monitor", "Feedback", "Event",
           "Offline", "GroundMotion", "Experiment", "History", "Result",
           "load", "run", "Integrator", "Problem", "Registration",
           "register", "FB_EXTRAPOLATED", "FB_HELD", "FB_DECELERATED",
           "FB_GAP", "E_CALLBACK", "E_NONFINITE"]
