#!/usr/bin/env bash
# The hot-path comparison of docs/models.md: nginx against bench-server's loop and fiber models on
# GET /epoch-millis?delayInMillis=0, wrk -tT -c100T, every configuration once per round in a shuffled order, and the
# medians at the end. One thread: server on CPU 0, wrk on CPU 1; two: unpinned, as a 2-worker nginx would run.
#   tools/hotpath.sh [ROUNDS=5] [SECONDS=5]            env: SERVERS="name=path ..." (default loop/fiber of the build)
# Needs wrk, nginx and taskset. Loopback only; every server is stopped after its run.
set -euo pipefail
rounds=${1:-5}; seconds=${2:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
servers=${SERVERS:-"build=$here/build/release/bench-server"}
work=$(mktemp -d); trap 'pkill -f "nginx -c $work" 2>/dev/null || true; rm -rf "$work"' EXIT
port=18190; path='/epoch-millis?delayInMillis=0'

for t in 1 2; do
  cat > "$work/nginx-$t.conf" <<CONF
worker_processes $t;
daemon off;
pid $work/nginx-$t.pid;
error_log $work/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  server_tokens off;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$port;
    location / { default_type application/json; return 200 "1796071799062"; }
  }
}
CONF
done

wait_ready() { for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && return 0; sleep 0.1; done; return 1; }
results="$work/results"; : > "$results"
for r in $(seq "$rounds"); do
  for t in 1 2; do
    if [ "$t" = 1 ]; then spin="taskset -c 0"; wpin="taskset -c 1"; else spin=""; wpin=""; fi
    configs="nginx"
    for s in $servers; do configs+=" loop@$s fiber@$s"; done
    for c in $(tr ' ' '\n' <<<"$configs" | shuf); do
      if [ "$c" = nginx ]; then
        $spin nginx -c "$work/nginx-$t.conf" & pid=$!; name=nginx
      else
        model=${c%%@*}; spec=${c#*@}; name="$model-${spec%%=*}"
        $spin "${spec#*=}" --model "$model" --threads "$t" --port "$port" >/dev/null 2>&1 & pid=$!
      fi
      wait_ready
      timeout 60 $wpin wrk -t"$t" -c$((100 * t)) -d1s "http://127.0.0.1:$port$path" >/dev/null
      rps=$(timeout 60 $wpin wrk -t"$t" -c$((100 * t)) -d"${seconds}s" "http://127.0.0.1:$port$path" |
            awk '/Requests\/sec/ {print $2}')
      echo "round $r threads $t $name $rps"
      echo "$t $name $rps" >> "$results"
      kill "$pid"; wait "$pid" 2>/dev/null || true
      sleep 0.5
    done
  done
done
python3 - "$results" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    t, name, rps = line.split()
    runs[(t, name)].append(float(rps))
for t in "12":
    row = {n: v for (tt, n), v in runs.items() if tt == t}
    print(f"threads {t}: " + ", ".join(
        f"{n} {statistics.median(v):,.0f} [{min(v):,.0f}-{max(v):,.0f}]" for n, v in sorted(row.items())))
PY
