#!/usr/bin/env bash
# Runs the test tiers named as arguments (make targets: vet fmt-check unit race fuzz e2e
# dockerfile-test) and prints each tier's wall time at the end, also when one failed:
#
#   test tiers (wall time):
#     vet                  11 s  ok
#     unit                180 s  ok     lane 1
#     e2e                 230 s  ok     lane 2 (beside lane 1)
#     …
#     total               520 s  (wall)
#   tiers: 7 passed, 0 failed
#
# An argument is one tier, or lanes run at the same time: "unit,race,fuzz|e2e,dockerfile-test" runs
# unit, race and fuzz one after the other while e2e and then dockerfile-test run beside them. The
# e2e tier mostly waits (on its API servers, the bot's processes and their loopback peers) and the
# others mostly compute, so beside each other they fill the CPUs one after the other leave idle.
# Within a lane, and between arguments, the run stops at the first tier that fails; lanes already
# running finish their current tier list up to their own first failure. The first lane's output is
# shown as it comes; the other lanes' is kept and shown, whole, when the group ends.
#
# MAKE names the make to call (the Makefile passes its own). TIERS_LOG, when set, is a file the
# table is appended to as well.
set -uo pipefail
MAKE=${MAKE:-make}
rec=$(mktemp -d)
trap 'rm -rf "$rec"' EXIT

# lane RECORD LABEL TIER...: the tiers one after the other, stopping at the first that fails; a line
# "tier seconds verdict label" per tier run goes to RECORD.
lane() {
  local out=$1 label=$2 tier start v
  shift 2
  for tier in "$@"; do
    start=$SECONDS
    echo "=== tier $tier"
    if "$MAKE" --no-print-directory "$tier"; then v=ok; else v=FAILED; fi
    echo "$tier $((SECONDS - start)) $v $label" >>"$out"
    [ "$v" = ok ] || return 1
  done
}

begin=$SECONDS
status=0
n=0
for arg in "$@"; do
  [ "$status" -eq 0 ] || break
  n=$((n + 1))
  if [[ $arg != *"|"* ]]; then
    lane "$rec/$n.0" - "$arg" || status=1
    continue
  fi
  IFS='|' read -ra lanes <<<"$arg"
  pids=()
  for i in "${!lanes[@]}"; do
    IFS=',' read -ra ts <<<"${lanes[$i]}"
    label="lane $((i + 1))"
    [ "$i" -eq 0 ] || label="$label (beside lane 1)"
    if [ "$i" -eq 0 ]; then
      lane "$rec/$n.$i" "$label" "${ts[@]}" &
    else
      lane "$rec/$n.$i" "$label" "${ts[@]}" >"$rec/$n.$i.log" 2>&1 &
    fi
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  for i in "${!lanes[@]}"; do
    [ "$i" -gt 0 ] || continue
    echo "=== lane $((i + 1)), run beside lane 1: ${lanes[$i]//,/ }"
    cat "$rec/$n.$i.log"
  done
done
wall=$((SECONDS - begin))

table() {
  local f tier secs v label shown passed=0 failed=0 all=" " arg t
  printf '\ntest tiers (wall time):\n'
  for f in $(ls "$rec" | grep -v '\.log$' | sort -t. -k1,1n -k2,2n); do
    while read -r tier secs v label; do
      if [ "$label" = - ]; then shown=$v; else shown=$(printf '%-7s %s' "$v" "$label"); fi
      printf '  %-16s %6d s  %s\n' "$tier" "$secs" "$shown"
      all="$all$tier "
      case $v in ok) passed=$((passed + 1)) ;; FAILED) failed=$((failed + 1)) ;; esac
    done <"$rec/$f"
  done
  for arg in "$@"; do
    for t in ${arg//[|,]/ }; do
      case $all in *" $t "*) ;; *) printf '  %-16s %6d s  %s\n' "$t" 0 "not run" ;; esac
    done
  done
  printf '  %-16s %6d s  (wall)\n' total "$wall"
  printf 'tiers: %d passed, %d failed\n' "$passed" "$failed"
}
table "$@"
[ -z "${TIERS_LOG:-}" ] || table "$@" >>"$TIERS_LOG"
exit "$status"
