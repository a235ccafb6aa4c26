#!/usr/bin/env bash
# Stop the scheduler and workers started by start-cluster.sh:  deploy/local/stop-cluster.sh STATE_DIR
set -u
state=${1:?usage: stop-cluster.sh STATE_DIR}
[ -f "$state/pids" ] || exit 0
# workers first, then the scheduler
tac "$state/pids" | while read -r pid; do kill "$pid" 2>/dev/null || true; done
for _ in $(seq 1 50); do
  alive=0
  while read -r pid; do kill -0 "$pid" 2>/dev/null && alive=1; done <"$state/pids"
  [ $alive = 0 ] && break
  sleep 0.1
done
while read -r pid; do kill -9 "$pid" 2>/dev/null || true; done <"$state/pids"
rm -f "$state/pids"
