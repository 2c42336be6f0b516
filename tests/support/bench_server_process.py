"""What the Python tests share around a bench-server child and the clients they need (tests/http, tests/tls,
tests/http2)."""
import argparse
import ctypes
import os
import re
import select
import shutil
import signal
import ssl
import subprocess
import time


def die_with_parent():
    """Runs in the child before exec: should the test be killed outright, the kernel ends the server too."""
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG


def start_server(bench_server, model, log, extra, start_mark, answers):
    """Starts `bench_server --model=MODEL --port 0 EXTRA...`; returns (process, port) once its start line holds a
    port and `start_mark` and `answers(port)` is true, or raises RuntimeError (the server stopped) within 10 s each."""
    server = subprocess.Popen([bench_server, f"--model={model}", "--port", "0", *extra], stdout=subprocess.PIPE,
                              stderr=log, text=True, preexec_fn=die_with_parent)
    try:
        # Its start line: `bench-server model=M threads=N ... address=127.0.0.1 port=P ...`.
        ready, _, _ = select.select([server.stdout], [], [], 10)
        line = server.stdout.readline() if ready else ""
        m = re.search(r" port=(\d+)", line)
        if not m or start_mark not in line:
            raise RuntimeError(f"no start line with {start_mark.strip()} and a port within 10 s: {line.strip()!r}")
        port = int(m.group(1))
        deadline = time.monotonic() + 10
        while not answers(port):
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError(f"/health did not answer 200 on port {port} within 10 s")
            time.sleep(0.05)
        return server, port
    except BaseException:
        stop_server(server)
        raise


def stop_server(server):
    """SIGTERM to the server's PID; SIGKILL when it has not drained within 10 s."""
    if server.poll() is None:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def model_arguments(description):
    """The command line of a test of one model: `BENCH_SERVER --model MODEL`."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("bench_server")
    parser.add_argument("--model", required=True)
    return parser.parse_args()


def alpn_h2(sock):
    """`sock` wrapped in TLS offering only h2 by ALPN, the certificate unchecked (bench-server's is self-signed)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.set_alpn_protocols(["h2"])
    return ctx.wrap_socket(sock)


def missing_clients(clients, test):
    """None when every client ({command: Debian package}) is installed; else the exit code after saying which are
    missing: 1 under EXECBENCH_REQUIRE_CLIENTS=1 (.ci/test), 77 (skipped) otherwise."""
    missing = [f"{c} ({package})" for c, package in clients.items() if shutil.which(c) is None]
    if not missing:
        return None
    if os.environ.get("EXECBENCH_REQUIRE_CLIENTS") == "1":
        print(f"FAIL EXECBENCH_REQUIRE_CLIENTS=1 but missing: {', '.join(missing)}\n0 passed, 1 failed")
        return 1
    print(f"{test}: skipped: missing {', '.join(missing)} (.ci/setup installs them)")
    return 77


CLIENT_DEADLINE = 20  # seconds one client invocation may take before it is killed and counted as hung


class Check:
    """Prints one `PASS|FAIL LABEL name: seen` line per check and counts them: `check(name, ok, seen)` returns ok."""

    def __init__(self, label):
        self.label = label
        self.passed = 0
        self.failed = 0

    def __call__(self, name, ok, seen):
        print(f"{'PASS' if ok else 'FAIL'} {self.label} {name}: {seen}", flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok

    def finish(self, title, start):
        """Prints how long the checks took (since `start`, a monotonic time) and `N passed, M failed` last; the exit
        code: 0 when all passed, 1 otherwise."""
        print(f"{title}: {time.monotonic() - start:.1f} s")
        print(f"{self.passed} passed, {self.failed} failed")
        return 0 if self.failed == 0 else 1


def run_client(argv, stdin=None):
    """Runs a client under CLIENT_DEADLINE; (exit code, stdout + stderr). A hang is exit code None."""
    try:
        p = subprocess.run(argv, input=stdin, capture_output=True, timeout=CLIENT_DEADLINE)
        return p.returncode, (p.stdout + p.stderr).decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, f"hung: killed after {CLIENT_DEADLINE} s"
