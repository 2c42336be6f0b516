#!/usr/bin/env bash
# The generator's CPU per completed request against wrk2 (open loop) and wrk (closed loop), docs/methodology.md's
# "The generator's CPU per request". One bench-server --model loop --threads 1 on CPU 0; every generator pinned to
# CPU 1, one at a time, in an order that rotates each round; CPU is user + system of the generator process
# (/usr/bin/time), which a busy machine disturbs far less than wall time. Prints a line per run, then per shape the
# median [min-max] of each tool's µs a request and p50, and of each bench-load's ratio to wrk2 (open) or wrk
# (closed) of the same round.
#   tools/generator_cost.sh WRK2_BINARY [ROUNDS=3] [SECONDS=15]
#     env: LOADS="name=path ..." bench-load binaries to compare (default: this tree's build/release/bench-load),
#          SERVER=path (default: this tree's build/release/bench-server),
#          SHAPES="epoch io" (default both), PIPELINE=N adds bench-load --pipeline N runs (open and closed)
# wrk2 is no Debian package: build it from github.com/giltene/wrk2 outside this tree. Without it (no file at
# WRK2_BINARY) the script says so and exits 0 without measuring; wrk (Debian) is needed. Loopback only.
set -euo pipefail
wrk2=${1:-}; rounds=${2:-3}; seconds=${3:-15}
if [[ -z $wrk2 || ! -x $wrk2 ]]; then
  echo "generator_cost.sh: skipped: no wrk2 binary at '${wrk2}' (usage: WRK2_BINARY [ROUNDS] [SECONDS])"
  exit 0
fi
for n in "$rounds" "$seconds"; do
  [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "generator_cost.sh: '$n' is not a positive whole number" >&2; exit 2; }
done
command -v wrk >/dev/null || { echo "generator_cost.sh: needs wrk (apt-get install wrk)" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
loads=${LOADS:-"bench-load=$here/build/release/bench-load"}
shapes=${SHAPES:-"epoch io"}
pipeline=${PIPELINE:-}
work=$(mktemp -d)
server_pid=
stop_server() { [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null; server_pid=; }
trap 'stop_server; rm -rf "$work"' EXIT

"${SERVER:-$here/build/release/bench-server}" --model loop --threads 1 --cpus 0 --port 0 >"$work/server.out" 2>&1 &
server_pid=$!
port=
for _ in $(seq 100); do
  port=$(grep -o 'port=[0-9]*' "$work/server.out" | head -1 | cut -d= -f2 || true)
  [[ -n $port ]] && break
  sleep 0.1
done
[[ -n $port ]] || { echo "generator_cost.sh: bench-server did not announce its port within 10 s" >&2; exit 1; }

# shape name -> path, rate, connections
declare -A path=([epoch]='/epoch-millis?delayInMillis=0' [io]='/io?delayInMillis=100')
declare -A rate=([epoch]=20000 [io]=5000)
declare -A conns=([epoch]=200 [io]=1000)

# Runs tool `$1` (wrk2, wrk, or LOADS' name:open / name:closed) on shape `$2`; prints "completed p50_ms".
run_tool() {
  local tool=$1 s=$2 url="http://127.0.0.1:$port${path[$2]}" out="$work/out" deadline=$((seconds + 60))
  local -a cmd
  case $tool in
    wrk2) cmd=("$wrk2" -t1 -c"${conns[$s]}" -d"${seconds}s" -R"${rate[$s]}" --latency "$url") ;;
    wrk) cmd=(wrk -t1 -c"${conns[$s]}" -d"${seconds}s" --latency "$url") ;;
    *)
      local name=${tool%%:*} kind=${tool#*:} bin
      bin=$(tr ' ' '\n' <<<"$loads" | grep "^${name%%+*}=" | head -1 | cut -d= -f2-)
      cmd=("$bin" --url "$url" -c"${conns[$s]}" -d"${seconds}s" --format json --quiet --shape "${kind%%+*}")
      [[ $kind == open* ]] && cmd+=(-R "${rate[$s]}")
      [[ $kind == *+p* ]] && cmd+=(--pipeline "${kind##*+p}")
      ;;
  esac
  timeout "$deadline" /usr/bin/time -f '%U %S' -o "$work/time" taskset -c 1 "${cmd[@]}" >"$out" 2>"$work/err" || true
  python3 - "$tool" "$out" "$work/time" <<'PY'
import json, re, sys
tool, out, timing = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read().split()
cpu = float(timing[-2]) + float(timing[-1])
if tool in ("wrk", "wrk2"):
    done = int(re.search(r"(\d+) requests in", out).group(1))
    m = re.search(r"50\.000%\s+([\d.]+)(us|ms|s)\b", out) or re.search(r"50%\s+([\d.]+)(us|ms|s)\b", out)
    p50 = float(m.group(1)) * {"us": 1e-3, "ms": 1, "s": 1e3}[m.group(2)]
else:
    summary = [json.loads(l) for l in out.splitlines() if l.startswith("{")][-1]
    m = summary["median"]
    done, p50 = int(m["requests_total"]), float(m["latency_millis_p50"])
print(f"{cpu * 1e6 / done:.2f} {p50:.3f} {done}")
PY
}

results="$work/results"; : >"$results"
tools=(wrk2 wrk)
for l in $loads; do
  tools+=("${l%%=*}:open" "${l%%=*}:closed")
  [[ -n $pipeline ]] && tools+=("${l%%=*}:open+p$pipeline" "${l%%=*}:closed+p$pipeline")
done
for r in $(seq "$rounds"); do
  for s in $shapes; do
    n=${#tools[@]}
    for i in $(seq 0 $((n - 1))); do
      tool=${tools[$(((i + r - 1) % n))]}
      if ! line=$(run_tool "$tool" "$s"); then
        echo "generator_cost.sh: round $r $s $tool failed: $(tail -3 "$work/err" "$work/out" 2>/dev/null)" >&2; exit 1
      fi
      read -r us p50 done <<<"$line"
      echo "round $r $s $tool: $us us CPU a request, p50 $p50 ms, $done completed"
      echo "$r $s $tool $us $p50" >>"$results"
      sleep 1  # the previous run's connections close
    done
  done
done
python3 - "$results" <<'PY'
import collections, statistics, sys
cpu, p50, rows = collections.defaultdict(list), collections.defaultdict(list), collections.defaultdict(dict)
for line in open(sys.argv[1]):
    r, s, tool, us, p = line.split()
    cpu[s, tool].append(float(us)); p50[s, tool].append(float(p)); rows[s, r][tool] = float(us)
span = lambda v, f: f"{f(statistics.median(v))} [{f(min(v))}-{f(max(v))}]"
for s in dict.fromkeys(s for s, _ in cpu):
    for tool in [t for ss, t in cpu if ss == s]:
        line = f"{s} {tool}: {span(cpu[s, tool], '{:.2f}'.format)} us a request, p50 {span(p50[s, tool], '{:.3f}'.format)} ms"
        if ":" in tool:
            yard = "wrk2" if ":open" in tool else "wrk"
            ratios = [row[tool] / row[yard] for (ss, _), row in rows.items() if ss == s]
            line += f", {span(ratios, '{:.2f}'.format)}x {yard}"
        print(line)
PY
