#!/usr/bin/env python3
"""Server memory per connection: the RSS growth of a server process per keep-alive connection.

  tools/conn_memory.py [--model MODEL|nginx] [--connections N] [--threads T] [--in-flight] [--server PATH]
                       [--pid PID --port PORT] [-- extra bench-server options]

Idle (default): opens N connections, sends one GET /epoch-millis?delayInMillis=0 on each and reads its answer, then
leaves them idle; prints VmRSS of the server before and after and the growth per connection answered.
--in-flight: sends GET /io?delayInMillis=D (--delay-ms, 4000) on each of the N connections at once and samples VmRSS
every 20 ms until every answer has arrived; prints the peak and the peak growth per connection, and for fiber how
many pages of each fiber stack are resident halfway through the delay (from /proc/PID/smaps).

The server is started here (bench-server of the build, or nginx with one worker) on 127.0.0.1 and stopped at the
end, or, with --pid and --port, one already running is measured. Loopback only. Needs an open-file limit above N
(this process holds N sockets, the server N more; `ulimit -n`).
"""
import argparse
import os
import resource
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def rss_kib(pid):
    """VmRSS of `pid` and its descendants (nginx's run script, master and worker), in KiB."""
    total = 0
    for p in [pid] + children(pid):
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total


def fiber_stacks(pid, stack_kib):
    """Resident KiB of each fiber stack of `pid`: the read-write anonymous mappings of exactly the stack's size that
    sit above a guard page (protected_fixedsize_stack), as /proc/PID/smaps lists them."""
    stacks, guard, is_stack, size, rss = [], False, False, None, None
    try:
        with open(f"/proc/{pid}/smaps") as f:
            lines = f.read().splitlines()
    except OSError:
        return stacks
    for line in lines + ["0-0 ---p 0 0:0 0"]:
        fields = line.split()
        if "-" in fields[0] and len(fields) >= 5 and ":" in fields[3]:  # a mapping's first line
            if size == stack_kib and rss is not None and is_stack:
                stacks.append(rss)
            lo, hi = (int(x, 16) for x in fields[0].split("-"))
            is_stack = guard and fields[1] == "rw-p" and len(fields) == 5
            guard = fields[1] == "---p" and hi - lo == 4096
            size, rss = (hi - lo) // 1024, None
        elif fields[0] == "Rss:":
            rss = int(fields[1])
    return stacks


def children(pid):
    """Every descendant of `pid`, as bench-suite's process tree reads them."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            direct = [int(c) for c in f.read().split()]
    except FileNotFoundError:
        return []
    return direct + [d for c in direct for d in children(c)]


def wait_port(port, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"GET /epoch-millis?delayInMillis=0 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                if s.recv(64).startswith(b"HTTP/1.1 200"):
                    return True
        except OSError:
            time.sleep(0.1)
    return False


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(args, work):
    port = free_port()
    if args.model == "nginx":
        # The one nginx configuration of the repository, the peers page's (peers/nginx/nginx.conf.in).
        cmd = [os.path.join(HERE, "..", "peers", "nginx", "run"), str(port), "1", str(2 * args.connections + 100)]
    else:
        cmd = [args.server, "--model", args.model, "--port", str(port), "--host", "127.0.0.1"]
        if args.threads:
            cmd += ["--threads", str(args.threads)]
        if args.model == "fiber":
            cmd += ["--fiber-stack-kb", str(args.fiber_stack_kb)]
        # Idle connections must outlive the measurement.
        cmd += ["--idle-timeout", "600"] + args.extra
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not wait_port(port):
        proc.kill()
        sys.exit(f"conn_memory.py: {' '.join(cmd)} did not answer on 127.0.0.1:{port} within 10 s")
    return proc, port


class conn:
    __slots__ = ("sock", "out", "got", "done")

    def __init__(self, sock, request):
        self.sock, self.out, self.got, self.done = sock, request, b"", False


def complete(data):
    """True once `data` holds a whole response (Content-Length framed, as every answer here is)."""
    head_end = data.find(b"\r\n\r\n")
    if head_end < 0:
        return False
    length = 0
    for line in data[:head_end].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    return len(data) >= head_end + 4 + length


def run_requests(conns, pid, timeout, sample=None, at_peak=None, in_flight_after=0.0):
    """Drives every connection's request and answer; returns (answers that were 200, peak RSS sampled in KiB).
    `at_peak` is called once, `in_flight_after` seconds after the start (every request written, none answered)."""
    sel = selectors.DefaultSelector()
    for c in conns:
        sel.register(c.sock, selectors.EVENT_WRITE, c)
    pending, ok, peak = len(conns), 0, 0
    deadline = time.monotonic() + timeout
    next_sample = 0.0
    peak_at = time.monotonic() + in_flight_after
    while pending and time.monotonic() < deadline:
        if at_peak is not None and time.monotonic() >= peak_at:
            at_peak()
            at_peak = None
        if sample is not None and time.monotonic() >= next_sample:
            peak = max(peak, rss_kib(pid))
            next_sample = time.monotonic() + sample
        for key, events in sel.select(0.02):
            c = key.data
            try:
                if events & selectors.EVENT_WRITE:
                    c.out = c.out[c.sock.send(c.out):]
                    if not c.out:
                        sel.modify(c.sock, selectors.EVENT_READ, c)
                    continue
                chunk = c.sock.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                chunk = b""
            c.got += chunk
            if not chunk or complete(c.got):
                sel.unregister(c.sock)
                pending -= 1
                ok += c.got.startswith(b"HTTP/1.1 200")
                c.got = b""
    sel.close()
    return ok, peak


def open_connections(port, n, batch=500):
    conns = []
    for i in range(0, n, batch):
        for _ in range(min(batch, n - i)):
            s = socket.socket()
            s.connect(("127.0.0.1", port))
            s.setblocking(False)
            conns.append(s)
        time.sleep(0.01)  # let the server accept, so the backlog does not overflow
    return conns


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default="loop", help="a bench-server model (bench-server --list-models) or nginx")
    p.add_argument("--connections", type=int, default=2000)
    p.add_argument("--threads", type=int, default=0, help="bench-server --threads (0: its default)")
    p.add_argument("--in-flight", action="store_true", help="hold a delayed request on every connection")
    p.add_argument("--delay-ms", type=int, default=4000)
    p.add_argument("--fiber-stack-kb", type=int, default=128,
                   help="bench-server --fiber-stack-kb (its default: 128), to find the stacks in /proc/PID/smaps")
    p.add_argument("--server", default=os.path.join(HERE, "..", "build", "release", "bench-server"))
    p.add_argument("--pid", type=int, help="measure this running server instead of starting one")
    p.add_argument("--port", type=int, help="the running server's port (with --pid)")
    p.add_argument("extra", nargs="*", help="further bench-server options (after --)")
    args = p.parse_args()
    if args.pid is None and args.model != "nginx":
        models = subprocess.run([args.server, "--list-models"], capture_output=True, text=True).stdout.split()
        if args.model not in models:
            sys.exit(f"conn_memory.py: --model {args.model}: expected nginx or one of {', '.join(models)}")
    if args.connections < 1:
        sys.exit("conn_memory.py: --connections must be a positive whole number")
    if (args.pid is None) != (args.port is None):
        sys.exit("conn_memory.py: --pid and --port go together")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = args.connections + 64
    if soft < need:
        if hard < need:
            sys.exit(f"conn_memory.py: --connections {args.connections} needs an open-file limit of {need}; "
                     f"the hard limit is {hard} (ulimit -Hn)")
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))  # the server inherits it

    work = tempfile.mkdtemp(prefix="conn_memory.")
    proc = None
    try:
        if args.pid is not None:
            pid, port = args.pid, args.port
        else:
            proc, port = start_server(args, work)
            pid = proc.pid
        # Warm up: the first requests fault in code, thread caches and the Date header.
        warm = [conn(s, b"GET /epoch-millis?delayInMillis=0 HTTP/1.1\r\nHost: a\r\n\r\n")
                for s in open_connections(port, 20)]
        run_requests(warm, pid, 10)
        for c in warm:
            c.sock.close()
        time.sleep(0.5)
        before = rss_kib(pid)
        socks = open_connections(port, args.connections)
        target = f"/io?delayInMillis={args.delay_ms}" if args.in_flight else "/epoch-millis?delayInMillis=0"
        if args.model == "nginx" and args.in_flight:
            sys.exit("conn_memory.py: nginx answers at once; --in-flight measures bench-server only")
        conns = [conn(s, f"GET {target} HTTP/1.1\r\nHost: a\r\n\r\n".encode()) for s in socks]
        t0 = time.monotonic()
        stacks = []
        at_peak = None
        if args.in_flight and args.model == "fiber":
            def at_peak():  # every request in flight, none answered yet
                stacks.extend(fiber_stacks(pid, args.fiber_stack_kb))
        ok, peak = run_requests(conns, pid, args.delay_ms / 1000 + 60, sample=0.02 if args.in_flight else None,
                                at_peak=at_peak, in_flight_after=args.delay_ms / 2000)
        took = time.monotonic() - t0
        time.sleep(1.0)  # the answers written, the connections settle into waiting for their next request
        after = rss_kib(pid)
        n = args.connections
        what = args.model if args.pid is None else f"pid {pid}"
        print(f"{what}: {n} connections, {ok} answered 200 in {took:.1f} s")
        if args.in_flight:
            print(f"  RSS before {before} KiB, after the answers {after} KiB")
            if stacks:
                pages = {}
                for kib in stacks:
                    pages[kib // 4] = pages.get(kib // 4, 0) + 1
                print(f"  fiber stacks at the peak: {len(stacks)} mapped, resident pages: " +
                      ", ".join(f"{n} x {p}" for p, n in sorted(pages.items())))
            print(f"  peak RSS while {n} in flight {peak} KiB ({peak / 1024:.1f} MB): "
                  f"{(peak - before) * 1024 / n:.0f} B per connection in flight")
        else:
            # Per connection that was answered and so is idle now (a refused connect holds nothing).
            print(f"  RSS before {before} KiB, after (idle) {after} KiB: "
                  f"{(after - before) * 1024 / max(ok, 1):.0f} B per idle connection")
        for c in conns:
            c.sock.close()
        return 0 if ok == n else 1
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
