package prefault

import (
	"syscall"
	"testing"
	"unsafe"
)

// untouched is zeroed memory that nothing in this test binary writes or
// reads, but the test below after the package has mapped it ahead.
var untouched [1 << 20]byte

// Once the package is done, the zeroed variables and the heap ahead of its
// newest object are in memory; without it, the pages of a variable nobody
// has touched, and most of the heap's next megabytes, are not.
func TestStartUpsMemoryIsMappedAhead(t *testing.T) {
	<-done
	start := uintptr(unsafe.Pointer(&untouched[0]))
	first := start &^ (page - 1)
	untouchedPages := span{first, (start + uintptr(len(untouched)) + page - 1) &^ (page - 1)}
	if untouchedPages.start < mapped.zeroed.start || untouchedPages.end > mapped.zeroed.end {
		t.Fatalf("untouched (%#x) is not among the zeroed variables mapped ahead (%#x)", untouchedPages, mapped.zeroed)
	}
	if newestPage := uintptr(unsafe.Pointer(newest)) &^ (page - 1); mapped.heap.start != newestPage || mapped.heap.len() == 0 {
		t.Fatalf("the heap was mapped ahead at %#x, want from %#x on", mapped.heap, newestPage)
	}
	for name, s := range map[string]span{"untouched": untouchedPages, "the heap ahead": mapped.heap} {
		if missing := notResident(t, s); missing > 0 {
			t.Errorf("%d of the %d pages of %s are not in memory", missing, s.len()/page, name)
		}
	}
}

// notResident counts the pages of s that are not in memory (mincore(2)).
func notResident(t *testing.T, s span) int {
	t.Helper()
	resident := make([]byte, s.len()/page)
	if _, _, errno := syscall.Syscall(syscall.SYS_MINCORE, s.start, s.len(), uintptr(unsafe.Pointer(&resident[0]))); errno != 0 {
		t.Fatalf("mincore %#x: %v", s, errno)
	}
	missing := 0
	for _, r := range resident {
		if r&1 == 0 {
			missing++
		}
	}
	return missing
}
