#!/usr/bin/env bash
# Run the full test suite N times in a row (default 10) on a fresh clone of this repository's HEAD while two
# CPU-bound processes run beside it, and report how many runs passed and how long each took.
#   scripts/stress_tests.sh [RUNS] [HOGS]
# Exit 0 only if every run passed. Each run is bounded by `timeout` (default 1800 s, RUN_TIMEOUT=...).
set -u
RUNS=${1:-10}
HOGS=${2:-2}
RUN_TIMEOUT=${RUN_TIMEOUT:-1800}
SRC=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/memtui-stress-XXXXXX")
git clone -q "$SRC" "$WORK/clone"
cd "$WORK/clone" || exit 2
make .venv/.installed >/dev/null 2>&1 || { echo "could not build the venv"; exit 2; }
hog_pids=()
for _ in $(seq "$HOGS"); do
  python3 -c "while True: pass" &
  hog_pids+=($!)
done
cleanup() { for p in "${hog_pids[@]}"; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT
passed=0
for i in $(seq "$RUNS"); do
  start=$(date +%s)
  if timeout "$RUN_TIMEOUT" .venv/bin/python -m pytest -q -p no:cacheprovider >"$WORK/run-$i.log" 2>&1; then
    passed=$((passed + 1)); status=pass
  else
    status="FAIL (rc $?, log $WORK/run-$i.log)"
  fi
  echo "run $i/$RUNS: $status in $(( $(date +%s) - start )) s — $(tail -1 "$WORK/run-$i.log")"
done
echo "STRESS $passed/$RUNS runs passed beside $HOGS CPU hogs (clone: $WORK/clone)"
[ "$passed" -eq "$RUNS" ]
