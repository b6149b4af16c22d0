// Package startup pauses the garbage collector while Go initialises the
// packages natslab links, until main decides (Resume, or lab/policy's
// Script). Those packages (natscli's command tree, nats-server, jsm.go's
// schemas and templates) allocate about as much as the collector's first
// goal while they initialise, so at nearly every start a collection would
// begin just before main, to free almost nothing.
//
// Go initialises a package once everything it imports is, taking packages
// in import-path order; this one imports runtime/debug and nothing of
// natslab, so that it is initialised before the packages that allocate.
package startup

import (
	"runtime/debug"
	"sync"
)

// setting is the collector's setting (GOGC) from before the pause.
var setting = debug.SetGCPercent(-1)

var resume sync.Once

// Resume gives the collector back its setting; later calls do nothing.
func Resume() {
	resume.Do(func() { debug.SetGCPercent(setting) })
}
