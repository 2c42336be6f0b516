#!/bin/sh
# One shard of an Indexed Job (docs/distributed.md): bench-load with --shard from the completion index and the
# Job's common --start-at. Its interval log goes to standard output, everything else to standard error, so that
# `kubectl logs` of the pod carries the log (run.sh keeps the log's lines only).
set -eu
: "${JOB_COMPLETION_INDEX:?set by Kubernetes for an Indexed Job}"
: "${SHARDS:?the completions of the Job}"
: "${START_AT:?the common start, milliseconds since the epoch}"
hlog=${SHARD_HLOG:-/tmp/shard.hlog}
status=0
bench-load --shard "$JOB_COMPLETION_INDEX/$SHARDS" --start-at "$START_AT" --quiet \
  --hlog "$hlog" --out "${hlog%.hlog}.csv" "$@" >&2 || status=$?
if [ -f "$hlog" ]; then cat "$hlog"; fi
# The last line carries bench-load's verdict and a checksum of the interval log's lines (the lines run.sh keeps:
# header, legend, intervals), so run.sh can tell a finished shard from one cut off by a crash or by kubelet's log
# rotation, and report each shard's verdict.
sum=$(grep -E '^(#\[|"StartTimestamp"|Tag=)' "$hlog" 2>/dev/null | cksum)
echo "execbench-shard $JOB_COMPLETION_INDEX/$SHARDS exit=$status cksum=$(echo "$sum" | tr ' ' '/')"
case $status in
  # The shard ran its load: request errors (1), a broken --slo gate (3) and a generator behind its rate (4) are
  # data for the merge, not a failed pod, so the Job neither fails nor stops the other shards for them.
  0 | 1 | 3 | 4) exit 0 ;;
  # 2: it never started (a bad argument, a failed pre-flight request); anything else: it crashed. The pod fails.
  *) exit "$status" ;;
esac
