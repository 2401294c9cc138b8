#!/usr/bin/env bash
# Measures the Slack bot against the local Slack server (bot/slacklab) and the
# embedded lab, each against a reference run in the same process, and prints
# the ratios: ack latency (bot vs a bare socketmode client that acks at once),
# command → posted report (bot vs diagnose + render + chat.postMessage inline),
# peak heap with 50 concurrent diagnoses (bot vs 50 diagnoses rendered without
# Slack). BENCHTIME (default 40x) and COUNT (default 3) tune it. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
BENCHTIME=${BENCHTIME:-40x}
COUNT=${COUNT:-3}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$GO" test ./bot/ -run '^$' -bench . -benchtime "$BENCHTIME" -count "$COUNT" | tee "$out"
awk '
  /^Benchmark/ {
    name=$1; sub(/-[0-9]+$/, "", name)
    for (i=5; i<=NF; i+=2) { key=name " " $(i+1); sum[key]+=$i; n[key]++ }
  }
  function m(k) { return n[k] ? sum[k]/n[k] : 0 }
  END {
    a="BenchmarkAck/"; r="BenchmarkCommandToReport/"; p="BenchmarkMemory50Concurrent/"
    printf "\nmeans over %d runs:\n", n[a "bot ack-mean-ms"]
    printf "  ack latency, mean      bot %7.3f ms  reference %7.3f ms  ratio %.2f\n", m(a "bot ack-mean-ms"), m(a "reference ack-mean-ms"), m(a "bot ack-mean-ms")/m(a "reference ack-mean-ms")
    printf "  ack latency, p99       bot %7.3f ms  reference %7.3f ms  (Slack allows 3000 ms)\n", m(a "bot ack-p99-ms"), m(a "reference ack-p99-ms")
    printf "  command → report, mean bot %7.3f ms  reference %7.3f ms  ratio %.2f\n", m(r "bot report-mean-ms"), m(r "reference report-mean-ms"), m(r "bot report-mean-ms")/m(r "reference report-mean-ms")
    printf "  command → report, p99  bot %7.3f ms  reference %7.3f ms\n", m(r "bot report-p99-ms"), m(r "reference report-p99-ms")
    printf "  peak heap, 50 at once  bot %7.2f MB  reference %7.2f MB  ratio %.2f\n", m(p "bot peak-heap-MB"), m(p "reference peak-heap-MB"), m(p "bot peak-heap-MB")/m(p "reference peak-heap-MB")
  }' "$out"
