#!/bin/sh
# One shard of an Indexed Job (docs/distributed.md): bench-load with --shard from the completion index and the
# Job's common --start-at. Its interval log goes to standard output, everything else to standard error, so that
# `kubectl logs` of the pod carries the log (collect.sh keeps the log's lines only).
set -eu
: "${JOB_COMPLETION_INDEX:?set by Kubernetes for an Indexed Job}"
: "${SHARDS:?the Job's completions}"
: "${START_AT:?the common start, milliseconds since the epoch}"
status=0
bench-load --shard "$JOB_COMPLETION_INDEX/$SHARDS" --start-at "$START_AT" --quiet \
  --hlog /tmp/shard.hlog --out /tmp/shard.csv "$@" >&2 || status=$?
# A run with failed requests (exit 1) still has a log worth merging; a run that never started (2) has none.
if [ -f /tmp/shard.hlog ]; then cat /tmp/shard.hlog; fi
exit "$status"
