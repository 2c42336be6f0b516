#!/usr/bin/env python3
"""Issue 23 §4: deploy/kubernetes/shard.sh, the Job's entry point, run for real against a real bench-server, and
run.sh's reading of the shards' logs.

A shard that ran its load exits 0 (the pod succeeds), request errors included, and its last line carries
bench-load's exit status and the checksum of its interval log's lines; one that could not start exits 2 (the pod,
and only its index, fails). run.sh reads that line to tell finished shards from cut-off ones. There is no cluster
here, so run.sh talks to a stand-in `kubectl` that answers with the logs the real shard.sh runs wrote; the merge is
the real bench-report's.

Usage: shard_test.py SHARD_SH BENCH_LOAD BENCH_SERVER BENCH_REPORT
"""
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HLOG_LINE = re.compile(r'^(#\[|"StartTimestamp"|Tag=)')


def cksum(lines):
    data = "".join(line + "\n" for line in lines).encode()
    r = subprocess.run(["cksum"], input=data, capture_output=True, check=True)
    return "/".join(r.stdout.decode().split())


def shard(shard_sh, bin_dir, work, args):
    env = dict(os.environ, PATH=bin_dir + ":" + os.environ["PATH"], JOB_COMPLETION_INDEX="0", SHARDS="1",
               START_AT=str(int(time.time() * 1000)), SHARD_HLOG=os.path.join(work, "shard.hlog"))
    for f in ("shard.hlog", "shard.csv"):
        if os.path.exists(os.path.join(work, f)):
            os.remove(os.path.join(work, f))
    return subprocess.run(["/bin/sh", shard_sh, *args], env=env, capture_output=True, text=True, timeout=120)


def check(what, ok, detail=""):
    print(("ok: " if ok else "FAIL: ") + what + ("" if ok else "\n" + detail))
    return ok


def main():
    shard_sh, bench_load, bench_server, bench_report = (os.path.abspath(a) for a in sys.argv[1:5])
    failures = 0
    with tempfile.TemporaryDirectory(prefix="execbench-shard-test") as work:
        bin_dir = os.path.join(work, "bin")
        os.mkdir(bin_dir)
        os.symlink(os.path.abspath(bench_load), os.path.join(bin_dir, "bench-load"))
        server = subprocess.Popen([bench_server, "--model", "loop", "--threads", "1", "--port", "0"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            port = re.search(r"port=(\d+)", server.stdout.readline()).group(1)
            quick = ["--warmup", "0s", "--trials", "1", "--duration", "1s", "--connections", "2"]
            cases = [
                ("a clean run", ["--url", f"http://127.0.0.1:{port}/io?delayInMillis=1", *quick], 0, "0"),
                # Nothing listens on port 1: every request fails to connect, the load still ran its course.
                ("a run whose every request failed",
                 ["--url", "http://127.0.0.1:1/io", "--allow-errors", *quick], 0, "1"),
                ("a shard that cannot start", ["--url", f"http://127.0.0.1:{port}/io", "--connections", "0"], 2, "2"),
            ]
            logs = {}
            for name, args, want_exit, want_status in cases:
                r = shard(shard_sh, bin_dir, work, args)
                logs[want_status] = r.stderr + r.stdout  # as `kubectl logs` mixes the two streams
                detail = f"exit {r.returncode}\nstdout:\n{r.stdout[-2000:]}\nstderr:\n{r.stderr[-2000:]}"
                lines = r.stdout.splitlines()
                end = lines[-1] if lines else ""
                m = re.fullmatch(r"execbench-shard 0/1 exit=(\d+) cksum=(\d+/\d+)", end)
                failures += not check(f"{name}: shard.sh exits {want_exit}", r.returncode == want_exit, detail)
                failures += not check(f"{name}: its last line says bench-load exit {want_status}",
                                      m is not None and m.group(1) == want_status, detail)
                if m:
                    kept = [line for line in lines if HLOG_LINE.match(line)]
                    failures += not check(f"{name}: the checksum matches the log's lines ({len(kept)})",
                                          m.group(2) == cksum(kept), detail)
                    if want_exit == 0:
                        failures += not check(f"{name}: the interval log is on stdout",
                                              any(line.startswith("Tag=") for line in kept), detail)
                        # A log cut off in transit (kubelet's rotation keeps the tail) no longer matches.
                        failures += not check(f"{name}: a cut-off log does not match the checksum",
                                              m.group(2) != cksum(kept[len(kept) // 2:]), detail)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
        failures += check_run_sh(os.path.join(os.path.dirname(os.path.abspath(shard_sh)), "run.sh"), bench_report,
                                 work, logs)
    return 1 if failures else 0


FAKE_KUBECTL = """#!/bin/sh
# A stand-in for the cluster: every shard of the Job has ended; each pod's log is $FAKE/shard-<index>.log.
case "$1" in
  delete) ;;
  apply) cat > /dev/null ;;
  get) if [ "$2" = job ]; then echo "$(ls "$FAKE" | grep -c '^shard-.*\\.log$') 0"; else
         i=$(echo "$*" | sed -n 's/.*job-completion-index=\\([0-9]*\\).*/\\1/p')
         if [ -f "$FAKE/shard-$i.log" ]; then echo "pod/shard-$i"; fi
       fi ;;
  logs) cat "$FAKE/${2#pod/}.log" ;;
esac
"""


def check_run_sh(run_sh, bench_report, work, logs):
    """run.sh over three shards' logs: clean, with request errors, and a third that is cut off or has no end."""
    failures = 0
    completions = int(re.search(r"(?m)^ *completions: *(\d+)", open(os.path.join(os.path.dirname(run_sh),
                                                                             "job.yaml")).read()).group(1))
    if completions != 3:
        return not check("job.yaml has the 3 shards this test feeds run.sh", False, f"completions: {completions}")
    fake = os.path.join(work, "cluster")
    bin_dir = os.path.join(work, "kubectl-bin")
    os.makedirs(fake, exist_ok=True)
    os.makedirs(bin_dir, exist_ok=True)
    with open(os.path.join(bin_dir, "kubectl"), "w") as f:
        f.write(FAKE_KUBECTL)
    os.chmod(os.path.join(bin_dir, "kubectl"), 0o755)
    clean, errors = logs["0"], logs["1"]
    lines = clean.splitlines(keepends=True)
    tags = [i for i, line in enumerate(lines) if line.startswith("Tag=")]
    cut = "".join(lines[tags[len(tags) // 2]:])  # kubelet's rotation keeps the newest part
    crashed = "".join(line for line in lines if not line.startswith("execbench-shard "))
    cases = [
        ("request errors are data", [clean, errors, clean], {}, 1, ["shard 1 had request errors; merged"], True),
        ("a cut-off log is not merged", [clean, errors, cut], {}, 2,
         ["shard 2: its interval log arrived cut off", "shard(s) 2 of 3 did not finish", "no merge"], False),
        ("a shard without its end line did not finish", [clean, crashed, clean], {}, 2,
         ["shard 1 did not finish: its log has no end line", "no merge"], False),
        ("PARTIAL=1 merges the finished ones and says so", [clean, clean, cut], {"PARTIAL": "1"}, 2,
         ["merging 2 of 3 shards"], True),
        ("a shard that could not start is named", [clean, logs["2"], clean], {}, 2,
         ["shard 1 did not run its load (bench-load exit 2"], False),
    ]
    for name, shard_logs, extra_env, want_exit, want_err, merged in cases:
        for i, text in enumerate(shard_logs):
            with open(os.path.join(fake, f"shard-{i}.log"), "w") as f:
                f.write(text)
        env = dict(os.environ, PATH=bin_dir + ":" + os.environ["PATH"], FAKE=fake, BENCH_REPORT=bench_report,
                   **extra_env)
        r = subprocess.run(["bash", run_sh, "0"], env=env, cwd=work, capture_output=True, text=True, timeout=60)
        detail = f"exit {r.returncode}\nstdout:\n{r.stdout[-2000:]}\nstderr:\n{r.stderr[-3000:]}"
        failures += not check(f"run.sh, {name}: exit {want_exit}", r.returncode == want_exit, detail)
        for w in want_err:
            failures += not check(f"run.sh, {name}: says '{w}'", w in r.stderr, detail)
        failures += not check(f"run.sh, {name}: {'merges' if merged else 'does not merge'}",
                              ("p99" in r.stdout) == merged, detail)
    return failures


if __name__ == "__main__":
    if not shutil.which("cksum"):
        print("skipped: needs cksum")
        sys.exit(77)
    sys.exit(main())
