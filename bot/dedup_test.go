package bot

import (
	"testing"
	"time"
)

func TestDedup(t *testing.T) {
	d := newDedup(time.Minute)
	if !d.first("env:1", prefixed("event:", "Ev1")) {
		t.Fatal("a new envelope is not a duplicate")
	}
	if d.first("env:2", prefixed("event:", "Ev1")) {
		t.Error("a redelivered event (new envelope, same event_id) is a duplicate")
	}
	if d.first("env:1") {
		t.Error("the same envelope twice is a duplicate")
	}
	// Events without an event_id are told apart by their envelope only.
	if !d.first("env:3", prefixed("event:", "")) || !d.first("env:4", prefixed("event:", "")) {
		t.Error("two envelopes without event_id are not duplicates of each other")
	}
}
