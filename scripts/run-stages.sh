#!/usr/bin/env bash
# Run make targets as timed stages (make test): "== <target>: N s (CPU M s)" as each ends, then
# "== <label>: N s" for the whole run. CPU is the user + system time of the target's processes,
# which a busy machine changes less than the wall time. Usage:
#   run-stages.sh LABEL STAGE...
# A STAGE is a target, or targets joined by "+" (e.g. test-r+check-r), which run two at a
# time in the order given (the machine has two cores and these targets use one each), each into
# build/stage-<target>.log, printed when the stage ends. The first stage that fails stops the
# run and gives its status.
set -uo pipefail
make=${MAKE:-make}
jobs=${STAGE_JOBS:-2}
label=$1; shift
mkdir -p build

# run_target TARGET: make TARGET and print its wall and CPU times (of its child processes).
run_target() {
  local start=$SECONDS status cpu
  "$make" --no-print-directory "$1"; status=$?
  # (times, a builtin, into a file: in a command substitution it would time a new subshell)
  times > "build/.times-$1"
  cpu=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += 60 * a[1] + a[2] } printf "%.0f", t }' "build/.times-$1")
  rm -f "build/.times-$1"
  echo "== $1: $((SECONDS - start)) s (CPU $cpu s)"
  return $status
}

run_start=$SECONDS
for stage in "$@"; do
  IFS=+ read -r -a targets <<< "$stage"
  status=0
  if [ ${#targets[@]} -eq 1 ]; then
    (run_target "$stage") || status=$?
  else
    start=$SECONDS
    running=0
    for target in "${targets[@]}"; do
      if [ "$running" -ge "$jobs" ]; then
        wait -n || status=1
        running=$((running - 1))
      fi
      (run_target "$target" > "build/stage-$target.log" 2>&1) &
      running=$((running + 1))
    done
    while [ "$running" -gt 0 ]; do
      wait -n || status=1
      running=$((running - 1))
    done
    for target in "${targets[@]}"; do
      cat "build/stage-$target.log"
    done
    echo "== $stage: $((SECONDS - start)) s"
  fi
  if [ "$status" -ne 0 ]; then
    echo "== $label: failed in stage $stage after $((SECONDS - run_start)) s"
    exit "$status"
  fi
done
echo "== $label: $((SECONDS - run_start)) s"
