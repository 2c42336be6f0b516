#!/usr/bin/env bash
# bench-server builds side by side: each model's server CPU, the generator's CPU and the latency at one open-loop
# rate, docs/methodology.md's "Pipelined answers in one write". Each run starts a fresh bench-server --cpus 0 and
# loads it from CPU 1 with this tree's bench-load; the builds alternate within each model, and the models within each
# round. Prints one line per run: round, model, build, then bench-load's figures (a BEHIND or GENERATOR-BOUND mark
# means that run's figures are not the server's).
#   tools/server_cost.sh NAME=BENCH_SERVER [NAME=BENCH_SERVER ...]
#     env: ROUNDS (3), RATE (48000), PIPELINE (16), CONNECTIONS (200), DURATION (6s), MODELS (every model of bench-server --list-models,
#          or with commas as bench-suite --models takes them),
#          TARGET (/epoch-millis?delayInMillis=0). Loopback only.
set -euo pipefail
(($# > 0)) || { echo "usage: tools/server_cost.sh NAME=BENCH_SERVER [NAME=BENCH_SERVER ...]" >&2; exit 2; }
for build in "$@"; do
  [[ $build == *=* && -x ${build#*=} ]] || { echo "server_cost.sh: '$build' is not NAME=an executable bench-server" >&2; exit 2; }
done
for n in "${ROUNDS:-3}" "${RATE:-48000}" "${PIPELINE:-16}" "${CONNECTIONS:-200}"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "server_cost.sh: '$n' is not a positive whole number (ROUNDS, RATE, PIPELINE, CONNECTIONS)" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")/.." && pwd)
# Every model the first bench-server knows, unless MODELS names some.
models=${MODELS:-$("${1#*=}" --list-models | paste -sd' ')}
load=$here/build/release/bench-load
work=$(mktemp -d)
server_pid=
stop_server() { [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null; server_pid=; }
trap 'stop_server; rm -rf "$work"' EXIT

for round in $(seq "${ROUNDS:-3}"); do
  for model in ${models//,/ }; do
    for build in "$@"; do
      "${build#*=}" --model "$model" --cpus 0 --port 0 >"$work/server.out" 2>&1 &
      server_pid=$!
      port=
      for _ in $(seq 100); do
        port=$(grep -o 'port=[0-9]*' "$work/server.out" | head -1 | cut -d= -f2 || true)
        [[ -n $port ]] && break
        sleep 0.1
      done
      [[ -n $port ]] || { echo "server_cost.sh: ${build%%=*} did not start: $(cat "$work/server.out")" >&2; exit 1; }
      line=$("$load" --cpus 1 --shape open --rate "${RATE:-48000}" -c "${CONNECTIONS:-200}" \
        --pipeline "${PIPELINE:-16}" -d "${DURATION:-6s}" \
        "http://127.0.0.1:$port${TARGET:-/epoch-millis?delayInMillis=0}" 2>&1 | grep 'median of' || true)
      stop_server
      figures=$(grep -oE 'rps=[0-9]+|p50=[0-9.]+ms|p99=[0-9.]+ms|cpu=[0-9]+%|load_cpu=[0-9]+%|GENERATOR-BOUND|BEHIND' \
        <<<"$line" | tr '\n' ' ')
      echo "$round $model ${build%%=*} ${figures:-no result}"
    done
  done
done
