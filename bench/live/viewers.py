#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Does the live view touch the step loop?  The same run, alternately
with no viewer and with five (four that read the stream, one that asks
for it and never reads), ROUNDS times each, in one invocation: the
compute time of every step (history.csv's compute_us) as p50, p99 and
max, and the late steps (non-zero feedback flags).  The spread between
rounds of the same kind is the run-to-run noise.  Prints; asserts
nothing about time.

Usage: viewers.py RTHS_RUN EXPERIMENT.json [ROUNDS] [-- RTHS_RUN_ARGS...]
"""
import csv
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tests", "live"))
import liveclient  # noqa: E402

argv = sys.argv[1:]
extra = []
if "--" in argv:
    extra = argv[argv.index("--") + 1:]
    argv = argv[:argv.index("--")]
RUN, EXPERIMENT = argv[0], argv[1]
ROUNDS = int(argv[2]) if len(argv) > 2 else 2
WORK = tempfile.mkdtemp(prefix="rths-bench-live-")


def one(name, viewers):
    out = os.path.join(WORK, name)
    args = [RUN, "-q", "--no-plots", "--no-reference", "-o", out] + extra
    if viewers:
        args += ["--live", "127.0.0.1:0"]
    err = open(os.path.join(WORK, name + ".err"), "w+")
    p = subprocess.Popen(args + [EXPERIMENT], stdout=subprocess.DEVNULL,
                         stderr=err)
    stop, threads, stalled = threading.Event(), [], None
    if viewers:
        url = liveclient.wait_url(p, err, tries=10 ** 6, pause=0.02)
        if url:
            for _ in range(viewers - 1):
                t = threading.Thread(target=liveclient.reader,
                                     args=(url, stop))
                t.start()
                threads.append(t)
            stalled = liveclient.stalled(url)
    p.wait()
    stop.set()
    for t in threads:
        t.join(timeout=15)
    if stalled:
        stalled.close()
    if p.returncode != 0:
        err.seek(0)
        sys.exit("viewers.py: %s failed:\n%s" % (name, err.read()))
    with open(os.path.join(out, "history.csv")) as f:
        rows = list(csv.DictReader(f))[1:]
    c = sorted(float(r["compute_us"]) for r in rows)
    late = sum(1 for r in rows if int(r["flags"]) & 7)
    q = lambda x: c[min(len(c) - 1, int(x * (len(c) - 1)))]
    return q(0.5), q(0.99), c[-1], late, len(c)


print("# live view against none: %s %s %s" % (
    os.path.basename(EXPERIMENT), " ".join(extra), "(%d rounds)" % ROUNDS))
print("%-22s %10s %10s %10s %6s %7s" % ("run", "p50_us", "p99_us",
                                        "max_us", "late", "steps"))
res = {0: [], 5: []}
for k in range(ROUNDS):
    for v in (0, 5):
        r = one("r%d-v%d" % (k, v), v)
        res[v].append(r)
        print("%-22s %10.2f %10.2f %10.1f %6d %7d" % (
            "round %d, %d viewers" % (k + 1, v), *r))
        sys.stdout.flush()
for v in (0, 5):
    rs = res[v]
    print("%-22s %10.2f %10.2f %10.1f %6d" % (
        "%d viewers, median" % v,
        sorted(r[0] for r in rs)[len(rs) // 2],
        sorted(r[1] for r in rs)[len(rs) // 2],
        sorted(r[2] for r in rs)[len(rs) // 2],
        sorted(r[3] for r in rs)[len(rs) // 2]))
p50 = [r[0] for r in res[0]]
print("ratio 5 viewers / none: p50 %.3f, p99 %.3f (noise: none's p50 "
      "spread %.3f)" % (
          sorted(r[0] for r in res[5])[ROUNDS // 2] /
          sorted(p50)[ROUNDS // 2],
          sorted(r[1] for r in res[5])[ROUNDS // 2] /
          sorted(r[1] for r in res[0])[ROUNDS // 2],
          max(p50) / min(p50)))
print("extra late steps with 5 viewers: %d" % (
    sum(r[3] for r in res[5]) - sum(r[3] for r in res[0])))
