// Package script runs nats command lines from a file, one per line, as
// `natslab run` does: blank lines and # comments skipped, a trailing & runs a
// command in the background (stopped when the script ends), `sleep 3s`
// waits, and a failing line is reported and the script carries on. A line
// that is not text (a binary file's, a script saved in Latin-1) ends the
// script there, said in one line.
//
// It owns running a script and knowing when what a line published has arrived;
// it imports broker/command, never lab or scenes.
package script

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"natslab/broker/command"
)

// Result sums up a script run.
type Result struct {
	Lines  int // commands run
	Failed int // commands that failed
	// Stopped says the script's context ended (Ctrl-C) before its end:
	// no line after line StoppedAt ran (0: none did).
	Stopped   bool
	StoppedAt int
}

// ReadyWait bounds how long a background command may take to be in place
// before the next line runs.
const ReadyWait = 5 * time.Second

// How long background jobs may take to go through what the script's lines
// had sent them (see settle): after each line, and after the last line,
// before they are stopped. Jobs say when they are through; this bound only
// keeps a job that never will (its server gone) from holding the script,
// and a note says so when the script then stops it, or a check follows.
const (
	settleLine = time.Second
	settleEnd  = 2 * time.Second
)

// Run executes every line of r against s, each once the background jobs
// have shown what the line before sent them. Output of every command, in the
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
	sp := &speakers{note: st.Note}
	// Each line waits for the jobs to show what the line before sent them,
	// as a person at a shell types the next line after seeing that: the
	// real CLI's lines, one process each, are never quicker than that.
	// Without it a key-value watch still behind on a delete never sees it
	// once the next put replaced it (a bucket keeps one revision of a key
	// by default). A job still receiving when the bound is reached keeps
	// running and shows the rest later: no note.
	check := func() { settle(s, settleLine, nil) }
	if after != nil {
		check = func() {
			settleForCheck(s, sp.note) // the script's jobs, and any a lesson started
			after()
		}
	}
	s.AddVerb(Sleep)
	raw := st
	st = sp.streams(raw, &speaker{})
	var res Result
	lines, readErr := readLines(ctx, r)
	lineNo := 0
	for {
		var text string
		more := false
		select {
		case text, more = <-lines:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			res.Stopped, res.StoppedAt = true, lineNo
			break
		}
		if !more {
			break
		}
		lineNo++
		line := strings.TrimSpace(text)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		res.Lines++
		line, bg := command.SplitBackground(line)
		if bg {
			// The job's first lines wait for its name (the lock), which
			// the session gives it as it starts.
			who := &speaker{}
			writeMu.Lock()
			j := s.StartStreams(ctx, line, sp.streams(raw, who))
			who.name = fmt.Sprintf("[%d] %s", j.ID, j.Shown())
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
		if ctx.Err() != nil {
			res.Stopped, res.StoppedAt = true, lineNo
			break
		}
		check()
	}
	// A stopped script's reading may still be going on: its error is
	// asked for only at the script's end.
	if err := readErr(); !res.Stopped && err != nil {
		res.Failed++
		refusal := command.Refusef("line %d: %v", lineNo+1, err)
		var pathErr *fs.PathError
		switch {
		case errors.Is(err, bufio.ErrTooLong):
			refusal = command.Refusef("line %d is longer than the %d bytes the lab reads in a line: put large bodies in a file and publish them with the real CLI", lineNo+1, command.MaxLineLength)
		case errors.Is(err, errBinary):
			refusal = command.Refusef("line %d holds binary data (a NUL byte), not a command: natslab run reads a text file of nats commands, one a line", lineNo+1)
		case errors.Is(err, errNotUTF8):
			refusal = command.Refusef("line %d is not UTF-8 text: save the script as UTF-8 and run it again", lineNo+1)
		case errors.As(err, &pathErr):
			// (a directory named as the script): the file, not a line
			refusal = command.Refusef("cannot read the script %s: %v", pathErr.Path, pathErr.Err)
		}
		command.ReportError(st, refusal)
	}
	settle(s, settleEnd, sp.note)
	if after != nil {
		serverQuiet(s, settleLine)
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

// readLines reads r's lines as they come, until r ends or ctx does, and
// then closes lines; readErr says why r ended (nil: at its end, or ctx
// ended first). A read waits on its own goroutine, so a script typed at a
// terminal stops at Ctrl-C rather than at the next Enter; that read may
// still be waiting when the process ends.
func readLines(ctx context.Context, r io.Reader) (lines <-chan string, readErr func() error) {
	out := make(chan string)
	var mu sync.Mutex
	var err error
	go func() {
		defer close(out)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), command.MaxLineLength+1)
		first := true
		for sc.Scan() {
			line := sc.Bytes()
			if first {
				// Editors on Windows start a UTF-8 file with a byte
				// order mark: not part of the first command.
				line = bytes.TrimPrefix(line, []byte("\ufeff"))
				first = false
			}
			// A binary file (natslab run natslab) read as lines would
			// run its garbage and fail on a stray quote: stop at it.
			if bad := notText(line); bad != nil {
				mu.Lock()
				err = bad
				mu.Unlock()
				return
			}
			select {
			case out <- string(line):
			case <-ctx.Done():
				return
			}
		}
		mu.Lock()
		err = sc.Err()
		mu.Unlock()
	}()
	// Asked for once lines is closed, err is set; before, it may be
	// being set, so it is read under the lock.
	return out, func() error {
		mu.Lock()
		defer mu.Unlock()
		return err
	}
}

var (
	errBinary  = errors.New("binary data")
	errNotUTF8 = errors.New("not UTF-8")
)

// notText says why a line is not a line of text, or nil when it is.
func notText(line []byte) error {
	switch {
	case bytes.IndexByte(line, 0) >= 0:
		return errBinary
	case !utf8.Valid(line):
		return errNotUTF8
	}
	return nil
}

// SettleForCheck returns once the session's jobs have received what the
// line before sent them and the server has gone quiet, as a script waits
// before a lesson checks the broker's state after each line: the lab's
// pane waits so between lines it runs in turn (a paste).
func SettleForCheck(s *command.Session) { settleForCheck(s, nil) }

func settleForCheck(s *command.Session, notes io.Writer) {
	settle(s, settleLine, notes)
	serverQuiet(s, settleLine)
}

// settle returns once the session's running jobs have gone through
// everything the server had routed to them: what the script's lines
// published, what their streams held, what one job sent another (a
// reply's answer to a sub). The session's own connection is flushed
// first (Session.Sync), so the server has handled what the lines sent;
// then each job that can tell waits on its own barrier (Job.Settle). A
// job's barrier may let through messages that make another job publish
// (a reply answering), so rounds of barriers go on until two in a row
// saw no job receive anything: the first flushed every publisher, the
// second found nothing more routed. At most limit: a job still not
// through is named in a note (to notes, nil drops it) and the script
// goes on.
func settle(s *command.Session, limit time.Duration, notes io.Writer) {
	s.Sync()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	for quiet := 0; quiet < 2 && ctx.Err() == nil; {
		jobs := s.Jobs()
		before := totalReceived(jobs)
		for _, j := range jobs {
			// Only the bound reached is worth a note: any other error
			// (its consumer removed, the server gone) means nothing more
			// is on its way to the job.
			err := j.Settle(ctx)
			if err != nil && !errors.Is(err, command.ErrCannotSettle) && ctx.Err() != nil {
				if notes != nil {
					writeMu.Lock()
					fmt.Fprintf(notes, "[%d] %s was still receiving after %s: the script went on, and what it received since may not be shown\n", j.ID, j.Shown(), limit)
					writeMu.Unlock()
				}
				return
			}
		}
		if totalReceived(jobs) == before {
			quiet++
		} else {
			quiet = 0
		}
	}
}

// What a check waits for after the jobs' barriers: quietLooks looks
// quietLook apart in which no job received anything. It stands in for the
// work a server does on its own after a line, which no barrier covers and
// nothing in this process is told of: a message crossing a leaf node's
// connection to the other server (the clients on the leaf are the real
// CLI's processes; a round trip through the leaf link, from a client on
// each side, would be the signal), a stopped job's connection and its
// subscriptions let go of by the server after the close (the server's
// connection list would be the signal). Replicas and
// mirrors catching up are not among them: the check waits for those on
// conditions of its own (lab/episode). A job's own deliveries are never
// waited for this way: settle's barriers say when they are through.
const (
	quietLook  = 10 * time.Millisecond
	quietLooks = 4
)

// serverQuiet waits, at most limit, until quietLooks looks in a row saw
// the running jobs receive nothing.
func serverQuiet(s *command.Session, limit time.Duration) {
	deadline := time.Now().Add(limit)
	last := totalReceived(s.Jobs())
	for quiet := 0; quiet < quietLooks && time.Now().Before(deadline); {
		time.Sleep(quietLook)
		if now := totalReceived(s.Jobs()); now == last {
			quiet++
		} else {
			last, quiet = now, 0
		}
	}
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
