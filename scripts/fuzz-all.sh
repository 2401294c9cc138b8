#!/usr/bin/env bash
# Runs every Go fuzz target in the module for $FUZZTIME (default 10s) each.
# Go fuzzes one target per invocation, so targets are found and run one by one,
# $FUZZJOBS at a time (default: the number of CPUs), each with one fuzzing worker
# (-parallel 1): the same CPU time as one target at a time with a worker per CPU,
# in a fraction of the wall time. Each package's fuzzing test binary (coverage-
# instrumented: go test -c -fuzz) is built once, before any target runs, and every
# target of the package runs that binary in the package's directory, as go test
# would: no target waits for a link, nor for the go command, while the others fuzz.
#
# FUZZ_INSTRUMENT says which packages carry the coverage counters that guide the fuzzer:
#   all     (default) every package of the binary, as `go test -fuzz` builds it: the whole dependency
#           tree (client-go, api, go-git...) is compiled again, instrumented, apart from every other tier;
#   module  this module's packages only (-gcflags=MODULE/...=-d=libfuzzer, the flag -fuzz adds), the
#           dependencies as the unit tier compiled them: the fuzzer is guided by the code the targets
#           are about, and a cold run compiles about 70 packages for fuzzing instead of about 1,100.
#           make test uses it; `make fuzz` (longer runs) keeps Go's default.
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
FUZZJOBS=${FUZZJOBS:-$(nproc 2>/dev/null || echo 2)}
FUZZ_INSTRUMENT=${FUZZ_INSTRUMENT:-all}
case $FUZZ_INSTRUMENT in all | module) ;; *) echo "fuzz-all: FUZZ_INSTRUMENT is all or module, not $FUZZ_INSTRUMENT" >&2; exit 64 ;; esac

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

# binary DIR: the package's fuzzing test binary, built by build_binaries.
binary() { printf '%s/%s.test' "$bins" "$(printf '%s' "${1#./}" | tr -c 'A-Za-z0-9_.' '_')"; }

run_one() { # dir name log: what `go test DIR -run '^$' -fuzz NAME -parallel 1` runs
  local bin ip
  bin=$(binary "$1")
  ip=$(cat "$bin.importpath")
  (cd "$1" && "$bin" -test.paniconexit0 -test.timeout=10m -test.run='^$' -test.fuzz="^${2}\$" \
    -test.fuzztime="$FUZZTIME" -test.parallel=1 -test.fuzzcachedir="$gocache/fuzz/$ip") >"$3" 2>&1
}

# fuzz_target DIR NAME: one target, re-run once after the deadline race; its
# verdict goes to $results/KEY (ok, flaked-ok, or the log's tail), KEY naming
# the package too (FuzzParse is in more than one).
fuzz_target() {
  local dir=$1 name=$2 key
  key=$(printf '%s' "${dir#./}.$name" | tr -c 'A-Za-z0-9_.' '_')
  local log="$results/$key.log" out="$results/$key"
  if [ ! -x "$(binary "$dir")" ]; then
    { echo "FAIL fuzz $dir $name: the fuzzing test binary did not build:"; tail -30 "$(binary "$dir").log"; } >"$out"
    return
  fi
  if run_one "$dir" "$name" "$log"; then echo ok >"$out"; return; fi
  if deadline_flake "$log"; then
    if run_one "$dir" "$name" "$log"; then echo flaked-ok >"$out"; return; fi
  fi
  { echo "FAIL fuzz $dir $name:"; tail -30 "$log"; } >"$out"
}

results=$(mktemp -d)
bins=$(mktemp -d)
trap 'rm -rf "$results" "$bins"' EXIT
gocache=$("$GO" env GOCACHE)
module=$("$GO" list -m)
files=$(grep -rl --include='*_test.go' -E '^func Fuzz' . | sed 's|^\./||' | sort)

# One instrumented test binary per package, $FUZZJOBS packages at a time: the go command
# compiles a package's dependencies in parallel, but links each binary on one CPU.
instrument=(-fuzz=.)
# A -gcflags for this module's packages replaces, for them, the Makefile's -gcflags=all=-dwarf=false:
# it is given again (the instrumented packages are compiled for fuzzing only; no DWARF needed).
[ "$FUZZ_INSTRUMENT" = all ] || instrument=("-gcflags=$module/...=-d=libfuzzer -dwarf=false")
build_binary() {
  local dir=$1 bin
  bin=$(binary "$dir")
  if "$GO" test -c "${instrument[@]}" -o "$bin" "$dir" >"$bin.log" 2>&1; then
    echo "$module/${dir#./}" >"$bin.importpath"
  else
    rm -f "$bin"
  fi
}
# The package with the most dependencies is built first, alone: its go command compiles the
# instrumented dependency tree (nearly all of the others') on every CPU, once. Built beside it, a
# second go command would compile the same packages again (go commands share finished cache
# entries, not work in progress): on a cold cache, that doubled the tier's build.
start=$SECONDS
dirs=$("$GO" list -f '{{len .Deps}} {{.ImportPath}}' $(for f in $files; do echo "./$(dirname "$f")"; done | sort -u) |
  sort -k1,1nr -k2 | while read -r _ ip; do echo "./${ip#"$module"/}"; done)
first=1
for dir in $dirs; do
  while [ "$(jobs -rp | wc -l)" -ge "$FUZZJOBS" ]; do wait -n || true; done
  if [ "$first" = 1 ]; then build_binary "$dir"; first=0; else build_binary "$dir" & fi
done
wait
echo "fuzz: test binaries built in $((SECONDS - start)) s (instrumented: $FUZZ_INSTRUMENT)"

count=0
for file in $files; do
  dir=./$(dirname "$file")
  for name in $(grep -oE '^func (Fuzz[A-Za-z0-9_]+)\(' "$file" | sed -E 's/^func (Fuzz[A-Za-z0-9_]+)\(/\1/'); do
    count=$((count + 1))
    echo "fuzz $dir $name ($FUZZTIME)"
    while [ "$(jobs -rp | wc -l)" -ge "$FUZZJOBS" ]; do wait -n || true; done
    fuzz_target "$dir" "$name" &
  done
done
wait
failed=0
flaked=0
for r in "$results"/*; do
  case $r in *.log) continue ;; esac
  case $(head -1 "$r") in
    ok) ;;
    flaked-ok) flaked=$((flaked + 1)) ;;
    *) cat "$r"; failed=$((failed + 1)) ;;
  esac
done
echo "fuzz: $((count - failed)) passed, $failed failed ($flaked re-run after the deadline race)"
[ "$failed" -eq 0 ]
