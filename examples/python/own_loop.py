#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A researcher's own RTHS loop in Python, as examples/c/own-loop.c: a
one-storey structure (mass m, damping c, column stiffness kn computed)
whose second column is the specimen, under a PEER .AT2 record,
integrated by explicit central differences.  Each step sends the
displacement to the actuator and reads the specimen's force back.

  own_loop.py -o RECORD.AT2          offline: librths's modelled actuator
                                     and a linear specimen (ke)
  own_loop.py -d DEVICE RECORD.AT2   an rths device (1 channel, rate 1024,
                                     step-ticks 10); this program runs it

Prints one line per step: t u r (s, m, N).
"""
import sys

import rths

RATE, STEP_TICKS = 1024, 10		# Hz, ticks a step: dt = 9.77 ms
m, c, kn = 2000.0, 5477.0, 1e6		# kg, Ns/m, N/m
ke = 5e5				# N/m, the offline specimen


def main(argv):
    if len(argv) == 3 and argv[1] == "-o":
        rig = rths.Offline(k=ke, rate=RATE, step_ticks=STEP_TICKS)
    elif len(argv) == 4 and argv[1] == "-d":
        rig = rths.Device(argv[2])
    else:
        sys.exit("usage: own_loop.py -o RECORD.AT2 | -d DEVICE RECORD.AT2")
    gm = rths.GroundMotion.read_at2(argv[-1])
    dt = STEP_TICKS / RATE
    u0 = u1 = 0.0			# u(n-1), u(n)
    out = []
    with rig:
        rig.start()
        n = 1
        while (n - 1) * dt <= gm.duration:
            t = (n - 1) * dt
            rig.post(n, u1)
            r = rig.wait().force[0]
            out.append("%.6f %.9e %.6e\n" % (t, u1, r))
            # m u'' + c u' + kn u + r = -m ag
            u2 = (-m * gm.at(t) - kn * u1 - r + 2 * m / (dt * dt) * u1 -
                  (m / (dt * dt) - c / (2 * dt)) * u0) / \
                (m / (dt * dt) + c / (2 * dt))
            u0, u1 = u1, u2
            n += 1
        if isinstance(rig, rths.Device):
            rig.hold()
        rig.stop()
    sys.stdout.writelines(out)


if __name__ == "__main__":
    try:
        main(sys.argv)
    except rths.Error as e:
        sys.exit("own_loop.py: %s" % e)
