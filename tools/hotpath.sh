#!/usr/bin/env bash
# The hot-path comparison of docs/models.md: nginx against bench-server's loop, fiber and coro models on
# GET /epoch-millis?delayInMillis=0, wrk -tT -c100T, every configuration once per round in a shuffled order, and the
# medians at the end, with the server's CPU time per request (user + system, from /proc, over the measured run:
# steadier than throughput on a machine with steal). One thread: server on CPU 0, wrk on CPU 1; two: unpinned, as a
# 2-worker nginx would run.
#   tools/hotpath.sh [ROUNDS=5] [SECONDS=5]            env: SERVERS="name=path ..." (default loop/fiber/coro of the build),
#                                                           THREADS="1 2" (the thread counts to run)
# Single runs on a shared VM swing by ±15 %, mostly together within a round, so it also prints the median over rounds
# of each server's ratio to the first loop of the same round.
# Needs wrk, nginx and taskset. Loopback only; every server is stopped after its run.
set -euo pipefail
rounds=${1:-5}; seconds=${2:-5}
threads=${THREADS:-"1 2"}
for n in "$rounds" "$seconds" $threads; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "hotpath.sh: '$n' is not a positive whole number (usage: [ROUNDS] [SECONDS], THREADS=\"1 2\")" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")/.." && pwd)
servers=${SERVERS:-"build=$here/build/release/bench-server"}
# Only the process this script started, by its PID, is stopped on the way out.
pid=
work=$(mktemp -d); trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
port=18190; path='/epoch-millis?delayInMillis=0'

# Clock ticks of user + system time of a process and its descendants that are still running (nginx's run script,
# master and workers).
cpu_ticks() {
  local total c
  total=$(awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0)
  for c in $(pgrep -P "$1" || true); do
    total=$((total + $(cpu_ticks "$c")))
  done
  echo "$total"
}
hz=$(getconf CLK_TCK)
wait_ready() { for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && return 0; sleep 0.1; done; return 1; }
results="$work/results"; : > "$results"
for r in $(seq "$rounds"); do
  for t in $threads; do
    if [ "$t" = 1 ]; then spin="taskset -c 0"; wpin="taskset -c 1"; else spin=""; wpin=""; fi
    configs="nginx"
    for s in $servers; do configs+=" loop@$s fiber@$s coro@$s"; done
    for c in $(tr ' ' '\n' <<<"$configs" | shuf); do
      if [ "$c" = nginx ]; then
        # The repository's one nginx configuration, the peers page's: $t workers.
        $spin "$here/peers/nginx/run" "$port" "$t" & pid=$!; name=nginx
      else
        model=${c%%@*}; spec=${c#*@}; name="$model-${spec%%=*}"
        $spin "${spec#*=}" --model "$model" --threads "$t" --port "$port" >/dev/null 2>&1 & pid=$!
      fi
      wait_ready || { echo "hotpath.sh: $name did not answer on 127.0.0.1:$port within 10 s" >&2; exit 1; }
      timeout 60 $wpin wrk -t"$t" -c$((100 * t)) -d1s "http://127.0.0.1:$port$path" >/dev/null
      before=$(cpu_ticks "$pid")
      out=$(timeout 60 $wpin wrk -t"$t" -c$((100 * t)) -d"${seconds}s" "http://127.0.0.1:$port$path")
      ticks=$(($(cpu_ticks "$pid") - before))
      rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
      requests=$(awk '/requests in/ {print $1}' <<<"$out")
      us=$(awk -v t="$ticks" -v hz="$hz" -v n="$requests" 'BEGIN {printf "%.2f", t / hz * 1e6 / n}')
      echo "round $r threads $t $name $rps req/s, $us us CPU a request"
      echo "$r $t $name $rps $us" >> "$results"
      kill "$pid"; wait "$pid" 2>/dev/null || true
      pid=
      sleep 0.5
    done
  done
done
python3 - "$results" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
cpu = collections.defaultdict(list)
by_round = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    r, t, name, rps, us = line.split()
    runs[(t, name)].append(float(rps))
    cpu[(t, name)].append(float(us))
    by_round[(t, r)][name] = float(rps)
for t in sorted({t for t, _ in runs}):
    names = sorted(n for (tt, n) in runs if tt == t)
    print(f"threads {t}, req/s: " + ", ".join(
        f"{n} {statistics.median(runs[t, n]):,.0f} [{min(runs[t, n]):,.0f}-{max(runs[t, n]):,.0f}]" for n in names))
    print(f"threads {t}, us CPU a request: " + ", ".join(
        f"{n} {statistics.median(cpu[t, n]):.2f} [{min(cpu[t, n]):.2f}-{max(cpu[t, n]):.2f}]" for n in names))
    base = next(n for n in names if n.startswith("loop-"))
    ratios = {n: [row[n] / row[base] for (tt, _), row in by_round.items() if tt == t] for n in names}
    print(f"threads {t}, req/s over {base} in the same round: " + ", ".join(
        f"{n} {statistics.median(v):.2f} [{min(v):.2f}-{max(v):.2f}]" for n, v in ratios.items() if n != base))
PY
