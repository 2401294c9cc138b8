package main

import (
	"math"
	"strconv"
	"strings"

	"github.com/imgupd/imgupd/internal/heapfloor"
)

// memoryLimitEnv carries the container's memory limit in bytes (the chart
// sets it from the downward API, resourceFieldRef limits.memory).
const memoryLimitEnv = "IMGUPD_MEMORY_LIMIT"

// softMemoryLimit is the Go soft memory limit for a container limit of
// limit bytes: 90% of it, leaving room for what the runtime does not count
// (the binary, thread stacks outside the heap). It returns 0 when no soft
// limit should be set: GOMEMLIMIT is set (the operator's choice wins), or
// the value is missing, not a positive number, or no limit at all.
func softMemoryLimit(getenv func(string) (string, bool)) int64 {
	if v, ok := getenv("GOMEMLIMIT"); ok && strings.TrimSpace(v) != "" {
		return 0
	}
	v, ok := getenv(memoryLimitEnv)
	if !ok {
		return 0
	}
	limit, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	// Without a limit the downward API gives the node's allocatable memory,
	// which is no reason to collect early either way; a huge value is no limit.
	if err != nil || limit <= 0 || limit >= math.MaxInt64/10 {
		return 0
	}
	return limit / 10 * 9
}

// applyMemoryLimit sets the soft limit softMemoryLimit gives, if any,
// through heapfloor: while the first collection is held back (the start-up
// heap floor) the lower of the two applies, then this limit.
func applyMemoryLimit(getenv func(string) (string, bool)) {
	if n := softMemoryLimit(getenv); n > 0 {
		heapfloor.SetMemoryLimit(n)
	}
}
