#!/usr/bin/env bash
# The fleet benchmark (issue 10): fleets of 50, 200 and 500 Applications over
# 150 repositories of 50–2,000 tags, stored in a real kube-apiserver + etcd
# (the test/e2e tier), the repositories on a loopback registry; one scan each
# in a process of its own (test/e2e/fleetscan), whose peak RSS is the scan's
# alone. Prints what each scan cost next to Image Updater v1.3.0's figures
# from the issue and, when IMGUPD_FLEET_BENCH_IMAGE_UPDATER names an
# argocd-image-updater binary (built elsewhere: this script builds none), next
# to its own `run --once` over the same fleets in the same run.
#
#   IMGUPD_FLEET_BENCH_APPS=50,200,500        fleet sizes
#   IMGUPD_FLEET_BENCH_IMAGE_UPDATER=BINARY   the live reference
#   IMGUPD_FLEET_BENCH_PROFILE=DIR            pprof CPU and heap profiles of each scan
#
# See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
bin=$(GO=$GO ./scripts/e2e-deps.sh)
out=$(mktemp)
log=$(mktemp)
trap 'rm -f "$out" "$log"' EXIT
status=0
(cd test/e2e && IMGUPD_E2E_BIN=$bin IMGUPD_FLEET_BENCH=1 IMGUPD_FLEET_BENCH_OUT=$out \
  "$GO" test -count=1 -timeout 30m -run '^TestFleetBench$' -v .) >"$log" 2>&1 || status=$?
grep -E '^\s+fleet_bench_test.go|^(--- |FAIL|ok|PASS)' "$log" | cut -c1-400 || true
if [ ! -s "$out" ]; then
  echo "bench/fleet.sh: no results (the whole log follows)" >&2
  cat "$log" >&2
  exit 1
fi
awk -F'\t' '
  BEGIN {
    # Image Updater v1.3.0, run --once, nothing due (issue 10): wall (s), peak
    # RSS (MiB), registry requests per cycle (a ping and a tag list per app).
    rw[50] = 13.6; rr[50] = 131; rq[50] = 100
    rw[500] = 7.9; rr[500] = 144; rq[500] = 1000
  }
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  function v(name) { return $(col[name]) }
  function ratio(a, b) { return (b == "" || b == "-" || b == 0) ? "-" : sprintf("%.2f", a / b) }
  function or(x) { return x == "" ? "-" : x }
  {
    n = v("apps"); r = ++rows
    live = v("iu_wall_s") != "-"
    iuq = live ? sprintf("%d", v("iu_registry_requests") / v("iu_cycles")) : "-"
    refq = rq[n] ? rq[n] : 2 * n
    scan[r] = sprintf("%6d %9.2f %10d %6d / %-6d %6d %10.1f %9.2f   %s", n, v("wall_s"), v("registry_requests"), v("tag_lists"), v("live_repos"),
      v("kube_requests"), v("peak_rss_mib"), 1000 * v("wall_s") / n, v("states"))
    wall[r] = sprintf("%6d %9.2f %9s %9s %10s %10s", n, v("wall_s"), live ? sprintf("%.2f", v("iu_wall_s")) : "-", or(rw[n]),
      ratio(v("wall_s"), live ? v("iu_wall_s") : ""), ratio(v("wall_s"), rw[n]))
    reg[r] = sprintf("%6d %9d %9s %9s %10s %10s %9s", n, v("registry_requests"), iuq, rq[n] ? rq[n] : refq "*",
      ratio(v("registry_requests"), iuq), ratio(v("registry_requests"), refq), live ? v("iu_kube_requests") : "-")
    rss[r] = sprintf("%6d %9.1f %9s %9s %10s %10s", n, v("peak_rss_mib"), live ? v("iu_peak_rss_mib") : "-", or(rr[n]),
      ratio(v("peak_rss_mib"), live ? v("iu_peak_rss_mib") : ""), ratio(v("peak_rss_mib"), rr[n]))
  }
  END {
    printf "\nimgupd: one fleet scan each, default concurrency, its own process (tag lists / repositories the apps use)\n"
    printf "%6s %9s %10s %15s %6s %10s %9s   %s\n", "apps", "wall s", "registry", "tag lists", "kube", "RSS MiB", "ms/app", "states"
    for (i = 1; i <= rows; i++) print scan[i]
    printf "\nside by side with Image Updater v1.3.0, nothing due: live = its run --once over the same fleet in this run (empty without\n"
    printf "IMGUPD_FLEET_BENCH_IMAGE_UPDATER), ref = the figures of issue 10; ratio = imgupd / Image Updater\n"
    printf "\n%6s %9s %9s %9s %10s %10s\n", "apps", "wall s", "live", "ref", "vs live", "vs ref"
    for (i = 1; i <= rows; i++) print wall[i]
    printf "\n%6s %9s %9s %9s %10s %10s %9s\n", "apps", "registry", "live", "ref", "vs live", "vs ref", "live kube"
    for (i = 1; i <= rows; i++) print reg[i]
    printf "(registry: requests of one scan; Image Updater per cycle, run --once makes two: a warm-up and the reconcile; * = a ping and a tag list per app)\n"
    printf "\n%6s %9s %9s %9s %10s %10s\n", "apps", "RSS MiB", "live", "ref", "vs live", "vs ref"
    for (i = 1; i <= rows; i++) print rss[i]
    printf "\nissue 10: 500 apps 7.9 s nothing due (4.4 s warm-up + 2.5 s reconcile), 104 s all due, 1,000 registry requests per cycle, 144 MiB; 50 apps 13.6 s, 131 MiB\n"
    printf "targets: the 500-app scan faster than Image Updater'"'"'s cycle; tag lists = repositories; peak RSS under 150 MB; Kubernetes requests flat; cost per app flat or falling\n"
  }' "$out"
exit $status
