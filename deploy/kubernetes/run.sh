#!/usr/bin/env bash
# Runs job.yaml with a common start DELAY seconds ahead, waits for every shard, collects their interval logs from
# `kubectl logs` and merges them (docs/distributed.md). Usage: deploy/kubernetes/run.sh [DELAY_SECONDS] [MERGE ARGS…]
set -euo pipefail
here=$(dirname "$0")
delay=${1:-60}
shift || true
job=execbench-load
start_at=$(( ($(date +%s) + delay) * 1000 ))
shards=$(sed -n 's/^ *completions: *\([0-9]*\).*/\1/p' "$here/job.yaml")
kubectl delete job "$job" --ignore-not-found
sed "s/__START_AT__/$start_at/" "$here/job.yaml" | kubectl apply -f -
echo "run.sh: $shards shards start at $start_at ($(date -u -d "@$((start_at / 1000))" +%FT%TZ))"
# Every shard ends by itself (its duration plus at most the request timeout); a pod that failed may still hold a log
# (exit 1: requests failed), so wait for all of them to end either way.
# The wait is bounded (JOB_TIMEOUT seconds after the start, default 3600): a shard stuck unscheduled ends it.
deadline=$(( start_at / 1000 + ${JOB_TIMEOUT:-3600} ))
while :; do
  done_count=$(kubectl get job "$job" -o jsonpath='{.status.succeeded} {.status.failed}' |
               awk '{print $1 + $2}')
  [[ "$done_count" -ge "$shards" ]] && break
  if (( $(date +%s) > deadline )); then
    echo "run.sh: only $done_count of $shards shards ended within JOB_TIMEOUT=${JOB_TIMEOUT:-3600} s; no merge" >&2
    exit 1
  fi
  sleep 5
done
failed=$(kubectl get job "$job" -o jsonpath='{.status.failed}')
[[ -n "$failed" && "$failed" != 0 ]] && echo "run.sh: $failed shard(s) failed; their messages follow" >&2
mkdir -p "$job-logs"
for ((i = 0; i < shards; i++)); do
  pod=$(kubectl get pods -l "job-name=$job,batch.kubernetes.io/job-completion-index=$i" -o name | head -n 1)
  # The pod's log mixes bench-load's messages in; an interval log's lines are its header, legend and Tag= lines.
  kubectl logs "$pod" | grep -E '^(#\[|"StartTimestamp"|Tag=)' > "$job-logs/shard-$i.hlog"
  kubectl logs "$pod" | grep -E 'late for --start-at' >&2 || true
done
bench-report merge "$job-logs"/shard-*.hlog "$@"
