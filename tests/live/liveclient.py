# SPDX-License-Identifier: GPL-2.0
"""The live view's clients, shared by tests/live/live_test.py and
bench/live/viewers.py: the URL a tool prints, a well-behaved viewer
that reads the event stream to its end, and a stalled one that asks for
it and never reads.  HTTPS with a token works as over loopback: pass
the URL the tool printed (token included) and an ssl context."""
import socket
import time
import urllib.parse
import urllib.request


def wait_url(proc, err, tries=200, pause=0.05):
    """The URL after "live view at " in the tool's stderr (a file open
    w+), or None once @proc ended or after @tries."""
    for _ in range(tries):
        err.seek(0)
        text = err.read()
        if "live view at " in text:
            return text.split("live view at ")[1].split()[0]
        if proc.poll() is not None:
            return None
        time.sleep(pause)
    return None


def hostport(url):
    hp = urllib.parse.urlsplit(url).netloc
    h, p = hp.rsplit(":", 1)
    return h.strip("[]"), int(p)


def at(url, path):
    """@path on the view at @url, its token kept."""
    u = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((u.scheme, u.netloc, "/" + path,
                                    u.query, ""))


def reader(url, stop, got=None, context=None, timeout=60):
    """A well-behaved viewer: reads the stream to its end (or @stop);
    appends 1 to @got per frames event."""
    try:
        with urllib.request.urlopen(at(url, "events"), timeout=timeout,
                                    context=context) as r:
            while not stop.is_set():
                line = r.readline()
                if not line:
                    break
                if got is not None and line.startswith(b"event: frames"):
                    got.append(1)
    except OSError:
        pass


def stalled(url, context=None, connect=None):
    """Asks for the stream and never reads it (a small receive buffer, so
    that the server's side fills fast).  @connect: (host, port) to dial
    instead of the URL's."""
    s = socket.create_connection(connect or hostport(url))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    if context is not None:
        s = context.wrap_socket(s, server_hostname=hostport(url)[0])
    q = urllib.parse.urlsplit(url).query
    s.sendall(b"GET /events%s HTTP/1.1\r\nHost: x\r\n\r\n" %
              (("?" + q).encode() if q else b""))
    return s
