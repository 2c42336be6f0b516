#!/usr/bin/env python3
"""ctest `client_sweep_<model>`: real HTTP clients, briefly, against every endpoint of one bench-server model.

Usage: client_sweep_test.py BENCH_SERVER --model MODEL

The other tests speak HTTP through our own raw client; this one asks the tools people point at a server:
ApacheBench (HTTP/1.0, with and without keep-alive), hey, siege, httperf, wrk and h2load (HTTP/1.1), ~100 requests
per endpoint each, and curl for the corners they do not reach: HTTP/1.0 (no chunked answer, /stream delimited by
the close), HEAD (the GET's head, no body), HTTP/1.0 keep-alive, `Expect: 100-continue`, a chunked request body
and `Connection: close`. Every client runs under a deadline, so a hang is a failure, not a stuck test.

Prints one PASS/FAIL line per check and `N passed, M failed` last; exits 0 when all passed, 1 otherwise, and 77
(skipped) when a client is missing, unless EXECBENCH_REQUIRE_CLIENTS=1 (.ci/test; .ci/setup installs them).
"""
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import bench_server_process  # noqa: E402
from bench_server_process import missing_clients, stop_server  # noqa: E402

# Each client and the Debian package that has it.
CLIENTS = {"ab": "apache2-utils", "hey": "hey", "siege": "siege", "httperf": "httperf", "wrk": "wrk",
           "h2load": "nghttp2-client", "curl": "curl"}
MOVIES_JSON = Path(__file__).resolve().parents[2] / "scenarios" / "data" / "movies.json"

REQUESTS = 100  # per load client and endpoint
CONCURRENCY = 4
RESPONSE_TIMEOUT = 2  # seconds a client waits for one answer; the slowest endpoint here takes ~20 ms
CLIENT_DEADLINE = 20  # seconds one client invocation may take before it is killed and counted as hung
SWEEP_BUDGET = 150  # seconds; the checks left then fail unrun, so the summary comes before ctest's TIMEOUT (180)
EXPECT_CONTINUE_BOUND = 0.5  # seconds; curl sends the body anyway after 1 s without `100 Continue`
STREAM_EVENTS = 3


@dataclass(frozen=True)
class Endpoint:
    target: str  # path and query
    method: str = "GET"
    status: int = 200
    body: str = "json"  # what the answer holds: json, sse (text/event-stream) or text
    # The same body length on every request: ApacheBench counts a different length as a failed request.
    fixed_length: bool = True

    def __str__(self):
        return f"{self.method} {self.target}"

    @property
    def streamed(self):
        """The answer's length is not known up front: chunked over HTTP/1.1, delimited by the close over HTTP/1.0."""
        return self.body == "sse"


# Short delays (some endpoints wait 100 or 300 ms by default), so each client's run takes well under a second.
# POSTs add one movie by Allen (Sweep.post_body) while GET asks for Kubrick, whose answer keeps its length.
ENDPOINTS = (
    Endpoint("/epoch-millis?delayInMillis=0"),
    Endpoint("/io?delayInMillis=10"),
    Endpoint("/cpu?iterations=1000"),
    Endpoint("/cpu-offloaded?iterations=1000"),
    Endpoint(f"/stream?count={STREAM_EVENTS}&intervalMillis=5", body="sse"),
    Endpoint("/movies?directorLastName=Kubrick&delayInMillis=0"),
    Endpoint("/movies?delayInMillis=0", method="POST", status=201, fixed_length=False),  # the ids' digits vary
    Endpoint("/health", fixed_length=False),  # inFlight varies
    Endpoint("/metrics", body="text", fixed_length=False),
)
POST = next(e for e in ENDPOINTS if e.method == "POST")
HEALTH = next(e for e in ENDPOINTS if e.target == "/health")


class Failed(Exception):
    """A client that hung, exited non-zero or printed nothing to judge: the check fails with this message."""


def run(argv, env=None):
    """Runs a client to its end and returns its stdout and stderr; kills it at CLIENT_DEADLINE."""
    try:
        r = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=CLIENT_DEADLINE, env=env)
    except subprocess.TimeoutExpired:  # subprocess.run has killed it
        raise Failed(f"hung: {argv[0]} killed after {CLIENT_DEADLINE} s") from None
    out = r.stdout + r.stderr
    if r.returncode != 0:
        lines = [line.strip() for line in out.splitlines() if line.strip()]
        raise Failed(f"{argv[0]} exit {r.returncode}: {lines[-1] if lines else '(no output)'}")
    return out


def number(pattern, text):
    m = re.search(pattern, text)
    return int(m.group(1)) if m else None


def verdict(seen, problems):
    """(ok, what was seen): the problems found, or the summary when there are none."""
    problems = [p for p in problems if p]
    return not problems, "; ".join(problems) if problems else seen


class Sweep:
    """One server's address, the request bodies in a scratch folder, and the tally of checks."""

    def __init__(self, port, scratch):
        self.port, self.scratch = port, scratch
        self.passed = self.failed = 0
        self.deadline = time.monotonic() + SWEEP_BUDGET
        movies = json.loads(MOVIES_JSON.read_text())
        self.movies = len(movies)
        self.post_body = self.write("movie.json", json.dumps(movies[:1]))  # Annie Hall, by Allen

    def write(self, name, text):
        path = os.path.join(self.scratch, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def url(self, endpoint):
        return f"http://127.0.0.1:{self.port}{endpoint.target}"

    def check(self, name, ok, seen):
        print(f"{'PASS' if ok else 'FAIL'} {name}: {seen}", flush=True)
        self.passed += ok
        self.failed += not ok

    def run_check(self, name, check, endpoint):
        """check(self, endpoint) -> (ok, seen); one that raises fails with its message, and the sweep goes on."""
        start = time.monotonic()
        if start > self.deadline:
            return self.check(name, False, f"not run: the sweep's {SWEEP_BUDGET} s are spent")
        try:
            ok, seen = check(self, endpoint)
        except Exception as e:  # Failed, or output this script did not foresee
            ok, seen = False, str(e) if isinstance(e, Failed) else f"{type(e).__name__}: {e}"
        self.check(name, ok, f"{seen} ({time.monotonic() - start:.1f} s)")


# --- The load clients: each returns (ok, what it saw) for one endpoint ------------------------------------------------

def ab(sweep, endpoint, keep_alive):
    """ApacheBench speaks HTTP/1.0; -k adds `Connection: Keep-Alive` and then reuses a connection only when the
    answer says `Connection: keep-alive`; otherwise it waits for the close that ends the answer."""
    post = ["-p", sweep.post_body, "-T", "application/json"] if endpoint.method == "POST" else []
    out = run(["ab", *(["-k"] if keep_alive else []), "-n", str(REQUESTS), "-c", str(CONCURRENCY),
               "-s", str(RESPONSE_TIMEOUT), *post, sweep.url(endpoint)])
    complete = number(r"Complete requests:\s+(\d+)", out)
    failed = number(r"Failed requests:\s+(\d+)", out)
    # A body whose length varies (new ids, counters) is counted as failed by length: no fault of the server's.
    by_length = number(r"Length: (\d+)", out) or 0
    excused = 0 if endpoint.fixed_length else by_length
    non_2xx = number(r"Non-2xx responses:\s+(\d+)", out) or 0
    seen = f"{complete}/{REQUESTS} complete, {failed} failed ({by_length} by length), {non_2xx} non-2xx"
    ok = complete == REQUESTS and failed == excused and non_2xx == 0
    if keep_alive and not endpoint.streamed:  # a streamed answer to HTTP/1.0 ends with the close
        kept = number(r"Keep-Alive requests:\s+(\d+)", out)
        seen += f", {kept} kept alive"
        ok = ok and kept == REQUESTS
    return ok, seen


def hey(sweep, endpoint):
    post = ["-m", "POST", "-D", sweep.post_body, "-T", "application/json"] if endpoint.method == "POST" else []
    out = run(["hey", "-n", str(REQUESTS), "-c", str(CONCURRENCY), "-t", str(RESPONSE_TIMEOUT), *post,
               sweep.url(endpoint)])
    statuses = {int(s): int(n) for s, n in re.findall(r"\[(\d+)\]\s+(\d+) responses", out)}
    errors = re.search(r"Error distribution:\s*(.*)", out)
    seen = f"statuses {statuses}" + (f", errors: {errors.group(1)}" if errors else "")
    return statuses == {endpoint.status: REQUESTS} and not errors, seen


# Siege reads only this (-R), not ~/.siege. Without `chunked = true` it reads a chunked answer (/stream) until the
# close, which a keep-alive connection never brings.
SIEGERC = """\
protocol = HTTP/1.1
connection = keep-alive
chunked = true
parser = false
logging = false
show-logfile = false
verbose = false
json_output = true
"""


def siege(sweep, endpoint):
    url, post = sweep.url(endpoint), []
    if endpoint.method == "POST":
        url, post = f"{url} POST < {sweep.post_body}", ["-T", "application/json"]
    # Siege writes a template ~/.siege/siege.conf when it finds none: HOME points into the scratch folder.
    out = run(["siege", "-R", sweep.write("siegerc", SIEGERC), "-b", "-r", str(REQUESTS // CONCURRENCY),
               "-c", str(CONCURRENCY), *post, url], env=dict(os.environ, HOME=sweep.scratch))
    m = re.search(r"\{.*\}", out, re.S)
    if not m:
        raise Failed(f"no JSON summary in: {out[-200:]!r}")
    summary = json.loads(m.group(0))
    # Siege's successful transactions are those answered below 400: every one must be.
    done, good, bad = summary["transactions"], summary["successful_transactions"], summary["failed_transactions"]
    ok = done == good == REQUESTS and bad == 0 and summary["availability"] == 100
    return ok, f"{done} transactions, {good} successful, {bad} failed, availability {summary['availability']} %"


def httperf(sweep, endpoint):
    """Persistent HTTP/1.1 connections with several calls each. httperf sends a body only from a session file."""
    conns, calls = 20, REQUESTS // 20
    if endpoint.method == "POST":
        with open(sweep.post_body, encoding="utf-8") as f:
            body = f.read()  # JSON without a single quote, so it fits contents='...'
        session = sweep.write("httperf-session", f"{endpoint.target} method=POST contents='{body}'\n" * calls)
        what = [f"--wsesslog={conns},0,{session}", "--add-header=Content-Type: application/json\\n"]
    else:
        what = ["--uri", endpoint.target, "--num-conns", str(conns), "--num-calls", str(calls)]
    out = run(["httperf", "--server", "127.0.0.1", "--port", str(sweep.port), "--rate", "200",
               "--timeout", str(RESPONSE_TIMEOUT), *what])
    replies = number(r"replies (\d+)", out)
    good = number(r"Reply status: 1xx=\d+ 2xx=(\d+)", out)
    errors = number(r"Errors: total (\d+)", out)
    return replies == good == REQUESTS and errors == 0, f"{replies} replies, {good} 2xx, {errors} errors"


# wrk runs for a duration, not a count: this script stops its thread after REQUESTS answers and counts the answers
# with another status than the endpoint's.
WRK_SCRIPT = """\
local limit, want = {limit}, {status}
{request}
local threads = {{}}
function setup(thread) table.insert(threads, thread) end
function init(args) answers = 0; unexpected = 0 end
function response(status, headers, body)
  answers = answers + 1
  if status ~= want then unexpected = unexpected + 1 end
  if answers >= limit then wrk.thread:stop() end
end
function done(summary, latency, requests)
  for _, t in ipairs(threads) do
    io.write(string.format("sweep: answers=%d unexpected=%d\\n", t:get("answers"), t:get("unexpected")))
  end
end
"""
WRK_POST = """\
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = assert(io.open("{body}", "rb"))
wrk.body = f:read("*a")
f:close()
"""


def wrk(sweep, endpoint):
    request = WRK_POST.format(body=sweep.post_body) if endpoint.method == "POST" else ""
    script = sweep.write("sweep.lua", WRK_SCRIPT.format(limit=REQUESTS, status=endpoint.status, request=request))
    out = run(["wrk", "-t1", f"-c{CONCURRENCY}", "-d1s", f"--timeout={RESPONSE_TIMEOUT}s", "-s", script,
               sweep.url(endpoint)])
    answers = number(r"sweep: answers=(\d+)", out)
    unexpected = number(r"unexpected=(\d+)", out)
    socket_errors = re.search(r"Socket errors:.*", out)
    non_2xx = number(r"Non-2xx or 3xx responses:\s+(\d+)", out) or 0
    seen = f"{answers} answers, {unexpected} with another status, {non_2xx} non-2xx/3xx, " + \
           (socket_errors.group(0) if socket_errors else "no socket errors")
    # The one second holds REQUESTS answers of every endpoint here many times over; 10 at least rule out a stall.
    return (answers or 0) >= 10 and unexpected == 0 and non_2xx == 0 and not socket_errors, seen


def h2load(sweep, endpoint):
    post = ["-d", sweep.post_body, "-H", "Content-Type: application/json"] if endpoint.method == "POST" else []
    out = run(["h2load", "--h1", "-n", str(REQUESTS), "-c", str(CONCURRENCY),
               f"--connection-inactivity-timeout={RESPONSE_TIMEOUT}", *post, sweep.url(endpoint)])
    line = re.search(r"requests: .*", out)
    succeeded = number(r"(\d+) succeeded", out)
    troubles = [number(rf"(\d+) {what}", out) for what in ("failed", "errored", "timeout")]
    good = number(r"status codes: (\d+) 2xx", out)
    ok = succeeded == good == REQUESTS and troubles == [0, 0, 0]
    return ok, f"{line.group(0) if line else '(no requests line)'}; {good} 2xx"


LOAD_CLIENTS = (
    ("ab", lambda sweep, e: ab(sweep, e, keep_alive=False)),
    ("ab -k", lambda sweep, e: ab(sweep, e, keep_alive=True)),
    ("hey", hey),
    ("siege", siege),
    ("httperf", httperf),
    ("wrk", wrk),
    ("h2load --h1", h2load),
)


# --- curl: the protocol corners, one exchange at a time ---------------------------------------------------------------

@dataclass
class Answer:
    status: int  # the last response's
    heads: list  # a dict of lower-cased header names (and ":status") per response received; a 100 Continue first
    body: bytes  # the first URL's
    transfers: list  # curl's --write-out %{json}, one per URL

    def header(self, name):
        return self.heads[-1].get(name) if self.heads else None


def parse_heads(text):
    heads = []
    for line in text.splitlines():
        if line.startswith("HTTP/"):
            heads.append({":status": (line.split() + [""])[1]})
        elif ":" in line and heads:
            name, value = line.split(":", 1)
            heads[-1][name.strip().lower()] = value.strip()
    return heads


def curl(sweep, endpoint, *options, post_file=None, again=False):
    """One curl exchange with the endpoint, or two on one connection when `again`."""
    heads, body = (os.path.join(sweep.scratch, n) for n in ("curl-heads", "curl-body"))
    for path in (heads, body):  # emptied: curl writes a file only once a byte comes (no body byte after a HEAD)
        Path(path).write_bytes(b"")
    data = []
    if endpoint.method == "POST":
        data = ["-H", "Content-Type: application/json", "--data-binary", "@" + (post_file or sweep.post_body)]
    urls = ["-o", body, sweep.url(endpoint)] + (["-o", os.devnull, sweep.url(endpoint)] if again else [])
    out = run(["curl", "-sS", "--noproxy", "*", "--max-time", "5", "-D", heads, "-w", "%{json}\\n", *data, *options,
               *urls])
    transfers = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return Answer(int(transfers[-1]["http_code"]), parse_heads(Path(heads).read_text(encoding="latin-1")),
                  Path(body).read_bytes(), transfers)


def body_problem(endpoint, body):
    """None when the body is what the endpoint sends, otherwise what is wrong with it."""
    text = body.decode(errors="replace")
    if endpoint.body == "json":
        try:
            json.loads(text)
        except ValueError as e:
            return f"body is not JSON ({e}): {text[:80]!r}"
    elif endpoint.body == "sse":
        events = [line[len("data: "):].rstrip(".") for line in text.splitlines() if line.startswith("data: ")]
        if events != [f"event-{i}" for i in range(STREAM_EVENTS)]:
            return f"events {events}, not event-0..{STREAM_EVENTS - 1}: {text[:120]!r}"
    elif "# TYPE execbench_" not in text:
        return f"no Prometheus metrics: {text[:80]!r}"
    return None


def answer_verdict(endpoint, answer, *problems):
    """The endpoint's status and a body of its kind, and the given problems (None or False where there is none)."""
    status = answer.status != endpoint.status and f"status {answer.status}, not {endpoint.status}"
    seen = f"{answer.status}, {len(answer.body)} bytes"
    return verdict(seen, [status, body_problem(endpoint, answer.body), *problems])


def curl_http11(sweep, endpoint):
    return answer_verdict(endpoint, curl(sweep, endpoint))


def curl_http10(sweep, endpoint):
    """An HTTP/1.0 client cannot read chunked framing: a streamed answer has no length and ends with the close."""
    answer = curl(sweep, endpoint, "--http1.0")
    te = answer.header("transfer-encoding")
    return answer_verdict(endpoint, answer, te and f"Transfer-Encoding: {te} sent to HTTP/1.0")


def curl_head(sweep, endpoint):
    """HEAD answers the GET's status and head (Content-Type, and Content-Length where the GET's body length is fixed)
    and no body. curl --head never reads a body, so a raw exchange checks that none follows the head."""
    get, head = curl(sweep, endpoint), curl(sweep, endpoint, "--head")
    names = ["content-type"] + (["content-length"] if endpoint.fixed_length and not endpoint.streamed else [])
    problems = [head.status != endpoint.status and f"status {head.status}, not {endpoint.status}"]
    problems += [f"{n}: {head.header(n)!r}, GET has {get.header(n)!r}"
                 for n in names if head.header(n) != get.header(n)]
    problems.append(body_after_head(sweep, endpoint))
    return verdict(f"{head.status}, " + ", ".join(f"{n}: {head.header(n)}" for n in names) + ", no body", problems)


def body_after_head(sweep, endpoint):
    """Sends HEAD with `Connection: close` and reads to the close: nothing may follow the head's blank line."""
    request = f"HEAD {endpoint.target} HTTP/1.1\r\nHost: 127.0.0.1:{sweep.port}\r\nConnection: close\r\n\r\n"
    data = b""
    try:
        with socket.create_connection(("127.0.0.1", sweep.port), timeout=RESPONSE_TIMEOUT) as s:
            s.sendall(request.encode())
            while chunk := s.recv(65536):
                data += chunk
    except OSError as e:
        return f"raw HEAD: {e} after {len(data)} bytes"
    after = data.partition(b"\r\n\r\n")[2]
    return after and f"{len(after)} body bytes after the head: {after[:60]!r}"


def curl_http10_keep_alive(sweep, endpoint):
    """Two HTTP/1.0 requests asking for keep-alive: each answer must say `Connection: keep-alive` (an HTTP/1.0
    client closes otherwise, and ApacheBench -k waits for that close) and the second reuses the connection."""
    answer = curl(sweep, endpoint, "--http1.0", "-H", "Connection: keep-alive", again=True)
    values = [(h.get("connection") or "").lower() for h in answer.heads]  # `Keep-Alive` says the same
    statuses = [t["http_code"] for t in answer.transfers]
    reused = len(answer.transfers) == 2 and answer.transfers[1]["num_connects"] == 0
    ok = values == ["keep-alive", "keep-alive"] and reused and statuses == [endpoint.status] * 2
    return ok, (f"statuses {statuses}, Connection headers {values}, "
                f"the second request {'reused the' if reused else 'opened a new'} connection")


def curl_expect_continue(sweep, endpoint):
    """curl waits up to 1 s for `100 Continue` before it sends the body anyway: the interim answer must come first."""
    answer = curl(sweep, endpoint, "-H", "Expect: 100-continue", post_file=str(MOVIES_JSON))
    statuses = [h[":status"] for h in answer.heads]
    took = answer.transfers[-1]["time_total"]
    missing = statuses[:1] != ["100"] and f"no 100 Continue (answers {statuses})"
    late = took >= EXPECT_CONTINUE_BOUND and f"took {took:.3f} s, not under {EXPECT_CONTINUE_BOUND} s"
    ok, seen = answer_verdict(endpoint, answer, missing, late)
    return ok, f"100 Continue, then {seen}, in {took:.3f} s" if ok else seen


def curl_chunked_body(sweep, endpoint):
    """The whole movies file sent in chunks: every movie in it is stored and echoed with its id."""
    answer = curl(sweep, endpoint, "-H", "Transfer-Encoding: chunked", "-H", "Expect:", post_file=str(MOVIES_JSON))
    stored = None if body_problem(endpoint, answer.body) else len(json.loads(answer.body))
    return answer_verdict(endpoint, answer, stored != sweep.movies and f"{stored} movies stored, not {sweep.movies}")


def curl_connection_close(sweep, endpoint):
    answer = curl(sweep, endpoint, "-H", "Connection: close")
    value = answer.header("connection")
    return answer_verdict(endpoint, answer,
                          (value or "").lower() != "close" and f"answered Connection: {value!r}, not close")


def curl_checks():
    """(name, endpoint, check) for every curl exchange."""
    checks = [(f"curl HTTP/1.1 {e}", e, curl_http11) for e in ENDPOINTS]
    checks += [(f"curl HTTP/1.0 {e}", e, curl_http10) for e in ENDPOINTS]
    checks += [(f"curl HEAD {e.target}", e, curl_head) for e in ENDPOINTS if e.method == "GET"]
    checks += [
        (f"curl HTTP/1.0 keep-alive {HEALTH}", HEALTH, curl_http10_keep_alive),
        (f"curl Expect: 100-continue {POST}", POST, curl_expect_continue),
        (f"curl chunked body {POST}", POST, curl_chunked_body),
        (f"curl Connection: close {HEALTH}", HEALTH, curl_connection_close),
    ]
    return checks


# --- The server -------------------------------------------------------------------------------------------------------

def start_server(bench_server, model, log):
    """Starts bench-server on a free port; returns (process, port) once /health answers, or raises RuntimeError."""
    return bench_server_process.start_server(bench_server, model, log, (), f"model={model} ",
                                             lambda port: health_status(port) == 200)


def health_status(port):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
    try:
        conn.request("GET", "/health")
        return conn.getresponse().status
    except OSError:
        return None
    finally:
        conn.close()


def sweep_server(sweep, model, server):
    for label, client in LOAD_CLIENTS:
        for endpoint in ENDPOINTS:
            sweep.run_check(f"{model} {label} {endpoint}", client, endpoint)
    for name, endpoint, check in curl_checks():
        sweep.run_check(f"{model} {name}", check, endpoint)
    alive = server.poll() is None and health_status(sweep.port) == 200
    sweep.check(f"{model} bench-server still answers /health", alive,
                "yes" if alive else f"exit {server.poll()}" if server.poll() is not None else "no answer")


def main():
    args = bench_server_process.model_arguments(__doc__.splitlines()[0])

    if (code := missing_clients(CLIENTS, "client_sweep")) is not None:
        return code

    # SIGTERM and Ctrl-C end the script through the finally below, which stops the server (SIGKILL: die_with_parent).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="execbench-client-sweep-") as scratch:
        log_path = os.path.join(scratch, "server.log")
        with open(log_path, "w") as log:
            try:
                server, port = start_server(args.bench_server, args.model, log)
            except (RuntimeError, OSError) as e:
                print(f"FAIL {args.model} bench-server start: {e}\n{Path(log_path).read_text()[-2000:]}")
                print("0 passed, 1 failed")
                return 1
            print(f"bench-server --model={args.model} on port {port} (pid {server.pid})", flush=True)
            sweep = Sweep(port, scratch)
            try:
                sweep_server(sweep, args.model, server)
            finally:
                stop_server(server)
    print(f"client sweep of {args.model}: {time.monotonic() - start:.1f} s")
    print(f"{sweep.passed} passed, {sweep.failed} failed")
    return 0 if sweep.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
