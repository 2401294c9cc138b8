#!/usr/bin/env bash
# Runs every Go fuzz target in the module for $FUZZTIME (default 10s) each.
# Go fuzzes one target per invocation, so targets are found and run one by one.
#
# Go 1.26's fuzz coordinator has a race at the -fuzztime boundary (golang/go#75804, fixed in Go 1.27):
# when the deadline fires while a worker is mid-call, the target fails with a bare
# "context deadline exceeded" although nothing was found. A real finding always prints
# "Failing input written to testdata/fuzz/..." (or a panic / t.Fatal message). So a run that
# failed with only that deadline line, and wrote no reproducer, is run once more; a second
# failure of any kind fails the job. Anything else fails at once.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10s}

# deadline_flake LOG: true when LOG is the coordinator race and nothing else.
deadline_flake() {
  local log=$1
  grep -q 'context deadline exceeded' "$log" || return 1
  # A finding names its reproducer or shows what went wrong.
  ! grep -qE 'Failing input written|panic:|fuzz_test\.go:[0-9]+:|_test\.go:[0-9]+:|hung or terminated|race detected' "$log"
}

# Self-check of the classifier on the two shapes it must tell apart.
selfcheck() {
  local d; d=$(mktemp -d)
  printf -- '--- FAIL: FuzzX (11.07s)\n    context deadline exceeded\nFAIL\n' >"$d/flake"
  printf -- '--- FAIL: FuzzX (0.20s)\n    --- FAIL: FuzzX (0.00s)\n        fuzz_test.go:33: line 1 longer than the cap\n    Failing input written to testdata/fuzz/FuzzX/abc\n    context deadline exceeded\nFAIL\n' >"$d/real"
  deadline_flake "$d/flake" || { echo "fuzz-all: classifier self-check failed (flake)"; exit 2; }
  if deadline_flake "$d/real"; then echo "fuzz-all: classifier self-check failed (real)"; exit 2; fi
  rm -rf "$d"
}
selfcheck

run_one() { # dir name log
  "$GO" test "$1" -run '^$' -fuzz "^${2}\$" -fuzztime "$FUZZTIME" >"$3" 2>&1
}

failed=0
count=0
flaked=0
while IFS= read -r file; do
  dir=./$(dirname "$file")
  for name in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)\(' "$file" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/'); do
    count=$((count + 1))
    echo "fuzz $dir $name ($FUZZTIME)"
    log="/tmp/fuzz-$name.log"
    if run_one "$dir" "$name" "$log"; then continue; fi
    if deadline_flake "$log"; then
      flaked=$((flaked + 1))
      echo "  $name: bare 'context deadline exceeded' with no reproducer (golang/go#75804); running it once more"
      if run_one "$dir" "$name" "$log"; then continue; fi
    fi
    echo "FAIL fuzz $name:"; tail -30 "$log"; failed=$((failed + 1))
  done
done < <(grep -rl --include='*_test.go' -E '^func Fuzz' . | sed 's|^\./||' | sort)
echo "fuzz: $((count - failed)) passed, $failed failed ($flaked re-run after the deadline race)"
[ "$failed" -eq 0 ]
