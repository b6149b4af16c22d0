package kit

import (
	"os"
	"runtime/debug"
)

// SoftMemoryLimit is the heap size past which Go's collector works harder.
// Under a flood, an embedded broker and a scene watching it allocate a
// message per delivery; without a limit the heap grows to twice what is
// live before a collection, with one it stays near the limit.
const SoftMemoryLimit = 100 << 20

// LimitMemory sets SoftMemoryLimit for the process, unless the user set
// GOMEMLIMIT. A host (the lab, the demo) calls it once at start.
func LimitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(SoftMemoryLimit)
	}
}
