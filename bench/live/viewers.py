#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Does the live view touch the step loop?  The same run, alternately
with no viewer and with five (four that read the stream, one that asks
for it and never reads), ROUNDS times each, in one invocation: the
compute time of every step (history.csv's compute_us) as p50, p99 and
max, and the late steps (non-zero feedback flags).  The spread between
rounds of the same kind is the run-to-run noise.  Prints; asserts
nothing about time.

With --remote DIR ADDR:PORT the viewers are another machine's (the host
of a test guest, bench/live/viewers-guest.sh): rths-run serves on
ADDR:PORT with HTTPS and a token (DIR/cert.pem, DIR/key.pem, DIR/token),
writes DIR/NAME.url when it serves and DIR/NAME.end when it is over, and
DIR/done at the end; "viewers.py --viewers DIR HOST:PORT" on the other
machine reads DIR/NAME.url, opens the five viewers through HOST:PORT
(the forward to ADDR:PORT), and closes them on DIR/NAME.end.

Usage: viewers.py RTHS_RUN EXPERIMENT.json [ROUNDS] [--remote DIR ADDR:PORT]
                  [-- RTHS_RUN_ARGS...]
       viewers.py --viewers DIR HOST:PORT
"""
import csv
import os
import ssl
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tests", "live"))
import liveclient  # noqa: E402

def start_viewers(url, n, stop, context=None, connect=None, got=None):
    """@n - 1 readers and one stalled viewer of the view at @url (dialled
    through @connect, (host, port), if given); the readers' frames events
    counted in @got."""
    if connect:
        url = url.replace(url.split("//")[1].split("/")[0],
                          "%s:%d" % connect, 1)
    threads = []
    for _ in range(n - 1):
        t = threading.Thread(target=liveclient.reader,
                             args=(url, stop, got, context))
        t.start()
        threads.append(t)
    return threads, liveclient.stalled(url, context)


def close_viewers(stop, threads, stalled):
    stop.set()
    for t in threads:
        t.join(timeout=15)
    if stalled:
        stalled.close()


def remote_viewers(share, hostport):
    """The other machine's half of --remote: viewers for each NAME.url."""
    h, p = hostport.rsplit(":", 1)
    ctx = ssl.create_default_context(cafile=os.path.join(share, "cert.pem"))
    ctx.check_hostname = False
    seen = set()
    while not os.path.exists(os.path.join(share, "done")):
        new = [f for f in os.listdir(share)
               if f.endswith(".url") and f not in seen]
        if not new:
            time.sleep(0.05)
            continue
        name = new[0][:-4]
        seen.add(new[0])
        with open(os.path.join(share, new[0])) as f:
            url = f.read().strip()
        stop, got = threading.Event(), []
        try:
            threads, stalled = start_viewers(url, 5, stop, ctx,
                                             (h, int(p)), got)
        except OSError as e:
            print("viewers.py: %s: %s" % (name, e), file=sys.stderr)
            threads, stalled = [], None
        while not os.path.exists(os.path.join(share, name + ".end")):
            time.sleep(0.1)
        close_viewers(stop, threads, stalled)
        print("# %s: 5 viewers through %s, the 4 readers got %d frames "
              "events" % (name, hostport, len(got)))
        sys.stdout.flush()
    return 0


argv = sys.argv[1:]
if argv and argv[0] == "--viewers":
    sys.exit(remote_viewers(argv[1], argv[2]))
extra = []
if "--" in argv:
    extra = argv[argv.index("--") + 1:]
    argv = argv[:argv.index("--")]
REMOTE = None
if "--remote" in argv:
    i = argv.index("--remote")
    REMOTE = argv[i + 1:i + 3]
    argv = argv[:i] + argv[i + 3:]
RUN, EXPERIMENT = argv[0], argv[1]
ROUNDS = int(argv[2]) if len(argv) > 2 else 2
WORK = tempfile.mkdtemp(prefix="rths-bench-live-")


def one(name, viewers):
    out = os.path.join(WORK, name)
    args = [RUN, "-q", "--no-plots", "--no-reference", "-o", out] + extra
    if viewers and REMOTE:
        share = REMOTE[0]
        args += ["--live", REMOTE[1],
                 "--live-token", os.path.join(share, "token"),
                 "--live-cert", os.path.join(share, "cert.pem"),
                 "--live-key", os.path.join(share, "key.pem")]
    elif viewers:
        args += ["--live", "127.0.0.1:0"]
    err = open(os.path.join(WORK, name + ".err"), "w+")
    p = subprocess.Popen(args + [EXPERIMENT], stdout=subprocess.DEVNULL,
                         stderr=err)
    stop, threads, stalled = threading.Event(), [], None
    if viewers:
        url = liveclient.wait_url(p, err, tries=10 ** 6, pause=0.02)
        if url and REMOTE:
            with open(os.path.join(REMOTE[0], name + ".url.tmp"), "w") as f:
                f.write(url + "\n")
            os.rename(os.path.join(REMOTE[0], name + ".url.tmp"),
                      os.path.join(REMOTE[0], name + ".url"))
        elif url:
            threads, stalled = start_viewers(url, viewers, stop)
    p.wait()
    if viewers and REMOTE:
        open(os.path.join(REMOTE[0], name + ".end"), "w").close()
    close_viewers(stop, threads, stalled)
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
if REMOTE:
    open(os.path.join(REMOTE[0], "done"), "w").close()
