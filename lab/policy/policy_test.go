package policy

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"
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

func TestDefaultLeavesAUsersChoiceAlone(t *testing.T) {
	if p := Default([]string{"TERM=xterm"}); !p.GovernCores || p.MemoryLimit != SoftMemoryLimit {
		t.Fatalf("default policy %+v", p)
	}
	if p := Default([]string{"GOMAXPROCS=3"}); p.GovernCores || p.MemoryLimit != SoftMemoryLimit {
		t.Fatalf("with GOMAXPROCS chosen: %+v, want the cores left alone", p)
	}
	if p := Default([]string{"GOMEMLIMIT=1GiB"}); !p.GovernCores || p.MemoryLimit != 0 {
		t.Fatalf("with GOMEMLIMIT chosen: %+v, want the memory limit left alone", p)
	}
	if p := Default([]string{"GOMAXPROCS=3", "GOMAXPROCS="}); !p.GovernCores {
		t.Fatal("the last of duplicate variables wins, as in the process's own environment")
	}
}

func TestApplyUndoesItselfWhenDone(t *testing.T) {
	cores := runtime.GOMAXPROCS(0)
	limit := debug.SetMemoryLimit(-1)
	ctx, cancel := context.WithCancel(t.Context())
	done := Policy{GovernCores: true, MemoryLimit: 64 << 20}.Apply(ctx)
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Fatalf("memory limit %d while applied, want %d", got, 64<<20)
	}
	if cores >= 2 {
		if got := runtime.GOMAXPROCS(0); got != 1 {
			t.Fatalf("GOMAXPROCS %d while calm, want 1", got)
		}
	}
	cancel()
	<-done
	if got := runtime.GOMAXPROCS(0); got != cores {
		t.Fatalf("GOMAXPROCS %d after the context ended, want %d back", got, cores)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Fatalf("memory limit %d after the context ended, want %d back", got, limit)
	}
}

func TestApplyWithoutGoverningLeavesTheCores(t *testing.T) {
	cores := runtime.GOMAXPROCS(0)
	limit := debug.SetMemoryLimit(-1)
	ctx, cancel := context.WithCancel(t.Context())
	done := Policy{}.Apply(ctx)
	if got := runtime.GOMAXPROCS(0); got != cores {
		t.Fatalf("GOMAXPROCS %d, want %d untouched", got, cores)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Fatalf("memory limit %d, want %d untouched", got, limit)
	}
	cancel()
	<-done
}

func TestLookFromNoColor(t *testing.T) {
	if l := LookFrom([]string{"TERM=xterm"}); l.NoColor || len(l.ProgramOptions()) != 0 {
		t.Errorf("no NO_COLOR: %+v", l)
	}
	for _, v := range []string{"1", "true", "0", "no"} {
		if l := LookFrom([]string{"NO_COLOR=" + v}); !l.NoColor || len(l.ProgramOptions()) != 1 {
			t.Errorf("NO_COLOR=%s not respected", v)
		}
	}
	if LookFrom([]string{"NO_COLOR="}).NoColor {
		t.Errorf("an empty NO_COLOR counts as unset")
	}
}

func TestScriptCollectsNearTheLimitUnlessTheUserChose(t *testing.T) {
	if p := Script([]string{"TERM=xterm"}); !p.CollectNearLimit || p.MemoryLimit != SoftMemoryLimit || p.GovernCores {
		t.Fatalf("script policy %+v", p)
	}
	if p := Script([]string{"GOGC=50"}); p.CollectNearLimit || p.MemoryLimit != SoftMemoryLimit {
		t.Fatalf("with GOGC chosen: %+v, want the collector left alone", p)
	}
	if p := Script([]string{"GOMEMLIMIT=1GiB"}); p.CollectNearLimit || p.MemoryLimit != 0 {
		t.Fatalf("with GOMEMLIMIT chosen: %+v, want the collector and the limit left alone", p)
	}
}

func TestApplyCollectingNearTheLimitUndoesItself(t *testing.T) {
	percent := debug.SetGCPercent(100)
	defer debug.SetGCPercent(percent)
	limit := debug.SetMemoryLimit(-1)
	ctx, cancel := context.WithCancel(t.Context())
	done := Policy{MemoryLimit: 64 << 20, CollectNearLimit: true}.Apply(ctx)
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Fatalf("GOGC %d while applied, want -1 (off until the limit)", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Fatalf("memory limit %d while applied, want %d", got, 64<<20)
	}
	cancel()
	<-done
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GOGC %d after the context ended, want 100 back", got)
	}
	if got := debug.SetMemoryLimit(-1); got != limit {
		t.Fatalf("memory limit %d after the context ended, want %d back", got, limit)
	}
}
