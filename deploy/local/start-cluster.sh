#!/usr/bin/env bash
# Start a Dask scheduler and workers on this machine (127.0.0.1) in the background.
#
#   deploy/local/start-cluster.sh [PORT] [WORKERS] [STATE_DIR]
#
# Prints the scheduler address; `dbayes run JOB.toml --scheduler tcp://127.0.0.1:PORT` then runs on it, and
# deploy/local/stop-cluster.sh STATE_DIR stops it. Uses the `dask scheduler` / `dask worker` commands
# (the hyphenated dask-scheduler/dask-worker were removed in distributed 2026.6).
set -euo pipefail
port=${1:-8786}
workers=${2:-2}
state=${3:-${TMPDIR:-/tmp}/dbayes-cluster-$port}
mkdir -p "$state"
python3 -m distributed.cli.dask_scheduler --host 127.0.0.1 --port "$port" --dashboard-address 127.0.0.1:0 \
  --scheduler-file "$state/scheduler.json" >"$state/scheduler.log" 2>&1 &
echo $! >"$state/pids"
for _ in $(seq 1 100); do
  [ -s "$state/scheduler.json" ] && break
  sleep 0.1
done
[ -s "$state/scheduler.json" ] || { echo "scheduler did not start; see $state/scheduler.log" >&2; exit 1; }
for i in $(seq 1 "$workers"); do
  python3 -m distributed.cli.dask_worker "tcp://127.0.0.1:$port" --nthreads 1 --host 127.0.0.1 \
    --name "worker-$i" --local-directory "$state/worker-$i" >"$state/worker-$i.log" 2>&1 &
  echo $! >>"$state/pids"
done
python3 - "$port" "$workers" <<'PY'
import sys
from distributed import Client
with Client(f"tcp://127.0.0.1:{sys.argv[1]}", timeout="30s") as c:
    c.wait_for_workers(int(sys.argv[2]), timeout=60)
PY
echo "tcp://127.0.0.1:$port"
