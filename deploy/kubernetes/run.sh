#!/usr/bin/env bash
# Runs job.yaml with a common start DELAY seconds ahead, waits for every shard, collects their interval logs from
# `kubectl logs` and merges them (docs/distributed.md). Usage: deploy/kubernetes/run.sh [DELAY_SECONDS] [MERGE ARGS…]
# Needs kubectl and bench-report on PATH (bench-report: build/release/bench-report of a build, or BENCH_REPORT=path).
# Exit status: 0 every shard finished and the merge ran; 1 a shard had request errors (merged: they are data);
# 2 a shard did not finish, or its log was cut off (no merge unless PARTIAL=1), or the merge failed; 3 a shard broke
# an --slo gate; 4 a shard fell behind its rate. The worst outcome wins, in the order 2, 1, 3, 4.
set -euo pipefail
here=$(dirname "$0")
delay=${1:-60}
shift || true
job=execbench-load
bench_report=${BENCH_REPORT:-bench-report}
for tool in kubectl "$bench_report"; do
  command -v "$tool" >/dev/null || { echo "run.sh: $tool is not on PATH (BENCH_REPORT=path names bench-report)" >&2; exit 2; }
done
# GNU date reads -d @SECONDS, BSD and macOS date -r SECONDS.
utc() { date -u -d "@$1" +%FT%TZ 2>/dev/null || date -u -r "$1" +%FT%TZ; }
start_at=$(( ($(date +%s) + delay) * 1000 ))
shards=$(sed -n 's/^ *completions: *\([0-9]*\).*/\1/p' "$here/job.yaml")
kubectl delete job "$job" --ignore-not-found
sed "s/__START_AT__/$start_at/" "$here/job.yaml" | kubectl apply -f -
echo "run.sh: $shards shards start at $start_at ($(utc $((start_at / 1000))))"
# Every shard ends by itself (its duration plus at most the request timeout). With backoffLimitPerIndex: 0 each
# index has one pod, which succeeds (the load ran, request errors included) or fails (it never started or crashed);
# the Job ends when every index has. The wait is bounded (JOB_TIMEOUT seconds after the start, default 3600).
deadline=$(( start_at / 1000 + ${JOB_TIMEOUT:-3600} ))
while :; do
  ended=$(kubectl get job "$job" -o jsonpath='{.status.succeeded} {.status.failed}' | awk '{print $1 + $2}')
  [[ "$ended" -ge "$shards" ]] && break
  if (( $(date +%s) > deadline )); then
    echo "run.sh: only $ended of $shards shards ended within JOB_TIMEOUT=${JOB_TIMEOUT:-3600} s; collecting what ended" >&2
    break
  fi
  sleep 5
done
mkdir -p "$job-logs"
rm -f "$job-logs"/shard-*.hlog
unfinished=() errors=() slo=() behind=() merged=()
for ((i = 0; i < shards; i++)); do
  pod=$(kubectl get pods -l "job-name=$job,batch.kubernetes.io/job-completion-index=$i" -o name | head -n 1)
  if [[ -z "$pod" ]]; then
    echo "run.sh: shard $i: no pod (never created or already deleted)" >&2; unfinished+=("$i"); continue
  fi
  log=$(mktemp)
  kubectl logs "$pod" > "$log" || true
  grep -E 'late for --start-at' "$log" >&2 || true
  # The pod's log mixes bench-load's messages in; an interval log's lines are its header, legend and Tag= lines
  # (the pattern of shard.sh), and shard.sh's last line holds bench-load's exit status and their checksum.
  grep -E '^(#\[|"StartTimestamp"|Tag=)' "$log" > "$job-logs/shard-$i.part" || true
  end=$(grep -E '^execbench-shard ' "$log" | tail -n 1 || true)
  rm -f "$log"
  status=$(sed -n 's/.* exit=\([0-9]*\) .*/\1/p' <<<"$end")
  want=$(sed -n 's/.* cksum=\([0-9]*\/[0-9]*\).*/\1/p' <<<"$end")
  have=$(cksum < "$job-logs/shard-$i.part" | tr ' ' '/')
  if [[ -z "$end" ]]; then
    echo "run.sh: shard $i did not finish: its log has no end line (a crash, an eviction, or still running at the deadline); not merged" >&2
    unfinished+=("$i"); continue
  elif [[ "$want" != "$have" ]]; then
    echo "run.sh: shard $i: its interval log arrived cut off (checksum $have, the shard wrote $want): kubelet rotates container logs (containerLogMaxSize, 10 MiB by default); not merged" >&2
    unfinished+=("$i"); continue
  fi
  case $status in
    0) ;;
    1) echo "run.sh: shard $i had request errors; merged (they are part of the result)" >&2; errors+=("$i") ;;
    3) echo "run.sh: shard $i broke an --slo gate; merged" >&2; slo+=("$i") ;;
    4) echo "run.sh: shard $i fell behind its rate (requests unsent); merged" >&2; behind+=("$i") ;;
    *) echo "run.sh: shard $i did not run its load (bench-load exit $status; its messages are in kubectl logs $pod); not merged" >&2
       unfinished+=("$i"); continue ;;
  esac
  mv "$job-logs/shard-$i.part" "$job-logs/shard-$i.hlog"
  merged+=("$job-logs/shard-$i.hlog")
done
rm -f "$job-logs"/shard-*.part
if (( ${#unfinished[@]} > 0 )); then
  echo "run.sh: shard(s) ${unfinished[*]} of $shards did not finish; the others' logs hold only part of the load" >&2
  if [[ "${PARTIAL:-0}" != 1 || ${#merged[@]} -eq 0 ]]; then
    echo "run.sh: no merge (PARTIAL=1 merges the ${#merged[@]} finished shard(s) anyway)" >&2
    exit 2
  fi
  echo "run.sh: PARTIAL=1: merging ${#merged[@]} of $shards shards, about ${#merged[@]}/$shards of the planned load" >&2
fi
"$bench_report" merge "${merged[@]}" "$@" || exit 2
(( ${#unfinished[@]} > 0 )) && exit 2
(( ${#errors[@]} > 0 )) && exit 1
(( ${#slo[@]} > 0 )) && exit 3
(( ${#behind[@]} > 0 )) && exit 4
exit 0
