package watch

import (
	"testing"
	"time"
)

// A busy kick asks for a look and keeps the looks quick for as long as it
// was told; before and after that they are idle.
func TestBusyKeepsLooksQuickForAWhile(t *testing.T) {
	b := NewBusy()
	const quick, idle = time.Millisecond, time.Hour
	if got := b.Pace(quick, idle); got != idle {
		t.Fatalf("before any news the pace is %v, want %v", got, idle)
	}
	b.Poke(time.Hour)
	select {
	case <-b.Kick:
	default:
		t.Fatal("Poke did not ask for a look")
	}
	if got := b.Pace(quick, idle); got != quick {
		t.Fatalf("after news the pace is %v, want %v", got, quick)
	}
	b.Linger(0)
	if got := b.Pace(quick, idle); got != idle {
		t.Fatalf("once the while is over the pace is %v, want %v", got, idle)
	}
	select {
	case <-b.Kick:
		t.Fatal("Linger asked for a look")
	default:
	}
}
