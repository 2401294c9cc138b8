package main

import "testing"

func TestSoftMemoryLimit(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want int64
	}{
		{map[string]string{memoryLimitEnv: "536870912"}, 483183819},
		{map[string]string{memoryLimitEnv: " 1000 "}, 900},
		{map[string]string{memoryLimitEnv: "536870912", "GOMEMLIMIT": "300MiB"}, 0},
		{map[string]string{memoryLimitEnv: "512Mi"}, 0},
		{map[string]string{memoryLimitEnv: "-5"}, 0},
		{map[string]string{memoryLimitEnv: "9223372036854775807"}, 0},
		{map[string]string{}, 0},
	} {
		got := softMemoryLimit(func(k string) (string, bool) { v, ok := c.env[k]; return v, ok })
		if got != c.want {
			t.Errorf("%v: %d, want %d", c.env, got, c.want)
		}
	}
}
