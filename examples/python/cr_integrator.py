#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Chen-Ricles method written in Python as an integrator plug-in
(examples/plugin/cr_plugin.c is the C one):

    A = (M + dt/2 C0 + dt^2/4 K0)^-1 M
    v_{n+1} = v_n + dt A a_n,  u_{n+1} = u_n + dt v_n + dt^2 A a_n
    M a_{n+1} = f_{n+1} - C v_{n+1} - r_{n+1}

  cr_integrator.py EXPERIMENT.json [STEP_TICKS]

runs the experiment offline with it in place of the file's integrator
and prints t and the displacements, one line a step.
"""
import sys

import numpy as np

import rths


class ChenRicles(rths.Integrator):
    name = "cr-python"

    def alloc(self, p):
        self.dt = p.dt
        D = p.m + p.dt / 2 * p.c0 + p.dt**2 / 4 * p.k0
        self.A = np.linalg.solve(D, p.m)
        self.C = p.c
        self.minv = np.linalg.inv(p.m)
        self.v1 = np.zeros(p.n)

    def predict(self, n, u, v, a, f1, u1):
        w = self.dt * (self.A @ a)
        self.v1 = v + w
        u1[:] = u + self.dt * v + self.dt * w

    def correct(self, n, u, v, a, u1, f1, r1, u_out, v_out, a_out):
        a_out[:] = self.minv @ (f1 - r1 - self.C @ self.v1)
        u_out[:] = u1
        v_out[:] = self.v1


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    h, res = rths.run(argv[1], integrator=ChenRicles,
                      step_ticks=int(argv[2]) if len(argv) == 3 else None)
    for t, u in zip(h.t, h.u):
        print("%.6f %s" % (t, " ".join("%.9e" % x for x in u)))
    print("# %d of %d steps, %d late" % (res.steps, res.steps_planned,
                                          res.late_steps), file=sys.stderr)


if __name__ == "__main__":
    try:
        main(sys.argv)
    except rths.Error as e:
        sys.exit("cr_integrator.py: %s" % e)
