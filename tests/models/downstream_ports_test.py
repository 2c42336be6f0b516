#!/usr/bin/env python3
"""ctest `downstream_ports_<model>`: the per-call downstream client runs out of ephemeral ports, and recovers.

Usage: downstream_ports_test.py BENCH_SERVER --model MODEL

The issue-54 failure row at a scale a test can hold: in a network namespace of its own (`ip netns add`, removed
after) whose net.ipv4.ip_local_port_range is 40 ports, a downstream bench-server (loop) and the server under test
(MODEL, `--downstream-client per-call`) run, and 60 requests arrive at once, each making one downstream call held
open 1.5 s by the downstream. Only 40 connections to the downstream can have a local port, so:

- the other calls fail at connect(2), and their requests answer 502 with a JSON error naming EADDRNOTAVAIL;
- at least one call got a port (200), so the limit is the ports, not a broken setup;
- the server does not crash (it answers /health after);
- once the burst is over it recovers: sequential requests all answer 200. Ports the downstream's side closed first
  free at once; any the client's side left in TIME_WAIT are reusable for a new connection to the same loopback
  address after a second (net.ipv4.tcp_tw_reuse = 2, the default, reuses TIME_WAIT for loopback only), so the
  recovery checks allow up to 10 s.

The test's own client connections are bound to ports outside the narrowed range, so they take none of its 40 ports.
Needs root and `ip` (iproute2): exits 77 (skipped) otherwise. Prints one PASS/FAIL line per check and
`N passed, M failed` last; exits 0 when all passed, 1 otherwise.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
import bench_server_process  # noqa: E402

PORT_RANGE = (40000, 40039)  # 40 ephemeral ports in the namespace
CLIENT_PORTS = 45000  # the test's own connections bind from here, outside PORT_RANGE
BURST = 60  # requests at once, each holding a downstream connection
HOLD_MS = 1500  # how long the downstream holds each call
DEADLINE = 20  # seconds any one request may take


def get(port, target, local_port):
    """GET `target` on 127.0.0.1:`port` from 127.0.0.1:`local_port` (Connection: close); (status, body) or raises."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", local_port))
        s.settimeout(DEADLINE)
        s.connect(("127.0.0.1", port))
        s.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body.decode(errors="replace")


def inside(bench_server, model):
    """The test proper, run inside the namespace."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    with open("/proc/sys/net/ipv4/ip_local_port_range", "w") as f:
        f.write(f"{PORT_RANGE[0]} {PORT_RANGE[1]}")
    passed = failed = 0

    def check(name, ok, seen):
        nonlocal passed, failed
        print(f"{'PASS' if ok else 'FAIL'} {model} {name}: {seen}", flush=True)
        passed, failed = passed + ok, failed + (not ok)

    def healthy(port):
        try:
            return get(port, "/health", CLIENT_PORTS + 999)[0] == 200
        except OSError:
            return False

    log = open(os.devnull, "w")
    down, down_port = bench_server_process.start_server(bench_server, "loop", log, ["--threads", "1"], " port=",
                                                        healthy)
    front = None
    try:
        front, port = bench_server_process.start_server(
            bench_server, model, log,
            ["--downstream", f"http://127.0.0.1:{down_port}", "--downstream-client", "per-call"], " port=", healthy)
        results = [None] * BURST
        target = f"/epoch-millis?delayCallDepth=1&delayInMillis={HOLD_MS}"

        def one(i):
            try:
                results[i] = get(port, target, CLIENT_PORTS + i)
            except OSError as e:
                results[i] = (0, f"client error: {e}")

        threads = [threading.Thread(target=one, args=(i,)) for i in range(BURST)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(DEADLINE + 5)
        statuses = sorted({r[0] for r in results if r})
        ok = sum(1 for r in results if r and r[0] == 200)
        no_port = [r for r in results if r and r[0] == 502]
        check("some calls got a port", 0 < ok <= PORT_RANGE[1] - PORT_RANGE[0] + 1, f"{ok} answered 200")
        check("the rest answer 502", ok + len(no_port) == BURST, f"statuses {statuses}")
        named = [r for r in no_port if "EADDRNOTAVAIL" in r[1]]
        check("each 502 names EADDRNOTAVAIL in its JSON", no_port and len(named) == len(no_port),
              no_port[0][1][:200] if no_port else "no 502")
        if no_port:
            try:
                body = json.loads(no_port[0][1])
                check("the 502's body is JSON", isinstance(body, dict), sorted(body))
            except ValueError as e:
                check("the 502's body is JSON", False, str(e))
        check("the server did not crash", front.poll() is None and healthy(port), f"exit code {front.poll()}")
        # Recovery: sequential calls, one port at a time, within 10 s.
        recovered = 0
        deadline = time.monotonic() + 10
        seen = []
        while recovered < 5 and time.monotonic() < deadline:
            status, _ = get(port, "/epoch-millis?delayCallDepth=1&delayInMillis=0", CLIENT_PORTS + 100 + len(seen))
            seen.append(status)
            recovered = recovered + 1 if status == 200 else 0
            if status != 200:
                time.sleep(0.2)
        check("it recovers: five calls in a row answer 200", recovered == 5, f"statuses {seen}")
    finally:
        if front:
            bench_server_process.stop_server(front)
        bench_server_process.stop_server(down)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bench_server")
    parser.add_argument("--model", required=True)
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inside:
        return inside(args.bench_server, args.model)
    if os.geteuid() != 0 or shutil.which("ip") is None:
        print("downstream_ports_test: skipped: needs root and ip (iproute2) for a network namespace")
        return 77
    namespace = f"execbench-ports-{args.model}-{os.getpid()}"
    if subprocess.run(["ip", "netns", "add", namespace], capture_output=True).returncode != 0:
        print(f"downstream_ports_test: skipped: cannot add network namespace {namespace}")
        return 77
    try:
        return subprocess.run(["ip", "netns", "exec", namespace, sys.executable, __file__, args.bench_server,
                               "--model", args.model, "--inside"], timeout=120).returncode
    finally:
        subprocess.run(["ip", "netns", "delete", namespace], check=False)


if __name__ == "__main__":
    sys.exit(main())
