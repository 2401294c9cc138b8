#!/usr/bin/env bash
# The "where" benchmark (issue 18): `where IMAGE` over the 500-app lab fleet side by side with the
# summary of the same fleet (the reference), in one process on the same loopback registry and git
# server (fleet/where_bench_test.go). Two fleets: 500 apps over 150 repositories (the
# asked one feeds 4 apps) and 500 apps over one repository (every app uses it: where diagnoses
# them all). Prints each benchmark's median time, bytes and allocations per answer over COUNT rounds
# (default 5) and where's ratios to summary. The runs alternate: the test binary is built once, and
# each round runs every benchmark once (-test.count=1, a process each), where and its summary side
# by side, the order reversed every other round, so that a change in the machine's load falls on
# both. (go test -count N would run one benchmark N times, then the next N times.)
#
#   COUNT=10 bench/where.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
COUNT=${COUNT:-5}
out=$(mktemp)
bin=$(mktemp)
trap 'rm -f "$out" "$bin"' EXIT
"$GO" test -c -o "$bin" ./fleet
order=(Where500 Summary500 Where500OneRepo Summary500OneRepo)
for ((round = 1; round <= COUNT; round++)); do
  names=("${order[@]}")
  if ((round % 2 == 0)); then # the other way round: summary before where
    names=(Summary500 Where500 Summary500OneRepo Where500OneRepo)
  fi
  for name in "${names[@]}"; do
    (cd fleet && "$bin" -test.run '^$' -test.bench "^Benchmark${name}\$" -test.benchmem -test.count 1) | tee -a "$out" | grep -E '^(Benchmark|FAIL)' >&2
  done
done
awk '
  /^Benchmark/ {
    name = $1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
    n[name]++; ns[name, n[name]] = $3; by[name, n[name]] = $5; al[name, n[name]] = $7
  }
  function median(arr, name, k,   i, j, t, v) {
    for (i = 1; i <= k; i++) v[i] = arr[name, i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
  }
  END {
    printf "\n%-22s %12s %12s %12s\n", "benchmark (median)", "ms/answer", "MiB/answer", "allocs"
    for (name in n) {
      t[name] = median(ns, name, n[name]); b[name] = median(by, name, n[name]); a[name] = median(al, name, n[name])
      printf "%-22s %12.1f %12.1f %12d\n", name, t[name] / 1e6, b[name] / 1048576, a[name]
    }
    printf "\n%-30s %8s %8s %8s\n", "where / summary", "time", "bytes", "allocs"
    split("500 500OneRepo", f, " ")
    for (i = 1; i <= 2; i++) {
      w = "Where" f[i]; s = "Summary" f[i]
      if ((w in t) && (s in t) && t[s] > 0)
        printf "%-30s %8.2f %8.2f %8.2f\n", f[i] == "500" ? "500 apps, 150 repositories" : "500 apps, one repository", t[w] / t[s], b[w] / b[s], a[w] / a[s]
    }
  }' "$out"
