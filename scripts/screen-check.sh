#!/usr/bin/env bash
# scripts/screen-check.sh: does every built-in report keep its verdict on the
# last screen of a 100×40 terminal? Runs `imgupd demo --scenario NAME` for each
# built-in scenario inside tmux at 100×40 (the report's own terminal: wrapped,
# coloured), captures the last screen and checks that it shows
#   - the verdict: the recap (the report's last line), or, from a binary that
#     has none, the answer (the report's first line), and
#   - the root cause's first fix step (its first line of code: the command or
#     the YAML), when the report has a fix with steps.
# What to look for comes from the same report printed to a pipe with
# COLUMNS=100 (wrapped the same, not coloured); each run has its own lab on
# its own loopback ports, so numbers of four or five digits are compared as N.
#
# Usage: scripts/screen-check.sh [NAME...]     (default: every built-in scenario)
#   IMGUPD=path/to/imgupd  check that binary instead of building ./cmd/imgupd
#   VERBOSE=1              print each failing scenario's captured screen
# Needs tmux. Not part of CI: it takes a minute or two.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v tmux >/dev/null || { echo "screen-check: needs tmux" >&2; exit 2; }
work=$(mktemp -d)
sock="$work/tmux.sock"
cleanup() { tmux -S "$sock" kill-server 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

bin=${IMGUPD:-}
if [ -z "$bin" ]; then
	bin="$work/imgupd"
	CGO_ENABLED=0 go build -trimpath -o "$bin" ./cmd/imgupd
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

if [ $# -gt 0 ]; then
	names=("$@")
else
	names=()
	for f in lab/scenarios/*.yaml; do names+=("$(basename "$f" .yaml)"); done
fi

# One shell in a 100×40 window; each report is run in it after a clear, and
# the shell signals when it is done.
tmux -S "$sock" -f /dev/null new-session -d -x 100 -y 40 -s screen "env -i HOME=\"$HOME\" PATH=\"$PATH\" TERM=xterm-256color PS1='$ ' sh"
tmux -S "$sock" set-option -t screen status off >/dev/null

# verdict_of FILE: the line to find, the recap when the report ends with one,
# else the report's answer (its first line, after the demo's heading).
recap_re='^(✔|➜|⊘|↯|◌|⑂|✗|\?) [a-z-]+( \[[A-Z0-9_]+\])? · '
verdict_of() {
	local last
	last=$(tail -n 1 "$1")
	if printf '%s\n' "$last" | grep -Eq "$recap_re"; then
		printf '%s\n' "$last"
	else
		# The heading is one paragraph, then a blank line, then the answer.
		awk 'seen && NF { print; exit } !NF { seen = 1 }' "$1"
	fi
}

# first_step_of FILE: the first line of code of the root cause's first fix
# step: after the "→ Fix: " that starts a line (or, an older layout, the
# first "   → Fix: "), the first line indented six more than the arrow.
first_step_of() {
	awk '
		!fix && /^→ Fix: / { fix = 1; code = 6; next }
		!fix && /^   → Fix: / { fix = 1; code = 9; next }
		fix && !NF { exit }
		fix && substr($0, 1, code) ~ /^ +$/ { sub(/^ +/, ""); print; exit }
	' "$1"
}

# ports writes every number of four or five digits (a lab's port) as N.
ports() { sed -E 's/[0-9]{4,5}/N/g'; }

pass=0 verdict_ok=0 step_ok=0 steps=0 failed=()
for name in "${names[@]}"; do
	piped="$work/$name.txt"
	COLUMNS=100 "$bin" demo --scenario "$name" 2>/dev/null | ports >"$piped" || true
	verdict=$(verdict_of "$piped")
	step=$(first_step_of "$piped")
	tmux -S "$sock" send-keys -t screen "clear; '$bin' demo --scenario '$name' 2>/dev/null; tmux -S '$sock' wait-for -S done" Enter
	tmux -S "$sock" wait-for done
	# -J joins lines the terminal wrapped (an older binary's long lines).
	tmux -S "$sock" capture-pane -p -J -t screen | sed 's/ *$//' | ports >"$work/$name.screen"
	ok=1
	if [ -n "$verdict" ] && grep -qF -- "$verdict" "$work/$name.screen"; then
		verdict_ok=$((verdict_ok + 1))
	else
		ok=0
	fi
	if [ -n "$step" ]; then
		steps=$((steps + 1))
		if grep -qF -- "$step" "$work/$name.screen"; then
			step_ok=$((step_ok + 1))
		else
			ok=0
		fi
	fi
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
	else
		failed+=("$name")
		if [ -n "${VERBOSE:-}" ]; then
			echo "--- $name: verdict «$verdict», first step «$step»; the last screen:"
			cat "$work/$name.screen"
		fi
	fi
done

total=${#names[@]}
echo "screen-check (100×40, $bin):"
echo "  verdict on the last screen:         $verdict_ok/$total"
echo "  first fix step on the last screen:  $step_ok/$steps reports with a fix"
echo "  both:                               $pass/$total"
if [ ${#failed[@]} -gt 0 ]; then
	echo "  not on the last screen: ${failed[*]}"
	exit 1
fi
