#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""rths-run --live from outside: hostile clients, a stalled viewer, a
token, HTTPS off loopback, and the page in headless Chromium (read over
the DevTools protocol while the run goes on) against history.csv.  TAP
on stdout; the closing line is "N passed, N failed".

Usage: live_test.py RTHS_RUN EXPERIMENT.json RESULTS_DIR
"""
import base64
import csv
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

import websocket

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import liveclient  # noqa: E402

# absolute: the refusals below run in WORK, so that whatever they
# create lands there and not in the tree
RUN, EXPERIMENT, RESULTS = (os.path.abspath(a) for a in sys.argv[1:4])
WORK = tempfile.mkdtemp(prefix="rths-live-")
DURATION = "6"			# s of the record, paced
LONG = "25"			# the browser's runs: Chromium starts slowly
results = []


def check(ok, what, detail=""):
    results.append(bool(ok))
    print("%s %d - %s" % ("ok" if ok else "not ok", len(results), what))
    if not ok and detail:
        for line in str(detail).splitlines()[-20:]:
            print("#   " + line)
    sys.stdout.flush()


def start(name, *extra, pace=True, live="127.0.0.1:0", duration=DURATION):
    """rths-run offline on the experiment; returns (proc, url, outdir)."""
    out = os.path.join(WORK, name)
    # -d 1: the step size fixed, not chosen by the preview, whose
    # timing on a loaded machine could pick another for one run
    args = [RUN, "--offline", "-q", "--no-plots", "--no-reference",
            "-d", "1", "-t", duration, "-o", out]
    if pace:
        args.append("--pace")
    if live:
        args += ["--live", live]
    args += list(extra) + [EXPERIMENT]
    err = open(os.path.join(WORK, name + ".err"), "w+")
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err)
    return p, liveclient.wait_url(p, err), out, err


def history(out):
    """Rows of history.csv without compute_us, and the rows by step."""
    with open(os.path.join(out, "history.csv")) as f:
        rows = list(csv.reader(f))
    drop = rows[0].index("compute_us")
    plain = [r[:drop] + r[drop + 1:] for r in rows]
    return plain, {int(r[0]): dict(zip(rows[0], r)) for r in rows[1:]}


def get(url, method="GET", headers=None, context=None):
    req = urllib.request.Request(url, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5, context=context) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (urllib.error.URLError, OSError) as e:
        return None, str(e).encode()


hostport = liveclient.hostport


# --- the baselines: no view, no pace
base = start("base", pace=False, live=None)[0]
base.wait()
check(base.returncode == 0, "a run without the view finishes")
base_hist, _ = history(os.path.join(WORK, "base"))
base = start("base-long", pace=False, live=None, duration=LONG)[0]
base.wait()
long_hist, _ = history(os.path.join(WORK, "base-long"))

# --- command-line refusals
r = subprocess.run([RUN, "--offline", "--live", "nonsense", EXPERIMENT],
                   capture_output=True, text=True, cwd=WORK)
check(r.returncode == 1 and "expected ADDR:PORT" in r.stderr,
      "--live nonsense is refused, saying what is expected", r.stderr)
r = subprocess.run([RUN, "--offline", "--live", "0.0.0.0:0", EXPERIMENT],
                   capture_output=True, text=True, cwd=WORK)
check(r.returncode == 1 and "not a loopback address" in r.stderr and
      "--live-token" in r.stderr,
      "off loopback without HTTPS and a token it does not start", r.stderr)
r = subprocess.run([RUN, "--offline", "--live-linger", "2", EXPERIMENT],
                   capture_output=True, text=True, cwd=WORK)
check(r.returncode == 2, "--live-linger without --live is a usage error",
      r.stderr)

# --- hostile clients and viewers during one paced run
p, url, out, err = start("hostile", "--live-linger", "1")
check(url is not None, "the view's URL is on stderr",
      open(os.path.join(WORK, "hostile.err")).read())
stop = threading.Event()
got = [[] for _ in range(4)]
readers = [threading.Thread(target=liveclient.reader, args=(url, stop, g))
           for g in got]
for t in readers:
    t.start()
stalled = liveclient.stalled(url)
st, body = get(url + "no/such/page")
check(st == 404, "an unknown path: 404", st)
st, body = get(url + "events", method="POST")
check(st == 405, "POST: 405, the view is read only", st)
st, body = get(url, method="PUT")
check(st == 405, "PUT: 405", st)
# headers larger than the server's header memory
s = socket.create_connection(hostport(url))
s.settimeout(5)
try:
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 65536 +
              b"\r\n\r\n")
    answer = s.recv(256)
except OSError:
    answer = b""
s.close()
check(not answer.startswith(b"HTTP/1.1 200"),
      "64 KiB of headers are refused", answer[:80])
# slowloris: a request that never ends is cut after the idle time
slow = socket.create_connection(hostport(url))
slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
t_slow = time.monotonic()
# 200 connections at once
crowd, refused = [], 0
for _ in range(200):
    try:
        c = socket.create_connection(hostport(url), timeout=2)
        crowd.append(c)
    except OSError:
        refused += 1
time.sleep(0.5)
closed = 0
for c in crowd:
    c.settimeout(0.2)
    try:
        if c.recv(1) == b"":
            closed += 1
    except socket.timeout:
        pass
    except OSError:
        closed += 1
for c in crowd:
    c.close()
check(refused + closed >= 150,
      "of 200 connections at once, the ones over the limits are refused",
      "refused %d, closed %d" % (refused, closed))
# the server notices the closed ones within a second or two
for _ in range(10):
    time.sleep(0.5)
    st, body = get(url)
    if st == 200:
        break
check(st == 200 and b"rths live view" in body,
      "after the crowd the page is served again", (st, body[:200]))
# the view's threads (all but the step thread) at SCHED_IDLE
policies = {}
for tid in os.listdir("/proc/%d/task" % p.pid):
    try:
        with open("/proc/%d/task/%s/stat" % (p.pid, tid)) as f:
            policies[int(tid)] = int(f.read().rsplit(")", 1)[1].split()[38])
    except (OSError, IndexError, ValueError):
        pass
check(len(policies) > 2 and all(v == 5 for t, v in policies.items()
                                if t != p.pid),
      "the view's threads run at SCHED_IDLE", policies)
slow.settimeout(20)
try:
    while slow.recv(64):
        pass
    cut = time.monotonic() - t_slow
except OSError:
    cut = 99
slow.close()
check(cut < 16, "a slowloris request is cut after the idle time",
      "%.1f s" % cut)
p.wait(timeout=120)
# The tool's exit ends each stream: a reader still reading after that
# did not get to the end.  How many frames events each got depends on
# the CPU the view's SCHED_IDLE threads are given on a loaded machine.
for t in readers:
    t.join(timeout=10)
ended = [not t.is_alive() for t in readers]
stop.set()
for t in readers:
    t.join(timeout=10)
stalled.close()
check(p.returncode == 0, "the run finished (exit 0) with all that going on",
      open(os.path.join(WORK, "hostile.err")).read())
check(all(ended) and all(len(g) > 0 for g in got),
      "four viewers each got the stream to its end",
      "frames events %s, ended %s" % ([len(g) for g in got], ended))
hist, _ = history(out)
check(hist == base_hist,
      "its history is the run's without a view (all but compute_us)")

# --- a token on loopback
tok = os.path.join(WORK, "token")
with open(tok, "w") as f:
    f.write("s3cret-token-0123456789\n")
p, url, out, err = start("token", "--live-token", tok)
bare = url.split("?")[0]
st, _ = get(bare)
check(st == 401, "with a token, a request without it: 401", st)
st, _ = get(bare + "?token=wrong-token-0123456789")
check(st == 401, "a wrong token: 401", st)
st, _ = get(url)
check(st == 200, "the URL on stderr carries the token: 200", st)
st, _ = get(bare + "summary.json",
            headers={"Authorization": "Bearer s3cret-token-0123456789"})
check(st == 200, "Authorization: Bearer works too", st)
p.wait(timeout=120)

# --- HTTPS off loopback
key, cert = os.path.join(WORK, "key.pem"), os.path.join(WORK, "cert.pem")
subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                "ec_paramgen_curve:P-256", "-nodes", "-days", "2", "-subj",
                "/CN=rths-live-test", "-keyout", key, "-out", cert],
               capture_output=True, check=True)
p, url, out, err = start("https", "--live-token", tok, "--live-cert", cert,
                         "--live-key", key, live="0.0.0.0:0")
check(url is not None and url.startswith("https://"),
      "off loopback with a certificate, a key and a token: HTTPS", url)
if url:
    port = hostport(url)[1]
    ctx = ssl.create_default_context(cafile=cert)
    ctx.check_hostname = False
    time.sleep(0.5)
    st, body = get("https://127.0.0.1:%d/summary.json?token=%s" %
                   (port, "s3cret-token-0123456789"), context=ctx)
    check(st == 200 and b'"state"' in body, "the summary over HTTPS",
          (st, body[:200]))
    st, body = get("http://127.0.0.1:%d/" % port)
    check(st != 200, "plain HTTP on the HTTPS port is not served", st)
p.wait(timeout=120)
check(p.returncode == 0, "the HTTPS run finished")


# --- the page in headless Chromium, over the DevTools protocol
def browser(url, name):
    prof = os.path.join(WORK, "chromium-" + name)
    b = subprocess.Popen(
        ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
         "--disable-dev-shm-usage",
         "--user-data-dir=" + prof, "--remote-debugging-port=0",
         "--remote-allow-origins=*", "--window-size=1400,1000", url],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port = None
    for _ in range(300):
        try:
            with open(os.path.join(prof, "DevToolsActivePort")) as f:
                port = int(f.readline())
            break
        except (OSError, ValueError):
            time.sleep(0.1)
    ws = None
    for _ in range(100):
        try:
            with urllib.request.urlopen(
                    "http://127.0.0.1:%d/json" % port, timeout=2) as r:
                pages = [t for t in json.load(r) if t["type"] == "page"]
            if pages:
                ws = websocket.create_connection(
                    pages[0]["webSocketDebuggerUrl"], timeout=10,
                    suppress_origin=True)
                break
        except (OSError, TypeError, ValueError):
            pass
        time.sleep(0.1)
    return b, ws


CALLS = [0]


def cdp(ws, method, **params):
    CALLS[0] += 1
    ws.send(json.dumps({"id": CALLS[0], "method": method,
                        "params": params}))
    while True:
        m = json.loads(ws.recv())
        if m.get("id") == CALLS[0]:
            return m.get("result", {})


READ = ("JSON.stringify({step: document.getElementById('step').dataset.step,"
        " state: document.getElementById('state').textContent,"
        " target: document.getElementById('target-0') &&"
        "  document.getElementById('target-0').textContent,"
        " disp: document.getElementById('disp-0') &&"
        "  document.getElementById('disp-0').textContent,"
        " force: document.getElementById('force-0') &&"
        "  document.getElementById('force-0').textContent,"
        " j1b: document.getElementById('j1b-0') &&"
        "  document.getElementById('j1b-0').textContent})")


def page_values(ws):
    r = cdp(ws, "Runtime.evaluate", expression=READ, returnByValue=True)
    if "value" not in r.get("result", {}):
        return {"state": "loading", "step": "0"}	# not there yet
    return json.loads(r["result"]["value"])


p, url, out, err = start("browser", "--live-linger", "2", duration=LONG)
t_open = time.monotonic()
b, ws = browser(url, "view")
check(ws is not None, "headless Chromium opens the page")
seen, reads = [], []
if ws:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and p.poll() is None:
        v = page_values(ws)
        reads.append("%.1f s %s %s" % (time.monotonic() - t_open,
                                      v["state"], v["step"]))
        if v["state"] == "running" and int(v["step"]) > 0:
            seen.append(v)
            if len(seen) == 3:
                shot = cdp(ws, "Page.captureScreenshot", format="png")
                png = os.path.join(RESULTS, "live-view.png")
                with open(png, "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
        time.sleep(0.4)
    ws.close()
b.kill()
b.wait()
p.wait(timeout=120)
check(p.returncode == 0, "the run with a browser watching finished")
check(len(seen) >= 3, "the page showed the run while it ran (%d reads)"
      % len(seen), reads)
_, by_step = history(out)


def close(a, b):
    return abs(float(a) - float(b)) <= 1e-8 * max(abs(float(b)), 1e-12)


bad = [v for v in seen if not (
    int(v["step"]) in by_step and
    close(v["target"], by_step[int(v["step"])]["target1_m"]) and
    close(v["disp"], by_step[int(v["step"])]["disp1_m"]) and
    close(v["force"], by_step[int(v["step"])]["force1_N"]))]
check(seen and not bad,
      "every value the page showed is history.csv's at its step",
      json.dumps(bad[:3]))
# J1 (benchmark) on the page: whole steps of the run, none negative
last = max(by_step) if by_step else 0
dt_ms = 1e3 * float(by_step[last]["time_s"]) / last if last else 0
j1b = [float(v["j1b"]) for v in seen if v.get("j1b") not in (None, "-")]
whole = dt_ms > 0 and bool(j1b) and all(
    x >= 0 and abs(x / dt_ms - round(x / dt_ms)) < 0.01 for x in j1b)
check(whole,
      "J1 (benchmark) on the page is a whole number of steps, not negative",
      (dt_ms, j1b[:5]))
check(os.path.getsize(os.path.join(RESULTS, "live-view.png")) > 10000
      if os.path.exists(os.path.join(RESULTS, "live-view.png")) else False,
      "a screenshot of the page during the run is saved (results/live-view.png)")

# --- the browser killed mid-run
p, url, out, err = start("killed", duration=LONG)
b, ws = browser(url, "killed")
watching = False
for _ in range(100):
    if ws and page_values(ws)["state"] == "running":
        watching = True
        break
    time.sleep(0.2)
check(watching, "a second browser watches the run")
b.send_signal(signal.SIGKILL)
b.wait()
p.wait(timeout=120)
check(p.returncode == 0, "a browser killed mid-run: the run finishes")
hist, _ = history(out)
def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return "row %d:\n%s\n%s" % (i, x, y)
    return "%d rows against %d" % (len(a), len(b))


check(hist == long_hist,
      "and its history is the run's without a view (all but compute_us)",
      first_difference(hist, long_hist))

shutil.rmtree(WORK, ignore_errors=True)
passed = sum(results)
print("1..%d" % len(results))
print("%d passed, %d failed" % (passed, len(results) - passed))
sys.exit(0 if passed == len(results) else 1)
