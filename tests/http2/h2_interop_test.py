#!/usr/bin/env python3
"""ctest `h2_interop_<model>`: bench-server's HTTP/2 under one model, against clients nobody here wrote.

Usage: h2_interop_test.py BENCH_SERVER --model MODEL

Three servers of the model: one in cleartext (h2c by prior knowledge beside HTTP/1.1 on the same port), one with
--tls (h2 chosen by ALPN), one with --tls --no-http2.
- curl --http2-prior-knowledge (h2c) and curl -k --http2 (h2 over TLS) on every endpoint: GET /epoch-millis, /io
  with a delay, /cpu, /cpu-offloaded, /movies, /health, /metrics, /stream (every event of it), POST /movies with a
  body; `%{http_version}` must be 2 and the status and body right;
- h2load at -m 1, -m 10 and -m 100 streams per connection, over h2c and over TLS: every request done, 2xx, no
  error, and h2 the protocol it says it spoke;
- the cleartext port still speaks HTTP/1.1 (curl without --http2), and ignores an `Upgrade: h2c` it does not
  implement (curl --http2 on http:// gets its answer);
- with --no-http2, curl --http2 over TLS falls back to HTTP/1.1.

Prints one PASS/FAIL line per check and `N passed, M failed` last; exits 0 when all passed, 1 otherwise, and 77
(skipped) when a client is missing, unless EXECBENCH_REQUIRE_CLIENTS=1 (.ci/test; .ci/setup installs them).
"""
import json
import os
import re
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import bench_server_process  # noqa: E402
from bench_server_process import Check, missing_clients, model_arguments, run_client as run  # noqa: E402

CLIENTS = {"curl": "curl", "h2load": "nghttp2-client"}
MOVIES_JSON = Path(__file__).resolve().parents[2] / "scenarios" / "data" / "movies.json"
STREAM_EVENTS = 5

# (method, target, status, what the body must be: json, sse or text)
ENDPOINTS = (
    ("GET", "/epoch-millis?delayInMillis=0", 200, "json"),
    ("GET", "/io?delayInMillis=20", 200, "json"),
    ("GET", "/cpu?iterations=1000", 200, "json"),
    ("GET", "/cpu-offloaded?iterations=1000", 200, "json"),
    ("GET", "/movies?directorLastName=Kubrick&delayInMillis=0", 200, "json"),
    ("POST", "/movies?delayInMillis=0", 201, "json"),
    ("GET", "/health", 200, "json"),
    ("GET", "/metrics", 200, "text"),
    ("GET", f"/stream?count={STREAM_EVENTS}&intervalMillis=5", 200, "sse"),
)
H2LOAD_URLS = ("/epoch-millis?delayInMillis=0", "/io?delayInMillis=5")




def body_ok(kind, body):
    if kind == "json":
        try:
            json.loads(body)
            return True
        except ValueError:
            return False
    if kind == "sse":
        return body.count("data:") == STREAM_EVENTS
    return len(body) > 0


def curl(flags, base, method, target, scratch, post_body):
    """One request with curl; (exit code, HTTP version, status, body)."""
    out = Path(scratch, "body")
    out.unlink(missing_ok=True)
    argv = ["curl", "-s", "--max-time", "10", *flags, "-o", str(out), "-w", "%{http_version} %{http_code}"]
    if method == "POST":
        argv += ["-H", "Content-Type: application/json", "--data-binary", f"@{post_body}"]
    code, written = run([*argv, f"{base}{target}"])
    version, _, status = written.strip().partition(" ")
    body = out.read_text(errors="replace") if out.exists() else ""
    return code, version, status, body


def curl_checks(check, name, flags, base, scratch, post_body):
    """Every endpoint over HTTP/2 with curl."""
    for method, target, status, kind in ENDPOINTS:
        code, version, got, body = curl(flags, base, method, target, scratch, post_body)
        events = f", {body.count('data:')} events" if kind == "sse" else ""
        ok = code == 0 and version == "2" and got == str(status) and body_ok(kind, body)
        check(f"curl {name} {method} {target}", ok,
              f"exit {code}, HTTP/{version or '?'} {got or '?'}, {len(body)} bytes{events}")


def h2load_checks(check, name, base):
    """h2load at 1, 10 and 100 streams per connection: all done, 2xx, no error, and over h2."""
    for streams in (1, 10, 100):
        requests = 200 * streams if streams < 100 else 4000
        code, out = run(["h2load", "-n", str(requests), "-c", "2", "-m", str(streams),
                         *(f"{base}{u}" for u in H2LOAD_URLS)])
        m = re.search(r"requests: (\d+) total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed, "
                      r"(\d+) errored, (\d+) timeout", out)
        statuses = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", out)
        protocol = re.search(r"Application protocol: (\S+)", out)
        ok = (code == 0 and m is not None and m.group(1) == m.group(2) == m.group(3) == str(requests)
              and m.group(4) == m.group(5) == m.group(6) == "0" and statuses is not None
              and statuses.group(1) == str(requests) and protocol is not None
              and protocol.group(1) == ("h2" if base.startswith("https:") else "h2c"))
        seen = (f"{m.group(0)}; {statuses.group(0) if statuses else 'no status line'}; "
                f"{protocol.group(0) if protocol else 'no protocol'}") if m else f"exit {code}: {out[-300:]!r}"
        check(f"h2load {name} -m {streams} ({requests} requests)", ok, seen)


def plain_port_checks(check, base, scratch, post_body):
    """The cleartext port answers HTTP/1.1 beside h2c, and an Upgrade: h2c it does not implement is ignored."""
    for name, flags in (("HTTP/1.1 on the h2c port", ["--http1.1"]), ("curl --http2 (Upgrade: h2c) on http://",
                                                                     ["--http2"])):
        code, version, status, body = curl(flags, base, "GET", "/epoch-millis?delayInMillis=0", scratch, post_body)
        want = ("1.1",) if flags == ["--http1.1"] else ("1.1", "2")
        check(name, code == 0 and version in want and status == "200" and body_ok("json", body),
              f"exit {code}, HTTP/{version or '?'} {status or '?'}")


def no_http2_check(check, base, scratch, post_body):
    code, version, status, _ = curl(["-k", "--http2"], base, "GET", "/health", scratch, post_body)
    check("--no-http2: curl --http2 over TLS falls back to HTTP/1.1",
          code == 0 and version == "1.1" and status == "200", f"exit {code}, HTTP/{version or '?'} {status or '?'}")


def health(port, tls):
    code, out = run(["curl", "-s", "-k", "--http1.1", "--max-time", "2", "-o", "/dev/null", "-w", "%{http_code}",
                     f"{'https' if tls else 'http'}://127.0.0.1:{port}/health"])
    return code == 0 and out.strip() == "200"


def main():
    args = model_arguments(__doc__.splitlines()[0])

    if (code := missing_clients(CLIENTS, "h2_interop")) is not None:
        return code

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    start = time.monotonic()
    check = Check(args.model)
    servers = []
    with tempfile.TemporaryDirectory(prefix="execbench-h2-interop-") as scratch:
        post_body = Path(scratch, "movie.json")
        post_body.write_text(json.dumps(json.loads(MOVIES_JSON.read_text())[:1]))
        log_path = os.path.join(scratch, "server.log")
        with open(log_path, "w") as log:
            try:
                def start_server(tls, *extra):
                    process, port = bench_server_process.start_server(
                        args.bench_server, args.model, log, (*(("--tls",) if tls else ()), *extra),
                        " tls=" if tls else " port=", lambda p: health(p, tls))
                    servers.append(process)
                    return port
                plain = start_server(False)
                tls = start_server(True)
                tls_no_http2 = start_server(True, "--no-http2")
            except (RuntimeError, OSError) as e:
                print(f"FAIL {args.model} bench-server start: {e}\n{Path(log_path).read_text()[-2000:]}")
                print("0 passed, 1 failed")
                for p in servers:
                    bench_server_process.stop_server(p)
                return 1
            print(f"bench-server --model={args.model}: h2c on {plain}, h2 over TLS on {tls}, "
                  f"--no-http2 over TLS on {tls_no_http2}", flush=True)
            try:
                for name, flags, base in (("h2c", ["--http2-prior-knowledge"], f"http://127.0.0.1:{plain}"),
                                          ("h2 over TLS", ["-k", "--http2"], f"https://127.0.0.1:{tls}")):
                    curl_checks(check, name, flags, base, scratch, post_body)
                    h2load_checks(check, name, base)
                plain_port_checks(check, f"http://127.0.0.1:{plain}", scratch, post_body)
                no_http2_check(check, f"https://127.0.0.1:{tls_no_http2}", scratch, post_body)
                for p in servers:
                    alive = p.poll() is None
                    check(f"bench-server (pid {p.pid}) still running", alive, "yes" if alive else f"exit {p.poll()}")
            finally:
                for p in servers:
                    bench_server_process.stop_server(p)
    return check.finish(f"h2 interop checks of {args.model}", start)


if __name__ == "__main__":
    sys.exit(main())
