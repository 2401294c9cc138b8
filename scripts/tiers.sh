#!/usr/bin/env bash
# Runs the test tiers named as arguments (make targets: vet fmt-check unit race fuzz e2e
# dockerfile-test), one after the other as `make test` always did, stopping at the first that
# fails, and prints each tier's wall time at the end, also when one failed:
#
#   test tiers (wall time):
#     vet                  41 s  ok
#     …
#     total              1210 s
#   tiers: 7 passed, 0 failed
#
# MAKE names the make to call (the Makefile passes its own). TIERS_LOG, when set, is a file the
# table is appended to as well.
set -uo pipefail
MAKE=${MAKE:-make}
names=() secs=() verdicts=()
table() {
  local total=0 i passed=0 failed=0
  printf '\ntest tiers (wall time):\n'
  for i in "${!names[@]}"; do
    printf '  %-16s %6d s  %s\n' "${names[$i]}" "${secs[$i]}" "${verdicts[$i]}"
    total=$((total + secs[i]))
    case ${verdicts[$i]} in ok) passed=$((passed + 1)) ;; FAILED) failed=$((failed + 1)) ;; esac
  done
  printf '  %-16s %6d s\n' total "$total"
  printf 'tiers: %d passed, %d failed\n' "$passed" "$failed"
}
status=0
for tier in "$@"; do
  start=$SECONDS
  echo "=== tier $tier"
  if "$MAKE" --no-print-directory "$tier"; then v=ok; else v=FAILED; status=1; fi
  names+=("$tier") secs+=($((SECONDS - start))) verdicts+=("$v")
  [ "$status" -eq 0 ] || break
done
for tier in "$@"; do
  case " ${names[*]} " in *" $tier "*) ;; *) names+=("$tier") secs+=(0) verdicts+=("not run") ;; esac
done
table
[ -z "${TIERS_LOG:-}" ] || table >>"$TIERS_LOG"
exit "$status"
