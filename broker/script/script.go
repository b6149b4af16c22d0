// Package script runs nats command lines from a file, one per line, as
// `natslab run` does: blank lines and # comments skipped, a trailing & runs a
// command in the background (stopped when the script ends), `sleep 3s`
// waits, and a failing line is reported and the script carries on.
//
// It owns running a script and knowing when what a line published has arrived;
// it imports broker/command, never lab or scenes.
package script

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"natslab/broker/command"
)

// Result sums up a script run.
type Result struct {
	Lines  int // commands run
	Failed int // commands that failed
}

// ReadyWait bounds how long a background command may take to be in place
// before the next line runs.
const ReadyWait = 5 * time.Second

// How long background subscribers may take to receive what a line
// published: after each line when something checks the state between lines
// (RunEach's after), and after the last line, before they are stopped.
const (
	settleLine = time.Second
	settleEnd  = 2 * time.Second
)

// What settling counts as done: the background jobs' received count has
// not moved for quietLooks looks quietLook apart. The server hands a
// message to a subscriber's connection while it handles the publish, so
// what is still on its way to a job is in this process; the looks cover
// the job's goroutine getting to it. Between lines, for a check, the lab
// waits that long even with no job running: what the server does after a
// command on its own (a replica catching up, an ack landing) gives no
// signal a script could wait on.
const (
	quietLook  = 10 * time.Millisecond
	quietLooks = 4
)

// Run executes every line of r against s. Output of every command, in the
// foreground or not, goes to st.Out and st.Err; errors as the real CLI
// prints them ("nats: error: …") to st.Err; the lab's own refusals to
// st.Lab (nil: to st.Err, as "natslab: …"); the lab's notes to st.Note
// (nil drops them).
func Run(ctx context.Context, s *command.Session, r io.Reader, st command.Streams) (Result, error) {
	return RunEach(ctx, s, r, st, nil)
}

// RunEach is Run, calling after (unless nil) once each line has run and
// the background jobs have received what it published (a background line:
// once it is in place), and once more when every line has run and the jobs
// have settled, before they are stopped. A lesson checks the broker's
// state at each of those moments.
func RunEach(ctx context.Context, s *command.Session, r io.Reader, st command.Streams, after func()) (Result, error) {
	var background []*command.Job
	check := func() {}
	if after != nil {
		check = func() {
			s.Sync()
			settle(s.Jobs(), settleLine, true) // the script's, and any a lesson started
			after()
		}
	}
	s.AddVerb(Sleep)
	sp := &speakers{note: st.Note}
	raw := st
	st = sp.streams(raw, &speaker{})
	var res Result
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), command.MaxLineLength+1)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := ctx.Err(); err != nil {
			break
		}
		res.Lines++
		line, bg := command.SplitBackground(line)
		if bg {
			// The job's first lines wait for its name (the lock), which
			// the session gives it as it starts.
			who := &speaker{}
			writeMu.Lock()
			j := s.StartStreams(ctx, line, sp.streams(raw, who))
			who.name = fmt.Sprintf("[%d] %s", j.ID, j.Line)
			writeMu.Unlock()
			background = append(background, j)
			select {
			case <-j.Ready():
			case <-time.After(ReadyWait):
			}
			check()
			continue
		}
		if err := s.RunStreams(ctx, line, st); err != nil {
			res.Failed++
			command.ReportError(st, err)
		}
		check()
	}
	if err := sc.Err(); err != nil {
		res.Failed++
		refusal := command.Refusef("line %d: %v", lineNo+1, err)
		if errors.Is(err, bufio.ErrTooLong) {
			refusal = command.Refusef("line %d is longer than the %d bytes the lab reads in a line: put large bodies in a file and publish them with the real CLI", lineNo+1, command.MaxLineLength)
		}
		command.ReportError(st, refusal)
	}
	settle(s.Jobs(), settleEnd, after != nil)
	if after != nil {
		s.Sync()
		after()
	}
	for _, j := range background {
		j.Stop()
		<-j.Done()
		if err := j.Err(); err != nil {
			res.Failed++
			command.ReportError(st, err)
		}
	}
	return res, nil
}

// settle waits, at most limit, until the running jobs stop receiving (see
// quietLooks) and each that can tell has shown all the server holds for
// it (Job.CaughtUp), so that what the script published has reached them
// before anything looks at what they received or stops them. With no job
// running it waits only for a check (forCheck), which looks at the server
// too.
func settle(jobs []*command.Job, limit time.Duration, forCheck bool) {
	deadline := time.Now().Add(limit)
	last := totalReceived(jobs)
	quiet := 0
	for (quiet < quietLooks || !caughtUp(jobs)) && (forCheck || running(jobs)) && time.Now().Before(deadline) {
		time.Sleep(quietLook)
		if now := totalReceived(jobs); now == last {
			quiet++
		} else {
			last, quiet = now, 0
		}
	}
}

// caughtUp reports whether every running job has shown what the server
// holds for it, as far as it can tell.
func caughtUp(jobs []*command.Job) bool {
	for _, j := range jobs {
		select {
		case <-j.Done():
			continue
		default:
		}
		if !j.CaughtUp() {
			return false
		}
	}
	return true
}

func running(jobs []*command.Job) bool {
	for _, j := range jobs {
		select {
		case <-j.Done():
		default:
			return true
		}
	}
	return false
}

func totalReceived(jobs []*command.Job) uint64 {
	var n uint64
	for _, j := range jobs {
		n += j.Received()
	}
	return n
}

var writeMu sync.Mutex

// speakers serialise the writes of the script's commands and jobs (one
// lock for every stream keeps a status line, its body and a note in order
// when they share a terminal), and, when notes are wanted, lead a job's
// lines with a note naming it whenever someone else wrote last: two
// subscribers on one subject then say which of them received a message,
// as the lab's command pane does.
type speakers struct {
	note io.Writer // nil: no notes, the real CLI's lines alone
	last *speaker
}

// speaker is who writes: a job (named "[N] LINE"), or the script's
// foreground commands (no name).
type speaker struct{ name string }

func (sp *speakers) streams(st command.Streams, who *speaker) command.Streams {
	wrap := func(w io.Writer) io.Writer {
		if w == nil {
			return nil
		}
		return spokenWriter{sp: sp, who: who, w: w}
	}
	return command.Streams{Out: wrap(st.Out), Err: wrap(st.Err), Note: wrap(st.Note), Lab: wrap(st.Lab)}
}

type spokenWriter struct {
	sp  *speakers
	who *speaker
	w   io.Writer
}

func (s spokenWriter) Write(p []byte) (int, error) {
	writeMu.Lock()
	defer writeMu.Unlock()
	if s.sp.last != s.who && s.who.name != "" && s.sp.note != nil {
		fmt.Fprintln(s.sp.note, s.who.name)
	}
	s.sp.last = s.who
	return s.w.Write(p)
}
