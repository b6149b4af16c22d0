package workshop

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"natslab/lab/episode"
)

// Row is one attendee as the instructor's table shows them.
type Row struct {
	Name       string
	Connected  bool
	Parked     bool
	Away       time.Duration // since they left, when not connected
	From       string
	Lesson     string // lesson ID, "" in the sandbox
	Title      string
	Step       int // the step they are on (1-based)
	Steps      int
	Complete   bool
	OnStep     time.Duration // time on this step (or in the sandbox)
	Hints      int           // hints asked in this lesson
	HintsTotal int
	LastError  string
	LastErrAt  time.Time
	ErrsOnStep int
	Stuck      bool
}

// Rows is every attendee, by name.
func (w *Workshop) Rows() []Row {
	now := time.Now()
	labs := w.sortedLabs()
	w.mu.Lock()
	defer w.mu.Unlock()
	rows := make([]Row, 0, len(labs))
	for _, a := range labs {
		r := Row{
			Name: a.name, Connected: a.conn != nil, Parked: a.parked, From: a.from,
			Lesson: a.lesson, Title: a.title, Step: a.step, Steps: a.steps, Complete: a.complete,
			Hints: a.hints[a.lesson], HintsTotal: a.hintsTotal,
			LastError: a.lastErr, LastErrAt: a.lastErrAt, ErrsOnStep: a.errsOnStep,
		}
		if !a.stepSince.IsZero() {
			r.OnStep = now.Sub(a.stepSince)
		}
		if !r.Connected && !a.left.IsZero() {
			r.Away = now.Sub(a.left)
		}
		// Stuck: connected, in a lesson not yet complete, and either long
		// on this step or failing on it again and again.
		r.Stuck = r.Connected && r.Lesson != "" && !r.Complete &&
			(r.OnStep >= w.opts.StuckAfter || r.ErrsOnStep >= 3)
		rows = append(rows, r)
	}
	return rows
}

// StuckAfter is how long on one step counts as stuck.
func (w *Workshop) StuckAfter() time.Duration { return w.opts.StuckAfter }

// Broadcast shows text as a banner in every lab, now and for those who
// join later; an empty text takes the banner down.
func (w *Workshop) Broadcast(text string) {
	text = strings.Join(strings.Fields(text), " ")
	w.mu.Lock()
	w.banner = text
	live := w.liveLocked()
	w.mu.Unlock()
	for _, c := range live {
		go c.program.Send(bannerMsg{text})
		if text != "" {
			c.model.Note("📣 from your instructor: " + text)
		}
	}
	if text == "" {
		w.logf(false, "banner taken down")
	} else {
		w.logf(false, "broadcast to %d connected: %s", len(live), text)
	}
}

// Banner is the broadcast shown now, "" for none.
func (w *Workshop) Banner() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.banner
}

// cannotRun says why the labs cannot run ep; nil when they can.
func (w *Workshop) cannotRun(ep *episode.Episode) error {
	switch {
	case ep.Needs.Cluster > 1:
		return fmt.Errorf("lesson %s needs a %d-node cluster, and workshop labs run one server each: pick another lesson", ep.ID, ep.Needs.Cluster)
	case ep.Needs.Listener && !w.opts.AttendeeURLs:
		return fmt.Errorf("lesson %s runs the real nats CLI, which reaches a lab's server over TCP, and these labs listen nowhere: start the workshop with --attendee-urls for it, or pick another lesson", ep.ID)
	case ep.Needs.LocalFiles:
		return episode.LocalFilesError(ep)
	}
	return nil
}

// OpenLesson opens lesson id for one attendee (name) or, with name "",
// for everyone: at once in connected labs, on return for the others.
func (w *Workshop) OpenLesson(id, name string) (string, error) {
	ep, ok := w.cat.Get(id)
	if !ok {
		return "", w.cat.Unknown(id)
	}
	if err := w.cannotRun(ep); err != nil {
		return "", err
	}
	var targets []*attendee
	w.mu.Lock()
	if name != "" {
		a, ok := w.labs[name]
		if !ok {
			w.mu.Unlock()
			return "", fmt.Errorf("no attendee is called %s (the table lists them)", name)
		}
		targets = append(targets, a)
	} else {
		for _, a := range w.labs {
			targets = append(targets, a)
		}
	}
	live, later := 0, 0
	for _, a := range targets {
		if c := a.conn; c != nil {
			live++
			go w.openIn(c, ep)
		} else {
			later++
			a.pending = ep.ID
		}
	}
	w.mu.Unlock()
	who := "everyone"
	if name != "" {
		who = name
	}
	msg := fmt.Sprintf("lesson %d · %s opened for %s", ep.Number, ep.ID, who)
	if later > 0 {
		msg += fmt.Sprintf(" (%d away: when they return)", later)
	}
	w.logf(false, "%s", msg)
	return msg, nil
}

// openIn opens ep in a connected lab, as the attendee's own `lesson ID`
// would, and says so in their command pane.
func (w *Workshop) openIn(c *connection, ep *episode.Episode) {
	tu := c.model.Tutor()
	if tu == nil {
		return
	}
	ctx, cancel := context.WithTimeout(w.ctx, time.Minute)
	defer cancel()
	l, err := tu.Open(ctx, ep.ID)
	if err != nil {
		w.logf(true, "lesson %s did not open for %s: %v", ep.ID, c.a.name, err)
		c.model.Note("natslab: your instructor opened lesson " + ep.ID + ", but it did not open: " + err.Error())
		return
	}
	c.model.Note(fmt.Sprintf("Your instructor opened lesson %d · %s: %s. Its steps are in the lesson pane (lesson lists them too).", ep.Number, ep.ID, ep.Title))
	if note := l.StoppedNote(); note != "" {
		c.model.Note(note)
	}
}

// Spotlight is name's screen as last drawn, and its size; ok is false
// when they are not connected.
func (w *Workshop) Spotlight(name string) (screen string, width, height int, ok bool) {
	w.mu.Lock()
	a, found := w.labs[name]
	var c *connection
	if found {
		c = a.conn
	}
	w.mu.Unlock()
	if c == nil {
		return "", 0, 0, false
	}
	if s := c.shot.Load(); s != nil {
		screen = *s
	}
	if sz := c.size.Load(); sz != nil {
		width, height = sz[0], sz[1]
	}
	return screen, width, height, true
}

// Names are the attendees' names, sorted.
func (w *Workshop) Names() []string {
	var out []string
	for _, a := range w.sortedLabs() {
		out = append(out, a.name)
	}
	return out
}

// Catalog is the lessons.
func (w *Workshop) Catalog() *episode.Catalog { return w.cat }

// ExportCSV writes everyone's progress: one row per attendee, with the
// lessons each has completed (from their progress file).
func (w *Workshop) ExportCSV(out io.Writer) error {
	cw := csv.NewWriter(out)
	_ = cw.Write([]string{"name", "connected", "lesson", "step", "steps", "seconds_on_step", "hints_in_lesson", "hints_total", "last_error", "lessons_completed", "completed_ids"})
	dirs := map[string]string{}
	for _, a := range w.sortedLabs() {
		dirs[a.name] = a.dir
	}
	for _, r := range w.Rows() {
		var done []string
		if p, err := episode.OpenProgress(dirs[r.Name]); err == nil && p != nil {
			for _, ep := range w.cat.Episodes {
				if p.Get(ep.ID).Done {
					done = append(done, ep.ID)
				}
			}
		}
		_ = cw.Write([]string{
			r.Name, strconv.FormatBool(r.Connected), r.Lesson,
			strconv.Itoa(r.Step), strconv.Itoa(r.Steps), strconv.Itoa(int(r.OnStep.Seconds())),
			strconv.Itoa(r.Hints), strconv.Itoa(r.HintsTotal), r.LastError,
			strconv.Itoa(len(done)), strings.Join(done, " "),
		})
	}
	cw.Flush()
	return cw.Error()
}
