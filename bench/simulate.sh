#!/usr/bin/env bash
# Measures `imgupd simulate` against the loopback registry and, in the same
# run, the plain go-containerregistry I/O the same decision needs, and prints
# the ratios the issues quote. BENCHTIME (default 20x) and COUNT (default 5)
# tune it. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
BENCHTIME=${BENCHTIME:-20x}
COUNT=${COUNT:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$GO" test ./simulate/ -run '^$' -bench . -benchtime "$BENCHTIME" -count "$COUNT" -benchmem | tee "$out"
awk '
  /^Benchmark/ { name=$1; sub(/-[0-9]+$/, "", name); sum[name]+=$3; n[name]++ }
  END {
    for (k in sum) mean[k]=sum[k]/n[k]
    printf "\nmeans over %d runs (ms/op):\n", n["BenchmarkSimulateSemver5000"]
    for (k in mean) printf "  %-40s %8.2f\n", k, mean[k]/1e6
    printf "\nsemver, 5,000 tags:      simulate / remote.List               = %.3f\n", mean["BenchmarkSimulateSemver5000"]/mean["BenchmarkBaselineList5000"]
    printf "                         model alone / remote.List            = %.3f  (target < 0.10)\n", mean["BenchmarkModelSemver5000"]/mean["BenchmarkBaselineList5000"]
    printf "newest-build, 200 tags:  simulate (cold) / plain list+configs = %.3f\n", mean["BenchmarkSimulateNewestBuild200"]/mean["BenchmarkBaselineMetadata200"]
    printf "                         simulate (warm) / plain list+configs = %.3f\n", mean["BenchmarkSimulateNewestBuild200Warm"]/mean["BenchmarkBaselineMetadata200"]
  }' "$out"
