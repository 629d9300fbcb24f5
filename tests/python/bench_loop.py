#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python half of bench-python: bench_loop.c's loop (own_loop.py's,
for N steps) through the rths package, timed the same way, printing

    bench-loop python MODE steps N mean_us M p50_us P p99_us Q max_us X

usage: bench_loop.py -o N RECORD.AT2 | -d DEVICE N RECORD.AT2
"""
import math
import sys
import time

import numpy as np

import rths

RATE, STEP_TICKS = 1024, 10
m, c, kn, ke = 2000.0, 5477.0, 1e6, 5e5


def main(argv):
    if len(argv) == 4 and argv[1] == "-o":
        rig, dev = rths.Offline(k=ke, rate=RATE, step_ticks=STEP_TICKS), False
    elif len(argv) == 5 and argv[1] == "-d":
        rig, dev = rths.Device(argv[2]), True
    else:
        sys.exit(__doc__)
    steps = int(argv[-2])
    gm = rths.GroundMotion.read_at2(argv[-1])
    dt = STEP_TICKS / RATE
    dur = gm.duration
    cost = np.zeros(steps)
    now = time.monotonic_ns
    u0 = u1 = 0.0
    sample = 0
    with rig:
        rig.start()
        for n in range(1, steps + 1):
            t = math.fmod((n - 1) * dt, dur)
            t0 = now()
            rig.post(n, u1)
            if dev and n > 1:
                cost[n - 2] = now() - sample	# step n-1's reaction
            fb = rig.wait()
            r = fb.force[0]
            sample = fb.time_ns
            u2 = (-m * gm.at(t) - kn * u1 - r + 2 * m / (dt * dt) * u1 -
                  (m / (dt * dt) - c / (2 * dt)) * u0) / \
                (m / (dt * dt) + c / (2 * dt))
            u0, u1 = u1, u2
            if not dev:
                cost[n - 1] = now() - t0
        if dev:
            rig.hold()
            cost = cost[:-1]
        rig.stop()
    s = np.sort(cost) / 1e3
    print("bench-loop python %s steps %d mean_us %.3f p50_us %.3f "
          "p99_us %.3f max_us %.3f" % (
              "device" if dev else "offline", s.size, s.mean(),
              s[s.size // 2], s[int(0.99 * (s.size - 1))], s[-1]))


if __name__ == "__main__":
    try:
        main(sys.argv)
    except rths.Error as e:
        sys.exit("bench_loop.py: %s" % e)
