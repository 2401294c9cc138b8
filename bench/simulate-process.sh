#!/usr/bin/env bash
# Times `imgupd simulate` over 5,000 tags as a whole process against
# `crane ls` of the same repository, in turn (A B A B ...), and prints the
# medians and the ratio: start-up cost included, which bench/simulate.sh (in
# process) leaves out. Also prints imgupd's package-init totals
# (GODEBUG=inittrace=1 imgupd version). RUNS (default 21) tunes it;
# IMGUPD=/path/to/imgupd times that binary instead of building this checkout
# (a before/after comparison); OUTPUT=json times `simulate -o json` (every
# tag's fate as JSON) instead of the text answer. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
RUNS=${RUNS:-21}
TAGS=${TAGS:-5000}

dir=$(mktemp -d)
reg_pid=
cleanup() {
	if [ -n "$reg_pid" ]; then kill "$reg_pid" 2>/dev/null || true; wait "$reg_pid" 2>/dev/null || true; fi
	rm -rf "$dir"
}
trap cleanup EXIT

# Built as the image builds imgupd (Dockerfile: CGO_ENABLED=0, -trimpath),
# crane the same way from the go-containerregistry version go.mod pins.
echo "building imgupd, crane and lab-registry ..." >&2
if [ -n "${IMGUPD:-}" ]; then
	cp "$IMGUPD" "$dir/imgupd"
else
	CGO_ENABLED=0 "$GO" build -trimpath -o "$dir/imgupd" ./cmd/imgupd
fi
CGO_ENABLED=0 "$GO" build -trimpath -o "$dir/crane" github.com/google/go-containerregistry/cmd/crane
"$GO" build -o "$dir/lab-registry" ./lab/cmd/lab-registry

# The loopback registry with big/app: $TAGS semver tags in Link pages of
# 1,000 (as Docker Hub), the repository of BenchmarkSimulateSemver5000.
"$dir/lab-registry" -semver-tags "$TAGS" -page-size 1000 >"$dir/registry.out" 2>&1 &
reg_pid=$!
host=
for _ in $(seq 600); do
	host=$(sed -n 's/^REGISTRY=//p' "$dir/registry.out")
	[ -n "$host" ] && break
	kill -0 "$reg_pid" 2>/dev/null || { cat "$dir/registry.out" >&2; exit 1; }
	sleep 0.1
done
[ -n "$host" ] || { echo "lab-registry did not start" >&2; exit 1; }

a=("$dir/imgupd" simulate "$host/big/app:~3.5" --plain-http --current-tag 3.5.0)
if [ -n "${OUTPUT:-}" ]; then a+=(-o "$OUTPUT"); fi
b=("$dir/crane" ls --insecure "$host/big/app")
"${a[@]}" >/dev/null || { echo "imgupd simulate failed" >&2; exit 1; }
[ "$("${b[@]}" | wc -l)" -eq "$TAGS" ] || { echo "crane ls did not list $TAGS tags" >&2; exit 1; }

# run CMD...: prints "wall_s cpu_s" of one run; cpu is the child's user +
# system time as the shell's `times` reports it (1 ms resolution).
run() {
	(
		local t0=$EPOCHREALTIME
		"$@" >/dev/null 2>&1
		local t1=$EPOCHREALTIME
		times >"$dir/times" # a builtin: no pipe, whose subshell has no children
		awk -v t0="$t0" -v t1="$t1" 'NR==2 {
			split($1, u, /[ms]/); split($2, s, /[ms]/)
			printf "%.6f %.6f\n", t1-t0, u[1]*60+u[2]+s[1]*60+s[2] }' "$dir/times"
	)
}

run "${a[@]}" >/dev/null; run "${b[@]}" >/dev/null # warm-up, not counted
: >"$dir/runs"
for _ in $(seq "$RUNS"); do
	echo "A $(run "${a[@]}")" >>"$dir/runs"
	echo "B $(run "${b[@]}")" >>"$dir/runs"
done

for _ in $(seq "$RUNS"); do
	GODEBUG=inittrace=1 "$dir/imgupd" version 2>&1 >/dev/null |
		awk '/^init / { ms += $5; bytes += $8; allocs += $10; n++ } END { printf "%d %.3f %d %d\n", n, ms, bytes, allocs }'
done >"$dir/init"

awk -v runs="$RUNS" -v tags="$TAGS" '
	function median(v, n,    i, j, t) {
		for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j+1] = v[j]; v[j+1] = t }
		return n % 2 ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2
	}
	FILENAME ~ /runs$/ && $1 == "A" { na++; aw[na] = $2; ac[na] = $3; next }
	FILENAME ~ /runs$/ && $1 == "B" { nb++; bw[nb] = $2; bc[nb] = $3; rw[nb] = aw[nb] / $2; rc[nb] = ($3 > 0 ? ac[nb] / $3 : 0); next }
	{ ni++; inits = $1; ims[ni] = $2; ibytes = $3; iallocs = $4 }
	END {
		printf "imgupd simulate (A) vs crane ls (B), %d tags, %d runs each in turn, medians:\n", tags, runs
		printf "  A wall %7.1f ms   cpu %6.1f ms\n", median(aw, na) * 1000, median(ac, na) * 1000
		printf "  B wall %7.1f ms   cpu %6.1f ms\n", median(bw, nb) * 1000, median(bc, nb) * 1000
		printf "  A/B wall %.2f (median of the pairs; target <= 1.5)   A/B cpu %.2f\n", median(rw, nb), median(rc, nb)
		printf "imgupd version package inits: %d packages, %.1f ms (median of %d), %.2f MB, %d allocations\n",
			inits, median(ims, ni), ni, ibytes / 1e6, iallocs
	}' "$dir/runs" "$dir/init"
