package cores

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"
)

func TestGovernorGoesUpAtOnceAndDownWhenCalm(t *testing.T) {
	g := NewGovernor(4)
	steps := []struct {
		used float64
		want int
	}{
		{0.05, 1}, // animating: one core
		{0.45, 1}, // busier, still fine on one
		{0.9, 4},  // a flood: every core, at once
		{0.1, 4},  // calm for a moment
		{0.3, 4},  // not calm: the count starts again
	}
	for i, s := range steps {
		if got := g.Step(s.used); got != s.want {
			t.Fatalf("step %d (used %.2f): %d cores, want %d", i, s.used, got, s.want)
		}
	}
	for i := 1; i < g.Calm; i++ {
		if got := g.Step(0.1); got != 4 {
			t.Fatalf("calm window %d of %d: %d cores, want 4 until the last", i, g.Calm, got)
		}
	}
	if got := g.Step(0.1); got != 1 {
		t.Fatalf("after %d calm windows: %d cores, want 1", g.Calm, got)
	}
}

func TestGovernLeavesAUsersChoiceAlone(t *testing.T) {
	t.Setenv("GOMAXPROCS", "3")
	before := runtime.GOMAXPROCS(0)
	Govern(t.Context())
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Fatalf("GOMAXPROCS %d after Govern, want the user's %d", got, before)
	}
}

func TestGovernGivesTheCoresBackWhenDone(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	if before < 2 || os.Getenv("GOMAXPROCS") != "" {
		t.Skip("one core, or GOMAXPROCS chosen: nothing to govern")
	}
	ctx, cancel := context.WithCancel(t.Context())
	Govern(ctx)
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Fatalf("GOMAXPROCS %d while calm, want 1", got)
	}
	cancel()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.GOMAXPROCS(0) != before {
		if time.Now().After(deadline) {
			t.Fatalf("GOMAXPROCS %d after the context ended, want %d back", runtime.GOMAXPROCS(0), before)
		}
		runtime.Gosched()
	}
}
