#!/usr/bin/env bash
# The soak benchmark of issue 14 (bench/soak/soak_test.go): thousands of
# diagnoses over hundreds of repositories through one long-lived engine, as
# imgupd serve holds it, the live heap sampled after GC after each round,
# side by side with the reference run (the same diagnoses through a fresh
# engine each time, which can keep nothing). It fails when the long-lived
# engine's heap grows after its first round, or keeps more than the
# reference beyond its bounded caches. See bench/README.md.
#   IMGUPD_SOAK_APPS      apps, each with its own git and image repository (300)
#   IMGUPD_SOAK_FILE_KIB  the size of a file each git repository holds (64)
#   IMGUPD_SOAK_ROUNDS    rounds over every app, per engine (10)
#   IMGUPD_SOAK_GROWTH_MIB, IMGUPD_SOAK_KEPT_MIB  the limits (4, 8)
#   IMGUPD_SOAK_OUT       a file to write the summary to
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
IMGUPD_SOAK=1 "$GO" test ./bench/soak/ -run '^TestSoak$' -count 1 -timeout 60m -v | grep -v '^=== ' 
