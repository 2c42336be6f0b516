#!/usr/bin/env python3
"""ctest `h2_hostile_<model>`: hostile HTTP/2 clients against bench-server under one model.

Usage: h2_hostile_test.py BENCH_SERVER --model MODEL
       h2_hostile_test.py --nginx      (the same attacks against nginx with http2 on, peers/nginx/run h2c and h2)

Each attack is a raw socket that writes frames by hand (hpack encodes the header blocks; python3-h2 is the
well-behaved client):
- rapid reset (CVE-2023-44487): HEADERS then RST_STREAM, thousands of times, on requests that wait 500 ms;
- HPACK bombs: one header of 4,000 bytes put in the dynamic table, then a block referring to it 16,000 times (64 MB
  decoded from 16 KB sent), on stream after stream; many small distinct headers; and a dynamic table size update
  beyond the table the server allows;
- CONTINUATION floods: a HEADERS without END_HEADERS followed by CONTINUATION frames that never end, full of
  literal headers, and empty ones;
- SETTINGS and PING floods, sent without reading the acknowledgements;
- a window of zero held open: SETTINGS_INITIAL_WINDOW_SIZE 0, GET /stream, never a WINDOW_UPDATE;
- invalid prefaces: a broken magic in cleartext, an HTTP/1.1 request on a TLS connection that chose h2 by ALPN, and
  the right magic followed by a PING where SETTINGS must come first;
- a stream id reused: HEADERS on stream 1 again after it was answered, and a lower stream id after a higher one.

For each: the attacking connection ends with GOAWAY and the error code the attack calls for (ENHANCE_YOUR_CALM for
floods and bombs, COMPRESSION_ERROR for a table size beyond the server's, PROTOCOL_ERROR for broken framing and
reused ids; a broken magic may be closed without GOAWAY, RFC 9113 section 3.4), the window of zero is closed (or its
stream reset) within a deadline, the server's RSS (VmRSS of /proc/PID/status, sampled every 20 ms) stays within
BASELINE + RSS_BOUND_MB, and a well-behaved h2 client on its own connection is answered within a deadline both while
the attack runs and after it. Generous bounds only: no timing claim. An attack whose server passes the RSS bound is
stopped there (so a broken server cannot take the machine's memory) and fails.

Prints one PASS/FAIL line per check and `N passed, M failed` last; exits 0 when all passed, 1 otherwise, and 77
(skipped) when python3-h2 is missing, unless EXECBENCH_REQUIRE_CLIENTS=1 (.ci/test; .ci/setup installs it).
"""
import argparse
import http.client
import json
import os
import select
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import bench_server_process  # noqa: E402
from bench_server_process import Check  # noqa: E402

try:
    import h2.config
    import h2.connection
    import h2.events
    import h2.exceptions
except ImportError:  # reported by main(): skipped, or failed under EXECBENCH_REQUIRE_CLIENTS=1
    h2 = None

ROOT = Path(__file__).resolve().parents[2]
HEADER_TIMEOUT = 2  # seconds: --header-timeout
WRITE_TIMEOUT = 2  # seconds: --write-timeout, which bounds a window held at zero
IDLE_TIMEOUT = 4  # seconds: --idle-timeout
CLOSE_BOUND = 15  # seconds an attacking connection may stay open once the attack stopped (generous)
ZERO_WINDOW_BOUND = 15  # seconds a zero window may be held open (generous)
ANSWER_BOUND = 10  # seconds a well-behaved request may take while an attack runs (generous)
SEND_STALL = 2  # seconds a send may block before the attack counts the server as no longer reading
RSS_BOUND_MB = 512  # growth of the server's RSS over its baseline: generous (ASan's quarantine alone is 256 MB)

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS = 0x1, 0x1, 0x4
SETTINGS_HEADER_TABLE_SIZE, SETTINGS_INITIAL_WINDOW_SIZE = 0x1, 0x4
ERRORS = {0: "NO_ERROR", 1: "PROTOCOL_ERROR", 2: "INTERNAL_ERROR", 3: "FLOW_CONTROL_ERROR", 4: "SETTINGS_TIMEOUT",
          5: "STREAM_CLOSED", 6: "FRAME_SIZE_ERROR", 7: "REFUSED_STREAM", 8: "CANCEL", 9: "COMPRESSION_ERROR",
          10: "CONNECT_ERROR", 11: "ENHANCE_YOUR_CALM", 12: "INADEQUATE_SECURITY", 13: "HTTP_1_1_REQUIRED"}



# --- Frames by hand ---------------------------------------------------------------------------------------------------

def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def settings(*pairs):
    return frame(SETTINGS, 0, 0, b"".join(struct.pack(">HI", key, value) for key, value in pairs))


def request_headers(path, method="GET"):
    return [(":method", method), (":scheme", "http"), (":authority", "127.0.0.1"), (":path", path)]


def request_block(path):
    """A GET's header block from the static table and literals never indexed, so that the attacks' own dynamic table
    entries keep their indices: :method GET (2), :scheme http (6), :authority and :path as literals without indexing
    of names 1 and 4 (RFC 7541 section 6.2.2)."""
    return b"\x82\x86\x01" + _string(b"127.0.0.1") + b"\x04" + _string(path.encode())


def headers_frame(stream, path, flags=END_STREAM | END_HEADERS):
    return frame(HEADERS, flags, stream, request_block(path))


class Frames:
    """Frames parsed from bytes as they arrive."""

    def __init__(self):
        self.pending = b""
        self.seen = []  # (type, flags, stream, payload)

    def feed(self, data):
        self.pending += data
        while len(self.pending) >= 9:
            length = int.from_bytes(self.pending[:3], "big")
            if len(self.pending) < 9 + length:
                break
            kind, flags = self.pending[3], self.pending[4]
            stream = int.from_bytes(self.pending[5:9], "big") & 0x7FFFFFFF
            self.seen.append((kind, flags, stream, self.pending[9:9 + length]))
            self.pending = self.pending[9 + length:]

    def goaway(self):
        """The first GOAWAY's error code, or None."""
        for kind, _, _, payload in self.seen:
            if kind == GOAWAY and len(payload) >= 8:
                return int.from_bytes(payload[4:8], "big")
        return None

    def count(self, kind):
        return sum(1 for f in self.seen if f[0] == kind)

    def summary(self):
        """What came back, e.g. "HEADERS x2, RST_STREAM x100": what a failed check prints."""
        names = ("DATA", "HEADERS", "PRIORITY", "RST_STREAM", "SETTINGS", "PUSH_PROMISE", "PING", "GOAWAY",
                 "WINDOW_UPDATE", "CONTINUATION")
        counts = {}
        for kind, _, _, _ in self.seen:
            name = names[kind] if kind < len(names) else f"type {kind}"
            counts[name] = counts.get(name, 0) + 1
        return ", ".join(f"{name} x{n}" for name, n in counts.items()) or "no frame"


class Attacker:
    """One raw HTTP/2 connection (h2c, or h2 chosen by ALPN over TLS) that writes what it is told and reads only when
    asked, so a flood goes out without its acknowledgements being read."""

    def __init__(self, port, tls=False, preface=True):
        raw = socket.create_connection(("127.0.0.1", port), timeout=CLOSE_BOUND)
        if tls:
            raw = bench_server_process.alpn_h2(raw)
            if raw.selected_alpn_protocol() != "h2":
                raw.close()
                raise OSError(f"ALPN chose {raw.selected_alpn_protocol()!r}, not h2")
        self.sock = raw
        self.frames = Frames()
        self.closed = False  # reading found the end: the server closed or reset the connection
        self.stalled = False  # a send failed (reset, closed) or could not go out for SEND_STALL s: sending stops,
        # and what the server sent before it closed (its GOAWAY) is still read from the socket
        self.sent = 0
        if preface:
            self.send(PREFACE + settings())

    def send(self, data):
        """Writes `data`; False once the server closed, reset or stopped reading the connection."""
        if self.closed or self.stalled:
            return False
        self.sock.settimeout(SEND_STALL)
        try:
            self.sock.sendall(data)
            self.sent += len(data)
            return True
        except (OSError, ssl.SSLError):  # a timeout, or the server closed or reset the connection
            self.stalled = True
        return False

    def flood(self, writes, stop, read=True):
        """Sends each of `writes` until the server stops taking them or `stop` is set (the RSS bound was passed);
        with `read`, reads what came back after each, so that only the attack, not the answers, fills the socket."""
        for data in writes:
            if stop.is_set() or not self.send(data) or (read and not self.poll()):
                return

    def poll(self):
        """Reads what has arrived, without waiting; True while the connection is open and takes what is sent."""
        while not self.closed and not self.stalled:
            if not isinstance(self.sock, ssl.SSLSocket) or not self.sock.pending():
                if not select.select([self.sock], [], [], 0)[0]:
                    break
            self._recv_once()
        return not self.closed and not self.stalled

    def _recv_once(self):
        try:
            self.sock.settimeout(1)
            chunk = self.sock.recv(65536)
        except (socket.timeout, TimeoutError, ssl.SSLWantReadError):
            return
        except (OSError, ssl.SSLError):
            chunk = b""
        if not chunk:
            self.closed = True
        else:
            self.frames.feed(chunk)

    def read_until_closed(self, bound=CLOSE_BOUND, until=None):
        """Reads until the server closes (or `until(frames)` is true); False when still open after `bound` s."""
        deadline = time.monotonic() + bound
        while not self.closed and time.monotonic() < deadline:
            if until is not None and until(self.frames):
                return True
            self._recv_once()
        return self.closed or (until is not None and until(self.frames))

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def goaway(expected, optional=False):
    """The verdict of an attack its connection must end with GOAWAY carrying one of `expected` (or, with `optional`,
    with none: a broken preface, RFC 9113 section 3.4)."""
    def verdict(conn):
        return goaway_verdict(conn, expected, goaway_optional=optional)
    verdict.want = "/".join(sorted(expected)) + (" (or none)" if optional else "")
    return verdict


def goaway_verdict(conn, expected, bound=CLOSE_BOUND, goaway_optional=False):
    """Reads the attacker's connection to its end: (ok, what was seen). It passes when the connection closed within
    `bound` and its GOAWAY carries one of `expected` (or, with `goaway_optional`, came without one)."""
    start = time.monotonic()
    closed = conn.read_until_closed(bound)
    code = conn.frames.goaway()
    name = ERRORS.get(code, code) if code is not None else "no GOAWAY"
    seen = (f"{name}, {'closed' if closed else f'still open after {bound} s'}"
            f" {time.monotonic() - start:.1f} s after the attack stopped, {conn.sent // 1024} KiB sent;"
            f" got {conn.frames.summary()}")
    if not closed:
        return False, seen
    if code is None:
        return goaway_optional, seen
    return ERRORS.get(code) in expected, seen


# --- The server: its memory and a well-behaved client -----------------------------------------------------------------

def rss_kib(pids):
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except (OSError, ValueError):
            pass
    return total


class Watch:
    """Samples the server's RSS every 20 ms. `start(name)` begins an attack's window; `peak()` is its highest reading;
    `over` turns true (and the attack stops) once a reading passes the bound."""

    def __init__(self, pids):
        self.pids = pids
        self.baseline = rss_kib(pids())
        self.bound = self.baseline + RSS_BOUND_MB * 1024
        self.highest = self.baseline
        self.over = threading.Event()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.done.wait(0.02):
            now = rss_kib(self.pids())
            self.highest = max(self.highest, now)
            if now > self.bound:
                self.over.set()

    def start(self):
        self.highest = rss_kib(self.pids())
        self.over.clear()

    def verdict(self):
        ok = not self.over.is_set() and self.highest <= self.bound
        return ok, (f"peak RSS {self.highest // 1024} MB, baseline {self.baseline // 1024} MB, "
                    f"bound {self.bound // 1024} MB")

    def stop(self):
        self.done.set()
        self.thread.join()


def good_request(port, path, tls=False, bound=ANSWER_BOUND):
    """One GET on a fresh connection with python3-h2, a client that does everything right; its status, or a string
    saying what went wrong."""
    deadline = time.monotonic() + bound
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=bound)
        if tls:
            sock = bench_server_process.alpn_h2(sock)
        with sock:
            conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True))
            conn.initiate_connection()
            stream = conn.get_next_available_stream_id()
            conn.send_headers(stream, request_headers(path), end_stream=True)
            sock.sendall(conn.data_to_send())
            status = None
            while time.monotonic() < deadline:
                sock.settimeout(max(0.01, deadline - time.monotonic()))
                data = sock.recv(65536)
                if not data:
                    return "closed before the answer"
                for event in conn.receive_data(data):
                    if isinstance(event, h2.events.ResponseReceived):
                        status = int(dict(event.headers)[b":status"])
                    elif isinstance(event, h2.events.DataReceived):
                        conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                    elif isinstance(event, h2.events.StreamEnded) and event.stream_id == stream:
                        return status
                    elif isinstance(event, (h2.events.StreamReset, h2.events.ConnectionTerminated)):
                        return f"reset: {event}"
                sock.sendall(conn.data_to_send())
            return f"no answer within {bound} s"
    except (OSError, ssl.SSLError) as e:
        return f"{type(e).__name__}: {e}"
    except h2.exceptions.ProtocolError as e:
        return f"h2: {e}"


class Bystander:
    """A well-behaved client asking GET /health, one request after another, each on a fresh connection, while an
    attack runs: every one must be answered 200 within ANSWER_BOUND."""

    def __init__(self, port, tls=False):
        self.port, self.tls = port, tls
        self.answers, self.failures = 0, []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while True:  # at least one request, however short the attack
            status = good_request(self.port, "/health", self.tls)
            if status == 200:
                self.answers += 1
            else:
                self.failures.append(status)
            if self.done.wait(0.05):
                return

    def stop(self):
        self.done.set()
        self.thread.join()
        ok = self.answers > 0 and not self.failures
        return ok, f"{self.answers} answered 200" + (f", failed: {self.failures[:3]}" if self.failures else "")


# --- The attacks: each returns its connection and the verdict on how it ended -----------------------------------------

def rapid_reset(target, stop):
    """HEADERS then RST_STREAM(CANCEL), 20,000 times, 100 pairs a write, on requests that make the server wait."""
    conn = Attacker(target.port)
    conn.flood((b"".join(headers_frame(s, target.work_path) + frame(RST_STREAM, 0, s, struct.pack(">I", 8))
                         for s in range(first, first + 200, 2)) for first in range(1, 40000, 200)), stop)
    return conn, goaway({"ENHANCE_YOUR_CALM"})


def hpack_reference_bomb(target, stop):
    """A 4,000-byte header put in the dynamic table (incremental indexing, index 62), then blocks of 16,000 one-byte
    references to it: each decodes to 64 MB. New stream after new stream, until the server ends the connection."""
    conn = Attacker(target.port)
    literal = b"\x40" + _string(b"x-bomb1") + _string(b"a" * 4000)  # incremental indexing, new name
    conn.send(frame(HEADERS, END_STREAM | END_HEADERS, 1, request_block(target.work_path) + literal))
    bomb = request_block(target.work_path) + b"\xbe" * 16000  # 0x80 | 62: the dynamic table's newest entry
    conn.flood((header_block(stream, bomb) for stream in range(3, 103, 2)), stop)
    return conn, goaway({"ENHANCE_YOUR_CALM", "COMPRESSION_ERROR"})


def hpack_many_headers(target, stop):
    """Blocks of 4,000 distinct small literal headers (each "x-h-N: v", never indexed), stream after stream."""
    conn = Attacker(target.port)
    block = request_block(target.work_path) + b"".join(_literal(f"x-h-{i}".encode(), b"v") for i in range(4000))
    conn.flood((header_block(stream, block) for stream in range(1, 101, 2)), stop)
    return conn, goaway({"ENHANCE_YOUR_CALM", "COMPRESSION_ERROR"})


def hpack_table_size(target, stop):
    """A dynamic table size update to 1 GB, far beyond the SETTINGS_HEADER_TABLE_SIZE the server announced."""
    conn = Attacker(target.port)
    update = b"\x3f" + _hpack_int((1 << 30) - 31)  # 001xxxxx: dynamic table size update
    conn.send(frame(HEADERS, END_STREAM | END_HEADERS, 1, update + request_block("/health")))
    return conn, goaway({"COMPRESSION_ERROR"})


def continuation_flood(target, stop):
    """HEADERS without END_HEADERS, then CONTINUATION frames of 16 literal headers of 1,000 bytes each, 20,000 of
    them (320 MB of headers), never END_HEADERS."""
    conn = Attacker(target.port)
    conn.send(frame(HEADERS, END_STREAM, 1, request_block(target.work_path)))
    piece = b"".join(_literal(f"x-c-{i}".encode(), b"c" * 1000) for i in range(16))
    conn.flood([frame(CONTINUATION, 0, 1, piece) * 100] * 200, stop)
    return conn, goaway({"ENHANCE_YOUR_CALM", "COMPRESSION_ERROR"})


def continuation_flood_empty(target, stop):
    """HEADERS without END_HEADERS, then 200,000 empty CONTINUATION frames: no header grows, only the frame count."""
    conn = Attacker(target.port)
    conn.send(frame(HEADERS, END_STREAM, 1, request_block(target.work_path)))
    conn.flood([frame(CONTINUATION, 0, 1) * 1000] * 200, stop)
    return conn, goaway({"ENHANCE_YOUR_CALM", "PROTOCOL_ERROR"})


def settings_flood(target, stop):
    """200,000 SETTINGS frames (each with one setting, each to be acknowledged), acknowledgements never read."""
    conn = Attacker(target.port)
    conn.flood([settings((SETTINGS_HEADER_TABLE_SIZE, 4096)) * 1000] * 200, stop, read=False)
    return conn, goaway({"ENHANCE_YOUR_CALM"})


def ping_flood(target, stop):
    """200,000 PING frames, their acknowledgements never read."""
    conn = Attacker(target.port)
    conn.flood([frame(PING, 0, 0, b"12345678") * 1000] * 200, stop, read=False)
    return conn, goaway({"ENHANCE_YOUR_CALM"})


def bad_magic_cleartext(target, stop):
    """A preface whose magic departs from RFC 9113's after "PRI * HTTP/2.0": a broken h2c client, not HTTP/1.1."""
    conn = Attacker(target.port, preface=False)
    conn.send(b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n" + settings())
    return conn, goaway({"PROTOCOL_ERROR"}, optional=True)


def http1_over_h2_alpn(target, stop):
    """TLS with h2 chosen by ALPN, then an HTTP/1.1 request instead of the connection preface."""
    conn = Attacker(target.tls_port, tls=True, preface=False)
    conn.send(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    return conn, goaway({"PROTOCOL_ERROR"}, optional=True)


def ping_before_settings(target, stop):
    """The right magic, then a PING where the client's SETTINGS frame must come first."""
    conn = Attacker(target.port, preface=False)
    conn.send(PREFACE + frame(PING, 0, 0, b"12345678"))
    return conn, goaway({"PROTOCOL_ERROR"})


def stream_reused(target, stop):
    """GET /health on stream 1, read to its end, then HEADERS on stream 1 again."""
    conn = Attacker(target.port)
    conn.send(headers_frame(1, "/health"))
    conn.read_until_closed(ANSWER_BOUND, until=lambda f: any(
        k in (DATA, HEADERS) and fl & END_STREAM and s == 1 for k, fl, s, _ in f.seen))
    conn.send(headers_frame(1, "/health"))
    return conn, goaway({"PROTOCOL_ERROR", "STREAM_CLOSED"})


def stream_id_lower(target, stop):
    """HEADERS on stream 5, then on stream 3, whose id the client gave up by opening 5 (RFC 9113 section 5.1.1), then a
    GET /health on stream 7. nghttp2 ignores a HEADERS on a stream it cannot tell was ever used rather than guess
    (its session_on_request_headers_received), which keeps the session sound; so the server passes with GOAWAY
    PROTOCOL_ERROR or STREAM_CLOSED, or by never answering stream 3 while it answers stream 7."""
    conn = Attacker(target.port)
    conn.send(headers_frame(5, target.work_path) + headers_frame(3, "/health") + headers_frame(7, "/health"))
    expected = {"PROTOCOL_ERROR", "STREAM_CLOSED"}

    def verdict(conn):
        def answered(stream):
            return any(k in (DATA, HEADERS) and fl & END_STREAM and s == stream for k, fl, s, _ in conn.frames.seen)
        conn.read_until_closed(CLOSE_BOUND, until=lambda f: f.goaway() is not None or answered(7))
        code = conn.frames.goaway()
        stream3 = any(s == 3 and k == HEADERS for k, _, s, _ in conn.frames.seen)
        seen = (f"{ERRORS.get(code, code) if code is not None else 'no GOAWAY'}, stream 3 "
                f"{'answered' if stream3 else 'not answered'}, stream 7 {'answered' if answered(7) else 'not answered'}"
                f"; got {conn.frames.summary()}")
        if code is not None:
            return ERRORS.get(code) in expected, seen
        return not stream3 and answered(7), seen

    verdict.want = "PROTOCOL_ERROR/STREAM_CLOSED, or stream 3 ignored"
    return conn, verdict


def header_block(stream, block, size=16384):
    """`block` as a HEADERS frame and CONTINUATION frames of at most `size` bytes (the default
    SETTINGS_MAX_FRAME_SIZE)."""
    pieces = [block[i:i + size] for i in range(0, len(block), size)] or [b""]
    out = frame(HEADERS, END_STREAM | (END_HEADERS if len(pieces) == 1 else 0), stream, pieces[0])
    for i, piece in enumerate(pieces[1:], 2):
        out += frame(CONTINUATION, END_HEADERS if i == len(pieces) else 0, stream, piece)
    return out


def _hpack_int(n):
    """HPACK's integer continuation bytes for `n` beyond a full prefix."""
    out = b""
    while n >= 128:
        out += bytes([n % 128 + 128])
        n //= 128
    return out + bytes([n])


def _string(s):
    """An HPACK string literal without Huffman coding."""
    return (bytes([len(s)]) if len(s) < 127 else b"\x7f" + _hpack_int(len(s) - 127)) + s


def _literal(name, value):
    """A literal header field never indexed, new name (RFC 7541 section 6.2.3)."""
    return b"\x10" + _string(name) + _string(value)


ATTACKS = (
    ("rapid reset (HEADERS then RST_STREAM)", rapid_reset),
    ("HPACK bomb: 16,000 references to a 4 KB table entry", hpack_reference_bomb),
    ("HPACK bomb: 4,000 distinct headers a block", hpack_many_headers),
    ("HPACK dynamic table size update to 1 GB", hpack_table_size),
    ("CONTINUATION flood (literal headers)", continuation_flood),
    ("CONTINUATION flood (empty frames)", continuation_flood_empty),
    ("SETTINGS flood, acknowledgements unread", settings_flood),
    ("PING flood, acknowledgements unread", ping_flood),
    ("invalid preface: a broken magic in cleartext", bad_magic_cleartext),
    ("invalid preface: HTTP/1.1 over TLS after ALPN chose h2", http1_over_h2_alpn),
    ("invalid preface: PING before SETTINGS", ping_before_settings),
    ("stream id reused after its answer", stream_reused),
    ("stream id lower than one already opened", stream_id_lower),
)


def zero_window_held(check, target):
    """SETTINGS_INITIAL_WINDOW_SIZE 0 and a request for a long /stream; never a WINDOW_UPDATE. The server must not
    keep it forever: the connection is closed, or the stream reset, within ZERO_WINDOW_BOUND."""
    start = time.monotonic()
    try:
        conn = Attacker(target.port, preface=False)
        conn.send(PREFACE + settings((SETTINGS_INITIAL_WINDOW_SIZE, 0)))
        conn.send(headers_frame(1, target.stall_path))
        ended = conn.read_until_closed(ZERO_WINDOW_BOUND, until=lambda f: any(
            k == RST_STREAM and s == 1 for k, _, s, _ in f.seen))
        code = conn.frames.goaway()
        how = ("closed" if conn.closed else "stream reset" if ended else "still open") + \
              (f" with GOAWAY {ERRORS.get(code, code)}" if code is not None else "")
        check("zero window held open: ended by a deadline", ended,
              f"{how} after {time.monotonic() - start:.1f} s, {conn.frames.count(DATA)} DATA frames")
        conn.close()
    except (OSError, ssl.SSLError) as e:
        check("zero window held open: ended by a deadline", False, f"{type(e).__name__}: {e}")


def run_attacks(check, target):
    watch = Watch(target.pids)
    zero = threading.Thread(target=zero_window_held, args=(check, target))
    zero.start()  # its deadline runs while the other attacks do
    try:
        for name, attack in ATTACKS:
            watch.start()
            bystander = Bystander(target.port)
            try:
                conn, verdict = attack(target, watch.over)
                ok, seen = verdict(conn)
                conn.close()
                check(f"{name}: GOAWAY {verdict.want}", ok, seen)
            except (OSError, ssl.SSLError) as e:
                check(f"{name}: GOAWAY", False, f"{type(e).__name__}: {e}")
            check(f"{name}: memory bounded", *watch.verdict())
            check(f"{name}: a well-behaved client is answered during the attack", *bystander.stop())
            after = good_request(target.port, "/health")
            check(f"{name}: and after it", after == 200, f"status {after}")
            if target.stopped():
                check("server still running", False, f"it exited with {target.stopped()}")
                return
        zero.join()
    finally:
        watch.stop()
        zero.join()
    alive = not target.stopped()
    check("server still running after every attack", alive, "yes" if alive else f"exit {target.stopped()}")
    if alive and target.health_json is not None:
        check("no request left in flight once every attacker is gone", *nothing_in_flight(target))


def nothing_in_flight(target):
    """/health's inFlight comes back to 1 (the /health itself) within CLOSE_BOUND: no stream of a closed connection
    (the zero window's /stream, a cancelled /io) is still counted, or waited for by a drain."""
    deadline = time.monotonic() + CLOSE_BOUND
    seen = None
    while time.monotonic() < deadline:
        seen = target.health_json().get("inFlight")
        if seen == 1:
            return True, "inFlight 1"
        time.sleep(0.1)
    return False, f"inFlight {seen} after {CLOSE_BOUND} s"


# --- Targets: bench-server under a model, or nginx --------------------------------------------------------------------

class Target:
    def __init__(self, port, tls_port, pids, stopped, work_path, stall_path, health_json=None):
        self.port, self.tls_port, self.pids, self.stopped = port, tls_port, pids, stopped
        self.work_path, self.stall_path = work_path, stall_path
        self.health_json = health_json  # bench-server's /health as a dict (nginx has none)


def h2_health(port, tls=False):
    return good_request(port, "/health", tls, bound=2) == 200


def http1_health(port, tls=False):
    """GET /health over HTTP/1.1: the server is up, whether or not its HTTP/2 works (the attacks say if not)."""
    try:
        if tls:
            conn = http.client.HTTPSConnection("127.0.0.1", port, timeout=2,
                                               context=ssl._create_unverified_context())
        else:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        conn.request("GET", "/health")
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except (OSError, http.client.HTTPException):
        return False


def bench_server_target(args, scratch, servers):
    options = ("--header-timeout", str(HEADER_TIMEOUT), "--idle-timeout", str(IDLE_TIMEOUT), "--write-timeout",
               str(WRITE_TIMEOUT))
    log = open(os.path.join(scratch, "server.log"), "w")
    plain, port = bench_server_process.start_server(args.bench_server, args.model, log, options, " port=",
                                                    http1_health)
    servers.append(plain)
    tls, tls_port = bench_server_process.start_server(args.bench_server, args.model, log, ("--tls", *options),
                                                      " tls=", lambda p: http1_health(p, tls=True))
    servers.append(tls)
    def health_json():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        try:
            conn.request("GET", "/health")
            return json.loads(conn.getresponse().read())
        except (OSError, http.client.HTTPException, ValueError):
            return {}
        finally:
            conn.close()

    return Target(port, tls_port, lambda: [plain.pid], lambda: plain.poll(),
                  "/io?delayInMillis=500", "/stream?count=100000&intervalMillis=1", health_json)


def tree_pids(root):
    """`root` and its descendants, from /proc."""
    children = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry.name))
            except (OSError, ValueError, IndexError):
                pass
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def nginx_target(scratch, servers):
    def start(mode):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        log = open(os.path.join(scratch, f"nginx-{mode}.log"), "w")
        p = subprocess.Popen(["sh", str(ROOT / "peers/nginx/run"), str(port), "1", "4096", mode], stderr=log,
                             preexec_fn=bench_server_process.die_with_parent)
        servers.append(p)
        deadline = time.monotonic() + 10
        while not h2_health(port, tls=mode == "h2"):
            if time.monotonic() > deadline:
                raise RuntimeError(f"nginx {mode} did not answer on port {port}")
            time.sleep(0.1)
        return p, port

    plain, port = start("h2c")
    _, tls_port = start("h2")
    return Target(port, tls_port, lambda: tree_pids(plain.pid), lambda: plain.poll(), "/epoch-millis", "/epoch-millis")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bench_server", nargs="?")
    parser.add_argument("--model")
    parser.add_argument("--nginx", action="store_true", help="attack nginx with http2 on instead")
    args = parser.parse_args()
    if not args.nginx and not (args.bench_server and args.model):
        parser.error("BENCH_SERVER --model MODEL, or --nginx")

    if h2 is None:
        if os.environ.get("EXECBENCH_REQUIRE_CLIENTS") == "1":
            print("FAIL EXECBENCH_REQUIRE_CLIENTS=1 but python3-h2 is missing\n0 passed, 1 failed")
            return 1
        print("h2_hostile: skipped: missing python3-h2 (.ci/setup installs it)")
        return 77

    start = time.monotonic()
    label = "nginx" if args.nginx else args.model
    check = Check(label)
    servers = []
    with tempfile.TemporaryDirectory(prefix="execbench-h2-hostile-") as scratch:
        try:
            try:
                target = nginx_target(scratch, servers) if args.nginx else bench_server_target(args, scratch, servers)
            except (RuntimeError, OSError) as e:
                logs = "".join(p.read_text()[-2000:] for p in Path(scratch).glob("*.log"))
                print(f"FAIL {label} start: {e}\n{logs}\n0 passed, 1 failed")
                return 1
            print(f"{label}: h2c on port {target.port}, h2 over TLS on {target.tls_port}", flush=True)
            run_attacks(check, target)
        finally:
            for p in servers:
                bench_server_process.stop_server(p)
    return check.finish(f"h2 hostile checks of {label}", start)


if __name__ == "__main__":
    sys.exit(main())
