package lazyre

import "testing"

func TestNewCompilesOnce(t *testing.T) {
	re := New(`^a+$`)
	if !re().MatchString("aaa") || re().MatchString("b") {
		t.Fatal("the pattern does not match as written")
	}
	if re() != re() {
		t.Error("compiled more than once")
	}
}

func TestNewPanicsOnFirstUse(t *testing.T) {
	re := New(`(`) // creating it must not panic
	defer func() {
		if recover() == nil {
			t.Error("a bad pattern did not panic at first use")
		}
	}()
	re()
}
