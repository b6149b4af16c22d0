package broker

import (
	"path/filepath"
	"strings"
	"sync"

	"natslab/broker/text"
)

// Storage trouble. nats-server tells of a full disk, an unwritable store
// or a damaged stream only in its log, and what follows is silent: a
// stream that hit a write error stays dead (every publish times out) until
// the server restarts, even once the disk has room again; a stream whose
// files are damaged is left out at start, as if it had never been. The lab
// reads the log for those lines and says, in one line each, what happened
// and what to do.

// Trouble is one storage problem the server logged, said for people.
type Trouble struct {
	Stream string // the stream it concerns; "" for JetStream as a whole
	Line   string // what happened and what to do, in one line
}

var (
	troubleWrite    = text.Pattern(`JetStream stream '[^>]* > (.+)' critical write error: (.*)$`)
	troubleDisabled = text.Pattern(`JetStream out of (?:\w+ )?(?:resources|space), will be DISABLED`)
	troubleMeta     = text.Pattern(`Stream metafile "([^"]+)": checksums do not match|Error unmarshalling stream metafile "([^"]+)"|Missing stream (?:metafile|checksum file) (?:for )?"([^"]+)"`)
	troubleRecreate = text.Pattern(`Error recreating stream "([^"]+)": (.*)$`)
	troubleLimits   = text.Pattern(`JetStream (\w+) resource limits exceeded for server`)
)

// StorageTrouble reads one line of the server's log (as LogBuffer keeps
// it) and says what storage trouble it reports, if any. restart is how
// the person restarts the server where they are ("restart" in the lab).
func StorageTrouble(line, restart string) (Trouble, bool) {
	if !strings.Contains(line, "[ERR]") && !strings.Contains(line, "[WRN]") {
		return Trouble{}, false
	}
	if m := troubleWrite().FindStringSubmatch(line); m != nil {
		stream, cause := m[1], m[2]
		if strings.Contains(cause, "no space left") {
			return Trouble{stream, "stream " + stream + " stopped storing: the disk under the store is full. Free some space, then " + restart + ": until then every publish to " + stream + " times out, even once there is room"}, true
		}
		return Trouble{stream, "stream " + stream + " stopped storing: the server could not write its files (" + cause + "). Fix the store directory, then " + restart + ": until then every publish to " + stream + " times out"}, true
	}
	if troubleDisabled().MatchString(line) {
		return Trouble{"", "JetStream switched itself off: the disk under the store is full. Free some space, then " + restart}, true
	}
	if m := troubleMeta().FindStringSubmatch(line); m != nil {
		path := m[1] + m[2] + m[3]
		dir := filepath.Dir(path)
		if filepath.Base(path) != "meta.inf" && filepath.Base(path) != "meta.sum" {
			dir = path
		}
		stream := filepath.Base(dir)
		return Trouble{stream, "stream " + stream + " was not loaded: its configuration file in " + dir + " is damaged, so the server started without it and its messages. Restore that directory from a backup, or move it away and create the stream again"}, true
	}
	if m := troubleRecreate().FindStringSubmatch(line); m != nil {
		return Trouble{m[1], "stream " + m[1] + " was not loaded: " + m[2] + ". The server started without it; its files are still in the store"}, true
	}
	if m := troubleLimits().FindStringSubmatch(line); m != nil {
		return Trouble{"", "JetStream's " + m[1] + " is full: the server's storage limit is reached, so streams refuse new messages. Remove what is not needed (stream purge, stream rm)"}, true
	}
	return Trouble{}, false
}

// TroubleWatch follows a server's log for storage trouble.
type TroubleWatch struct {
	log     *LogBuffer
	restart string

	mu   sync.Mutex
	mark uint64
}

// WatchStorage reads storage trouble from log; restart is how to restart
// the server where the person is (see StorageTrouble). A nil log (an
// external deployment) has none.
func WatchStorage(log *LogBuffer, restart string) *TroubleWatch {
	return &TroubleWatch{log: log, restart: restart}
}

// New returns the problems logged since the last call; a problem logged
// on several lines at once is said once.
func (w *TroubleWatch) New() []Trouble {
	if w == nil || w.log == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	lines, total := w.log.Since(w.mark)
	w.mark = total
	var out []Trouble
	seen := map[Trouble]bool{}
	for _, l := range lines {
		if t, ok := StorageTrouble(l, w.restart); ok && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// Changed is closed when the log has new lines (see LogBuffer.Changed).
func (w *TroubleWatch) Changed() <-chan struct{} {
	if w == nil || w.log == nil {
		return nil
	}
	return w.log.Changed()
}

// StreamTrouble is the last problem logged about stream since the server
// last started, if any: for a publish that got no acknowledgement.
func StreamTrouble(log *LogBuffer, stream, restart string) (Trouble, bool) {
	if log == nil {
		return Trouble{}, false
	}
	var found Trouble
	ok := false
	for _, l := range log.Lines() {
		if strings.Contains(l, "Starting nats-server") {
			found, ok = Trouble{}, false // a restart clears what went before
		}
		if t, is := StorageTrouble(l, restart); is && (t.Stream == stream || t.Stream == "") {
			found, ok = t, true
		}
	}
	return found, ok
}
