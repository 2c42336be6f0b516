#!/usr/bin/env python3
"""ctest `tls_server_<model>`: bench-server --tls under one model, against clients nobody here wrote and bad input.

Usage: tls_server_test.py BENCH_SERVER --model MODEL

Interop: curl -k (GET, a POST body, /stream, two URLs on one kept-alive connection), wrk over https (a short run,
no errors), h2load --h1 over https (no errors) and openssl s_client (a raw GET with TLS 1.2 and with TLS 1.3 forced,
and a resumed session of each: -sess_out, then -sess_in saying "Reused"; and TLS 1.2 without tickets, resumed by
session ID from the server's cache). Then what TLS must not change: 40 pipelined requests in one record (the
server's read takes exactly 32 of them, so the rest wait decrypted inside OpenSSL, not in the socket), a kept-alive
connection waiting on the idle clock, and SIGTERM draining a request in flight.

Bad input, all at once so the deadlines run together: plain HTTP sent to the TLS port (a GET and a DELETE, each
answered 400 with a JSON body saying to use https://, as curl http:// is too), a ClientHello never sent, half a
ClientHello, a garbled ClientHello, a handshake then a record that fails its check, a handshake then a truncated record, and a
client that leaves mid-handshake. Each must be closed (the stalls by the header deadline, a short one here), and
after them a good client is still served by a server that has not crashed, and /metrics and /health count the
handshakes: completed (full, resumed) and failed (plain_http, tls_error, abandoned).

Prints one PASS/FAIL line per check and `N passed, M failed` last; exits 0 when all passed, 1 otherwise, and 77
(skipped) when a client is missing, unless EXECBENCH_REQUIRE_CLIENTS=1 (.ci/test; .ci/setup installs them).
"""
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import bench_server_process  # noqa: E402
from bench_server_process import Check, missing_clients, model_arguments, run_client as run  # noqa: E402

CLIENTS = {"curl": "curl", "wrk": "wrk", "h2load": "nghttp2-client", "openssl": "openssl"}
MOVIES_JSON = Path(__file__).resolve().parents[2] / "scenarios" / "data" / "movies.json"

HEADER_TIMEOUT = 1  # seconds: --header-timeout, which also bounds a TLS handshake
IDLE_TIMEOUT = 30  # seconds: --idle-timeout, far beyond CLOSE_BOUND, so a stall closed in time was the header clock
CLOSE_BOUND = 8  # seconds a connection the server must close may stay open (generous: no timing claim)
FAST = "/epoch-millis?delayInMillis=0"




def client_context():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def tls_connect(port):
    raw = socket.create_connection(("127.0.0.1", port), timeout=CLOSE_BOUND)
    return client_context().wrap_socket(raw)


def read_until_closed(sock, bound=CLOSE_BOUND):
    """What `sock` receives until the peer closes; raises TimeoutError when it is still open after `bound` s."""
    sock.settimeout(bound)
    got = b""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except (ssl.SSLError, ConnectionResetError, BrokenPipeError):
            return got  # closed without close_notify, or reset: closed either way
        if not chunk:
            return got
        got += chunk
    raise TimeoutError(f"still open after {bound} s")


def https_get(port, target="/health"):
    """One GET over a fresh TLS connection with Python's own client; (status, body)."""
    with tls_connect(port) as s:
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        answer = read_until_closed(s)
    head, _, body = answer.partition(b"\r\n\r\n")
    m = re.match(rb"HTTP/1\.1 (\d+)", head)
    return (int(m.group(1)) if m else None), body


def client_hello():
    """A real ClientHello, as the bytes a client would send first."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = client_context().wrap_bio(incoming, outgoing)
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


# --- Interop ----------------------------------------------------------------------------------------------------------

def curl_checks(check, base, scratch):
    """curl over HTTP/1.1 (--http1.1: the server offers h2 by ALPN too, which tests/http2 checks)."""
    code, out = run(["curl", "-sk", "--http1.1", "--max-time", "5", f"{base}/health"])
    try:
        health = json.loads(out)
        seen = f"tls={health.get('tls')} tlsKey={health.get('tlsKey')}"
        ok = code == 0 and health.get("tls") is True and health.get("tlsKey") == "p256"
    except ValueError:
        ok, seen = False, f"exit {code}: {out[:200]!r}"
    check("curl GET /health says tls and p256", ok, seen)

    body = Path(scratch, "movie.json")
    body.write_text(json.dumps(json.loads(MOVIES_JSON.read_text())[:1]))
    code, out = run(["curl", "-sk", "--http1.1", "--max-time", "5", "-o", "/dev/null", "-w", "%{http_code}", "-H",
                     "Content-Type: application/json", "--data-binary", f"@{body}",
                     f"{base}/movies?delayInMillis=0"])
    check("curl POST /movies", code == 0 and out.strip() == "201", f"exit {code}, status {out.strip()!r}")

    code, out = run(["curl", "-skv", "--http1.1", "--max-time", "5", f"{base}/health", f"{base}{FAST}"])
    statuses = re.findall(r"< HTTP/1\.1 (\d+)", out)
    reused = "Re-using existing connection" in out
    check("curl keep-alive: two URLs on one connection", code == 0 and statuses == ["200", "200"] and reused,
          f"exit {code}, statuses {statuses}, reused {reused}")

    code, out = run(["curl", "-sk", "--http1.1", "--max-time", "5", f"{base}/stream?count=3&intervalMillis=5"])
    events = out.count("data:")
    check("curl /stream", code == 0 and events == 3, f"exit {code}, {events} events")

    plain = base.replace("https://", "http://")
    code, out = run(["curl", "-s", "--max-time", "5", "-w", "\n%{http_code}", f"{plain}/health"])
    body, _, status = out.rpartition("\n")
    try:
        error = json.loads(body).get("error")
    except ValueError:
        error = None
    check("curl http:// to the TLS port: 400 and why", code == 0 and status == "400" and error == PLAIN_HTTP_ERROR,
          f"exit {code}, status {status!r}, error {error!r}")


def wrk_check(check, base):
    code, out = run(["wrk", "-t1", "-c4", "-d1s", "--timeout", "2s", f"{base}{FAST}"])
    m = re.search(r"(\d+) requests in", out)
    requests = int(m.group(1)) if m else 0
    errors = re.search(r"Socket errors|Non-2xx", out)
    check("wrk over https", code == 0 and requests > 0 and not errors,
          f"exit {code}, {requests} requests" + (f", {errors.group(0)}" if errors else ""))


def h2load_check(check, base):
    code, out = run(["h2load", "--h1", "-n", "200", "-c", "4", f"{base}{FAST}"])
    m = re.search(r"requests: (\d+) total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed, (\d+) errored", out)
    ok = code == 0 and m is not None and m.group(2) == "200" and m.group(3) == "0" and m.group(4) == "0"
    check("h2load --h1 over https", ok, m.group(0) if m else f"exit {code}: {out[-300:]!r}")


def s_client(port, version, *options):
    request = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    # -ign_eof: read the answer (and TLS 1.3's tickets) until the server closes, not until stdin ends.
    return run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}", version, "-ign_eof", *options], stdin=request)


def s_client_checks(check, port, scratch):
    for version, name in (("-tls1_2", "TLSv1.2"), ("-tls1_3", "TLSv1.3")):
        session = os.path.join(scratch, f"session{version}.pem")
        code, out = s_client(port, version, "-sess_out", session)
        answered = "HTTP/1.1 200 OK" in out
        protocol = re.search(r"New, (TLSv1\.[23])", out)
        check(f"openssl s_client {name} GET", code == 0 and answered and protocol and protocol.group(1) == name,
              f"exit {code}, answered {answered}, {protocol.group(0) if protocol else 'no New, line'}")
        resumed_check(check, port, f"{name} resumed session (ticket)", version, "-sess_in", session)
    # Without tickets a TLS 1.2 client resumes by session ID, which only the server's session cache can answer.
    session = os.path.join(scratch, "session-id.pem")
    s_client(port, "-tls1_2", "-no_ticket", "-sess_out", session)
    resumed_check(check, port, "TLSv1.2 resumed session (session ID, no ticket)", "-tls1_2", "-no_ticket", "-sess_in",
                  session)


def resumed_check(check, port, name, version, *options):
    code, out = s_client(port, version, *options)
    reused = re.search(r"Reused, (TLSv1\.[23])", out)
    check(f"openssl s_client {name}", code == 0 and reused is not None and "HTTP/1.1 200 OK" in out,
          reused.group(0) if reused else f"exit {code}, not reused")


# --- What TLS must not change -----------------------------------------------------------------------------------------

def padded_request(size, close=False):
    """A GET of exactly `size` bytes."""
    head = f"GET {FAST} HTTP/1.1\r\nHost: 127.0.0.1\r\n" + ("Connection: close\r\n" if close else "") + "X-Pad: "
    return (head + "p" * (size - len(head) - 4) + "\r\n\r\n").encode()


def pipelining_check(check, port):
    """40 requests of 128 bytes in one write: one TLS record of 5 KiB. A server read takes 4 KiB of it, exactly 32
    requests, so the other 8 wait decrypted inside OpenSSL while the socket has nothing more to say."""
    count, size = 40, 128
    try:
        with tls_connect(port) as s:
            s.sendall(padded_request(size) * (count - 1) + padded_request(size, close=True))
            answers = len(re.findall(rb"HTTP/1\.1 200 OK", read_until_closed(s)))
        seen = f"{answers} of {count} answered"
    except (OSError, TimeoutError) as e:
        answers, seen = 0, f"{type(e).__name__}: {e}"
    check(f"{count} pipelined requests in one record", answers == count, seen)


def kept_alive_check(check, port):
    """A connection idle past the header timeout after its first answer is still open: once the handshake is done,
    the wait for the next request runs on the idle clock (30 s here), not on the header clock that bounds a handshake."""
    try:
        with tls_connect(port) as s:
            request = f"GET {FAST} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
            s.sendall(request)
            first = s.recv(65536)
            time.sleep(HEADER_TIMEOUT * 2.5)
            s.sendall(request.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
            second = read_until_closed(s)
        ok = first.startswith(b"HTTP/1.1 200 OK") and second.startswith(b"HTTP/1.1 200 OK")
        seen = f"first {first[:15]!r}, second after {HEADER_TIMEOUT * 2.5} s idle {second[:15]!r}"
    except (OSError, TimeoutError) as e:
        ok, seen = False, f"{type(e).__name__}: {e}"
    check("a kept-alive TLS connection waits on the idle clock, past the header timeout", ok, seen)


# --- Bad input --------------------------------------------------------------------------------------------------------

PLAIN_HTTP_ERROR = "plain HTTP request sent to the TLS port; use https://"


def answered_plain_http(got):
    """True when `got` is the server's cleartext 400 for plain HTTP on the TLS port, its JSON naming the problem."""
    head, _, body = got.partition(b"\r\n\r\n")
    try:
        return head.startswith(b"HTTP/1.1 400 ") and json.loads(body).get("error") == PLAIN_HTTP_ERROR
    except ValueError:
        return False


def plain_http(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=CLOSE_BOUND)
    s.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    return s, answered_plain_http


def plain_http_other_method(port):
    """A method OpenSSL does not name (it sees a record version no TLS record has): answered all the same."""
    s = socket.create_connection(("127.0.0.1", port), timeout=CLOSE_BOUND)
    s.sendall(b"DELETE /movies/1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    return s, answered_plain_http


def garbled_client_hello(port):
    """A TLS record whose handshake message is no ClientHello: a failed handshake, closed unanswered."""
    s = socket.create_connection(("127.0.0.1", port), timeout=CLOSE_BOUND)
    s.sendall(b"\x16\x03\x01\x00\x04\x63\x00\x00\x00")
    return s, lambda got: b"HTTP/1.1" not in got


def no_client_hello(port):
    return socket.create_connection(("127.0.0.1", port), timeout=CLOSE_BOUND), None


def half_client_hello(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=CLOSE_BOUND)
    hello = client_hello()
    s.sendall(hello[: len(hello) // 2])
    return s, None


def handshaken(port):
    """A socket whose TLS handshake is done by hand, so what follows is raw bytes on the wire."""
    s = socket.create_connection(("127.0.0.1", port), timeout=CLOSE_BOUND)
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = client_context().wrap_bio(incoming, outgoing)
    while True:
        try:
            obj.do_handshake()
            break
        except ssl.SSLWantReadError:
            s.sendall(outgoing.read())
            incoming.write(s.recv(65536))
    s.sendall(outgoing.read())
    return s


def bad_record(port):
    s = handshaken(port)
    s.sendall(b"\x17\x03\x03\x00\x20" + os.urandom(32))  # application data that fails its integrity check
    return s, lambda got: b"HTTP/1.1" not in got


def truncated_record(port):
    s = handshaken(port)
    s.sendall(b"\x17\x03\x03\x01\x00" + os.urandom(20))  # says 256 bytes follow; 20 do
    return s, lambda got: b"HTTP/1.1" not in got


HOSTILE = (
    ("plain HTTP on the TLS port: 400 and why", plain_http),
    ("plain HTTP DELETE on the TLS port: 400 and why", plain_http_other_method),
    ("a garbled ClientHello", garbled_client_hello),
    ("no ClientHello (stalled handshake)", no_client_hello),
    ("half a ClientHello (stalled handshake)", half_client_hello),
    ("a record that fails its check after the handshake", bad_record),
    ("a truncated record after the handshake", truncated_record),
)


def left_mid_handshake(port):
    """Sends a ClientHello and leaves with a reset before the server's answer is read."""
    s = socket.create_connection(("127.0.0.1", port), timeout=CLOSE_BOUND)
    s.sendall(client_hello())
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    s.close()


def hostile_checks(check, port):
    """Opens every hostile connection at once, then waits for each to be closed, so their deadlines run together."""
    opened = []
    for name, make in HOSTILE:
        try:
            opened.append((name, *make(port)))
        except OSError as e:
            check(name, False, f"could not set it up: {type(e).__name__}: {e}")
    for _ in range(3):
        left_mid_handshake(port)
    start = time.monotonic()
    results = {}

    def wait_closed(name, sock, judge):
        try:
            got = read_until_closed(sock)
            ok = judge is None or judge(got)
            results[name] = (ok, f"closed after {time.monotonic() - start:.1f} s, {len(got)} bytes back")
        except (OSError, TimeoutError) as e:
            results[name] = (False, f"{type(e).__name__}: {e}")
        finally:
            sock.close()

    threads = [threading.Thread(target=wait_closed, args=item) for item in opened]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for name, _, _ in opened:
        check(f"{name}: closed", *results[name])
    status, _ = https_get(port)
    check("a good client is served after the bad input", status == 200, f"status {status}")


# --- The server -------------------------------------------------------------------------------------------------------

def handshake_counters_check(check, port):
    """After the bad input: /metrics counts the handshakes completed and failed by reason, and /health says the same."""
    status, body = https_get(port, "/metrics")
    text = body.decode("utf-8", "replace")
    counts = {m.group(1): int(m.group(2))
              for m in re.finditer(r'^execbench_tls_handshakes(?:_failed)?_total\{\w+="(\w+)"\} (\d+)$', text, re.M)}
    # curl http://, the raw GET and the DELETE; the garbled ClientHello; the stalls and the clients that left.
    ok = (status == 200 and counts.get("plain_http", 0) >= 3 and counts.get("tls_error", 0) >= 1
          and counts.get("abandoned", 0) >= 2 and counts.get("full", 0) >= 1 and counts.get("resumed", 0) >= 1)
    check("/metrics counts handshakes full, resumed and failed by reason", ok, f"status {status}, {counts}")
    status, body = https_get(port, "/health")
    try:
        seen = json.loads(body).get("tlsHandshakes")
    except ValueError:
        seen = None
    ok = (status == 200 and isinstance(seen, dict) and seen.get("full", 0) >= counts.get("full", 0)
          and seen.get("failed", {}).get("plain_http") == counts.get("plain_http"))
    check("/health reports the handshakes", ok, f"status {status}, {seen}")


def health_over_tls(port):
    try:
        return https_get(port)[0] == 200
    except (OSError, TimeoutError):
        return False


def start_server(bench_server, model, log):
    """bench-server --tls on a free port; (process, port) once /health answers over TLS, or raises RuntimeError."""
    return bench_server_process.start_server(
        bench_server, model, log,
        ("--tls", "--header-timeout", str(HEADER_TIMEOUT), "--idle-timeout", str(IDLE_TIMEOUT)), " tls=p256",
        health_over_tls)


def drain_check(check, server, port):
    """SIGTERM while a request waits 500 ms: it is answered over TLS, and the server exits 0."""
    answer = {}

    def slow_request():
        try:
            answer["status"] = https_get(port, "/io?delayInMillis=500")[0]
        except (OSError, TimeoutError) as e:
            answer["status"] = f"{type(e).__name__}: {e}"

    t = threading.Thread(target=slow_request)
    t.start()
    time.sleep(0.2)
    server.terminate()
    t.join()
    try:
        code = server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        code = f"killed: not stopped {10} s after SIGTERM"
    check("SIGTERM drains a TLS request in flight", answer.get("status") == 200 and code == 0,
          f"answer {answer.get('status')}, exit {code}")


def main():
    args = model_arguments(__doc__.splitlines()[0])

    if (code := missing_clients(CLIENTS, "tls_server")) is not None:
        return code

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    start = time.monotonic()
    check = Check(args.model)
    with tempfile.TemporaryDirectory(prefix="execbench-tls-server-") as scratch:
        log_path = os.path.join(scratch, "server.log")
        with open(log_path, "w") as log:
            try:
                server, port = start_server(args.bench_server, args.model, log)
            except (RuntimeError, OSError) as e:
                print(f"FAIL {args.model} bench-server --tls start: {e}\n{Path(log_path).read_text()[-2000:]}")
                print("0 passed, 1 failed")
                return 1
            print(f"bench-server --model={args.model} --tls on port {port} (pid {server.pid})", flush=True)
            base = f"https://127.0.0.1:{port}"
            try:
                hostile = threading.Thread(target=hostile_checks, args=(check, port))
                hostile.start()  # its deadlines run while the clients below do
                curl_checks(check, base, scratch)
                wrk_check(check, base)
                h2load_check(check, base)
                s_client_checks(check, port, scratch)
                pipelining_check(check, port)
                kept_alive_check(check, port)
                hostile.join()
                handshake_counters_check(check, port)
                alive = server.poll() is None
                check("bench-server still running", alive, "yes" if alive else f"exit {server.poll()}")
                if alive:
                    drain_check(check, server, port)
            finally:
                if server.poll() is None:
                    server.kill()
                    server.wait()
    return check.finish(f"tls server checks of {args.model}", start)


if __name__ == "__main__":
    sys.exit(main())
