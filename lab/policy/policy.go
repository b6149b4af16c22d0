// Package policy holds the decisions natslab takes for the process that
// hosts its labs and for each terminal a lab is drawn on, so that they are
// taken in one place (main for natslab and natslab demo, the workshop for
// its room) instead of wherever they were first needed:
//
//   - Policy is process-wide: how many cores the Go runtime schedules on
//     (one while quiet, all of them once busy) and the heap's soft limit.
//     A process has one: a workshop applies it once for every lab it serves.
//   - Look is per terminal: colour or not (NO_COLOR), hence the colour
//     profile a program renders with and the scenes' palette. A workshop
//     takes each attendee's from their own session's environment.
//
// policy imports scenes/kit (the scenes' palette) and nothing else of
// natslab; it must not import lab or broker.
package policy

import (
	"context"
	"runtime/debug"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"natslab/scenes/kit"
)

// Policy is the process's runtime policy.
type Policy struct {
	// GovernCores runs on one core while the process is quiet and on all of
	// them once it is busy (see Governor).
	GovernCores bool
	// MemoryLimit is the heap's soft limit in bytes (0: the runtime's own).
	// Under a flood the embedded broker and a scene watching it allocate a
	// message per delivery; without a limit the heap grows to twice what
	// is live before the collector runs, with one it stays near the limit.
	MemoryLimit int64
	// CollectNearLimit leaves the collector off until the heap nears
	// MemoryLimit (GOGC=off with a limit, as the Go GC guide describes):
	// for a process whose work is short, where a collection a few
	// megabytes into its start costs more than it frees.
	CollectNearLimit bool
}

// SoftMemoryLimit is natslab's heap limit.
const SoftMemoryLimit = 100 << 20

// Default is natslab's policy for a process whose environment is
// environ (os.Environ()): governed cores and SoftMemoryLimit, except that
// what the user chose with GOMAXPROCS or GOMEMLIMIT is left to the runtime.
func Default(environ []string) Policy {
	p := Policy{GovernCores: true, MemoryLimit: SoftMemoryLimit}
	if lookup(environ, "GOMAXPROCS") != "" {
		p.GovernCores = false
	}
	if lookup(environ, "GOMEMLIMIT") != "" {
		p.MemoryLimit = 0
	}
	return p
}

// Script is natslab's policy for `natslab run`: a script usually runs for
// moments, so the collector waits for SoftMemoryLimit; cores are not
// governed (a script works flat out, then ends). What the user chose with
// GOGC or GOMEMLIMIT is left to the runtime.
func Script(environ []string) Policy {
	p := Policy{MemoryLimit: SoftMemoryLimit, CollectNearLimit: true}
	if lookup(environ, "GOGC") != "" {
		p.CollectNearLimit = false
	}
	if lookup(environ, "GOMEMLIMIT") != "" {
		p.MemoryLimit, p.CollectNearLimit = 0, false
	}
	return p
}

// Apply puts p into effect until ctx ends, then undoes it (every core back,
// the memory limit and the collector as they were) and closes the returned
// channel. Call it once per process: two policies at once would fight over
// the runtime.
func (p Policy) Apply(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	restoreMemory := func() {}
	if p.MemoryLimit > 0 {
		before := debug.SetMemoryLimit(p.MemoryLimit)
		restoreMemory = func() { debug.SetMemoryLimit(before) }
		if p.CollectNearLimit {
			gcBefore := debug.SetGCPercent(-1)
			restoreMemory = func() {
				debug.SetGCPercent(gcBefore)
				debug.SetMemoryLimit(before)
			}
		}
	}
	if !p.GovernCores {
		go func() {
			<-ctx.Done()
			restoreMemory()
			close(done)
		}()
		return done
	}
	governed := make(chan struct{})
	govern(ctx.Done(), governed)
	go func() {
		<-governed
		restoreMemory()
		close(done)
	}()
	return done
}

// Look is how one terminal shows the lab.
type Look struct {
	// NoColor keeps bold, faint and reverse but drops every colour, the
	// scenes' and lessons' included.
	NoColor bool
}

// LookFrom reads a terminal's wishes from its environment (os.Environ(),
// or an SSH session's): NO_COLOR set to anything but "" means no colour, as
// https://no-color.org says.
func LookFrom(environ []string) Look {
	return Look{NoColor: lookup(environ, "NO_COLOR") != ""}
}

// ProgramOptions are the options a Bubble Tea program drawing this look
// needs: without colour, the ASCII profile, which drops colours on output
// and keeps attributes. With colour, the program detects the terminal's.
func (l Look) ProgramOptions() []tea.ProgramOption {
	if l.NoColor {
		return []tea.ProgramOption{tea.WithColorProfile(colorprofile.Ascii)}
	}
	return nil
}

// SceneStyles is the scenes' palette for this look.
func (l Look) SceneStyles() *kit.Styles { return kit.NewStyles(!l.NoColor) }

// lookup is the last value of key in environ, as the process's own
// environment resolves duplicates; "" when unset.
func lookup(environ []string, key string) string {
	v := ""
	for _, kv := range environ {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}
