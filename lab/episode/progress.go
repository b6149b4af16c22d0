package episode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// ProgressFile is the name of the progress file in the store directory.
const ProgressFile = "progress.json"

// Progress is what the learner has done, per episode, kept in the store
// directory so it survives restarts of the lab.
type Progress struct {
	path string
	mu   sync.Mutex
	data progressData
}

type progressData struct {
	Version  int                         `json:"version"`
	Current  string                      `json:"current,omitempty"` // the lesson open last
	Episodes map[string]*EpisodeProgress `json:"episodes"`
}

// EpisodeProgress is one episode's progress.
type EpisodeProgress struct {
	Begun     time.Time `json:"begun,omitzero"`
	StepsDone int       `json:"steps_done"`
	// Done stays true once every step was done, even after a reset.
	Done      bool      `json:"done,omitempty"`
	Completed time.Time `json:"completed,omitzero"`
	// JetStream is whether JetStream was on when the learner left, so the
	// lesson resumes as it was.
	JetStream bool `json:"jetstream"`
	// Boot is the server's ID (a new one at every start) when the last
	// step was done: a step that asks for a restart since then is judged
	// against it after the lab itself has restarted.
	Boot string `json:"boot,omitempty"`
}

// Started reports whether the episode was ever opened.
func (p EpisodeProgress) Started() bool { return !p.Begun.IsZero() || p.StepsDone > 0 || p.Done }

// CorruptError says the progress file could not be read and where it went.
type CorruptError struct {
	Path, MovedTo string
	Err           error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("progress file %s is damaged (%v); it was moved to %s and progress starts afresh", e.Path, e.Err, e.MovedTo)
}

// OpenProgress reads <storeDir>/progress.json. A missing file is no
// progress yet. A damaged one is moved aside, never lost: the returned
// Progress is then empty and usable, and the error is a *CorruptError to
// show the learner in one line.
func OpenProgress(storeDir string) (*Progress, error) {
	p := &Progress{path: filepath.Join(storeDir, ProgressFile)}
	p.data = progressData{Version: 1, Episodes: map[string]*EpisodeProgress{}}
	raw, err := os.ReadFile(p.path)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the progress file: %w", err)
	}
	var d progressData
	if err := json.Unmarshal(raw, &d); err != nil || d.Version != 1 {
		if err == nil {
			err = fmt.Errorf("version %d, this natslab knows version 1", d.Version)
		}
		aside := fmt.Sprintf("%s.damaged-%s", p.path, time.Now().UTC().Format("20060102-150405"))
		if mvErr := os.Rename(p.path, aside); mvErr != nil {
			return nil, fmt.Errorf("progress file %s is damaged (%v) and cannot be moved aside: %w", p.path, err, mvErr)
		}
		return p, &CorruptError{Path: p.path, MovedTo: aside, Err: err}
	}
	if d.Episodes == nil {
		d.Episodes = map[string]*EpisodeProgress{}
	}
	for old, id := range renamedLessons {
		if e, ok := d.Episodes[old]; ok && d.Episodes[id] == nil {
			d.Episodes[id] = e
		}
		delete(d.Episodes, old)
		if d.Current == old {
			d.Current = id
		}
	}
	p.data = d
	return p, nil
}

// renamedLessons maps a lesson's former ID to its ID now, so that progress
// kept under the old one carries over. The capstone was "sandbox", the
// word lesson leave's twin (lesson sandbox) already meant.
var renamedLessons = map[string]string{"sandbox": "capstone"}

// Path is the progress file's path.
func (p *Progress) Path() string { return p.path }

// Get returns an episode's progress (zero when never opened).
func (p *Progress) Get(id string) EpisodeProgress {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.data.Episodes[id]; e != nil {
		return *e
	}
	return EpisodeProgress{}
}

// Current is the lesson the learner had open last, or "".
func (p *Progress) Current() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.data.Current
}

// SetCurrent records the lesson open now ("" for the sandbox).
func (p *Progress) SetCurrent(id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.data.Current == id {
		return nil
	}
	p.data.Current = id
	return p.saveLocked()
}

// Update changes an episode's progress and saves the file.
func (p *Progress) Update(id string, f func(*EpisodeProgress)) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.data.Episodes[id]
	if e == nil {
		e = &EpisodeProgress{}
		p.data.Episodes[id] = e
	}
	f(e)
	return p.saveLocked()
}

// saveLocked writes the file atomically: a crash leaves the old file or
// the new one, never half of one.
func (p *Progress) saveLocked() error {
	raw, err := json.MarshalIndent(p.data, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(p.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot save progress: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ProgressFile+".*.tmp")
	if err != nil {
		return fmt.Errorf("cannot save progress: %w", err)
	}
	_, werr := tmp.Write(append(raw, '\n'))
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot save progress: %w", err)
	}
	if err := os.Rename(tmp.Name(), p.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot save progress: %w", err)
	}
	return nil
}

// Status is where an episode stands for the learner.
type Status int

const (
	New Status = iota
	InProgress
	Done
	Unavailable // needs what the lab does not run now: a cluster (natslab --cluster 3)
)

// StatusOf says where an episode stands, given how many nodes the lab runs.
func (p *Progress) StatusOf(e *Episode, cluster int) Status {
	if !e.RunsOn(cluster) {
		return Unavailable
	}
	if p == nil {
		return New
	}
	ep := p.Get(e.ID)
	switch {
	case ep.Done:
		return Done
	case ep.Started():
		return InProgress
	}
	return New
}
