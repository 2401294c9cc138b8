#!/usr/bin/env bash
# Runs every Go fuzz target in the module for $FUZZTIME (default 10s) each.
# Go fuzzes one target per invocation, so targets are found and run one by one.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10s}
failed=0
count=0
while IFS= read -r file; do
  dir=./$(dirname "$file")
  for name in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)\(' "$file" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/'); do
    count=$((count + 1))
    echo "fuzz $dir $name ($FUZZTIME)"
    if ! "$GO" test "$dir" -run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" >"/tmp/fuzz-$name.log" 2>&1; then
      echo "FAIL fuzz $name:"; tail -30 "/tmp/fuzz-$name.log"; failed=$((failed + 1))
    fi
  done
done < <(grep -rl --include='*_test.go' -E '^func Fuzz' . | sed 's|^\./||' | sort)
echo "fuzz: $((count - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
