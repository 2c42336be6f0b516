#!/usr/bin/env python3
"""Writes the workload map's scenario files (issue 42): one capacity search per cell of CPU per request x wait per
request, `scenarios/map-cpu-<C>us-wait-<W>ms.json` for the `map` suite and a two-cell quick grid for CI's smoke
run (`map-quick`). Run it from the repository's root after changing the grid; the files are committed.

Each cell's request is `/cpu?cpuMicros=C&delayInMillis=W` (C = 0: `/io?delayInMillis=W`): it waits W, then computes
for C us of the serving thread's CPU time. Its SLO is p99 <= W + 50 ms + 10 C: the wait itself, the 50 ms the hot
path's capacity row allows, and ten requests' worth of CPU in a queue. Connections follow the rate at 1.2 x that
bound per req/s, so an arm that meets the SLO never runs out of connections; the highest rate keeps them within
18,000 (this machine's 20,000 open files), so the scenario's connections are not the bound below it.
"""

import json
import math
import os
import sys

CPU_MICROS = [0, 50, 500, 5000]
WAIT_MILLIS = [0, 1, 10, 100, 600]
POOL_WORKERS = 200  # bench-server's default --threads for the pool
MAX_CONNECTIONS = 18000
CEILING_RPS = 64000  # twice what one generator core sends without pipelining here (methodology.md)


def slo_millis(c_us, w_ms):
    return w_ms + 50 + math.ceil(10 * c_us / 1000)


def path_of(c_us, w_ms):
    if c_us == 0:
        return "/io?delayInMillis=%d" % w_ms
    return "/cpu?cpuMicros=%d&delayInMillis=%d" % (c_us, w_ms)


def name_of(prefix, c_us, w_ms):
    return "%s-cpu-%dus-wait-%dms" % (prefix, c_us, w_ms)


def cell(prefix, suite, c_us, w_ms, quick):
    bound = slo_millis(c_us, w_ms)
    per_rps = round(1.2 * bound / 1000, 4)
    ceiling = min(CEILING_RPS if not quick else 8000, int(MAX_CONNECTIONS / per_rps))
    # The pool's predicted capacity (its workers over a request's time, one core over its CPU) is the lowest of
    # any model's: start below it, so each arm's bracket grows from a rate it passes.
    pool = min(1e6 / c_us if c_us else math.inf, POOL_WORKERS * 1000 / (w_ms + c_us / 1000) if w_ms or c_us else math.inf)
    start = int(max(20, min(ceiling / 2, 0.5 * pool)))
    long_wait = w_ms >= 600
    step = "0.5s" if quick else ("3s" if long_wait else "2s")
    warmup = "200ms" if quick else ("1s" if long_wait else "500ms")
    return {
        "description": "Workload map cell: each request waits %d ms, then computes for %d us of CPU (%s); the highest "
        "open-loop rate at p99 <= %d ms (the wait + 50 ms + 10 x the CPU), no errors, no unsent; connections follow the "
        "rate (%.4g per req/s) up to %s req/s" % (w_ms, c_us, path_of(c_us, w_ms), bound, per_rps, format(ceiling, ",")),
        "suites": [suite],
        "requests": [{"method": "GET", "path": path_of(c_us, w_ms)}],
        "load": {"shape": "open", "rate": start, "connections": max(1, math.ceil(start * per_rps)), "duration": step},
        "warmup": warmup,
        "timeout": "10s",
        "capacity": {
            "slo": "p99<=%dms,errors=0,unsent=0" % bound,
            "connections": "follow",
            "connections_per_rps": per_rps,
            "start_rate": start,
            "max_rate": ceiling,
            "resolution_percent": 25 if quick else 10,
            "trials": 1 if quick else 3,
            "step_duration": step,
            "step_warmup": warmup,
        },
    }


def write(folder, name, data):
    path = os.path.join(folder, name + ".json")
    with open(path, "w") as f:
        f.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return path


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "scenarios"
    written = []
    for c in CPU_MICROS:
        for w in WAIT_MILLIS:
            written.append(write(folder, name_of("map", c, w), cell("map", "map", c, w, False)))
    for c, w in [(500, 10), (0, 100)]:
        written.append(write(folder, name_of("map-quick", c, w), cell("map-quick", "map-quick", c, w, True)))
    print("wrote %d scenario files into %s" % (len(written), folder))


if __name__ == "__main__":
    main()
