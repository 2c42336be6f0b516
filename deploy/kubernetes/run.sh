#!/usr/bin/env bash
# One distributed run on the current kubectl context: N bench-load shards as an Indexed Job with a common start,
# then the exact merge of their interval logs. Usage:
#   deploy/kubernetes/run.sh SCENARIO SHARDS [TARGET_URL] [MERGE_ARGS...]
#   deploy/kubernetes/run.sh io-600 3 http://bench-server:8080 --from 10 --to 50
# Needs: the image execbench:dev where the nodes can pull it, results-volume.yaml applied, and a target (for
# instance bench-server.yaml). START_LEAD (seconds, default 30) is how far ahead the common start is set: long
# enough for every pod to be scheduled and started, or a shard starts late and says so in its log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
scenario=${1:?scenario name}; shards=${2:?number of shards}; target=${3:-http://bench-server:8080}
shift $(( $# < 3 ? $# : 3 ))
merge_args="$*"
run=r$(date -u +%Y%m%d%H%M%S)
start_at=$(( $(date +%s) * 1000 + ${START_LEAD:-30} * 1000 ))

render() {
  sed -e "s|@SHARDS@|$shards|g" -e "s|@START_AT@|$start_at|g" -e "s|@SCENARIO@|$scenario|g" \
      -e "s|@TARGET@|$target|g" -e "s|@RUN@|$run|g" -e "s|@MERGE_ARGS@|$merge_args|g" "$here/$1"
}

echo "run $run: $shards shard(s) of $scenario against $target, common start at $start_at ms since the epoch"
render bench-load-job.yaml | kubectl apply -f -
# The wait is bounded: the lead, the scenario's length and a margin; a Job that fails ends the wait at once.
kubectl wait --for=condition=complete --timeout="${JOB_TIMEOUT:-3600s}" "job/execbench-load-$run" &
complete=$!
kubectl wait --for=condition=failed --timeout="${JOB_TIMEOUT:-3600s}" "job/execbench-load-$run" &
failed=$!
wait -n "$complete" "$failed" || true
kill "$complete" "$failed" 2>/dev/null || true
# Each shard's own lines: its share, whether it started late, its trial and summary.
for pod in $(kubectl get pods -l "job-name=execbench-load-$run" -o name); do
  echo "--- $pod"
  kubectl logs "$pod" || true
done
if ! kubectl get "job/execbench-load-$run" -o jsonpath='{.status.succeeded}' | grep -qx "$shards"; then
  echo "run $run: not every shard succeeded; no merge (a missing shard's share would be missing from it)" >&2
  exit 1
fi
render merge-pod.yaml | kubectl apply -f -
kubectl wait --for=jsonpath='{.status.phase}'=Succeeded --timeout=300s "pod/execbench-merge-$run"
kubectl logs "pod/execbench-merge-$run"
