package command

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/agnivade/levenshtein"

	"natslab/broker"
)

// UsageError is the lab's own refusal of a line, in its own words: a
// mistake in what was typed that the lab catches itself, or a line the lab
// does not run (the real CLI with no listener to reach, a command that
// needs a terminal of its own). Nothing was sent to the broker. The real
// CLI never prints such a line, so it is never printed as one of its
// lines: see Refusal and ReportError.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usageErrorf(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

// Refusef is the lab's own refusal of a line (a UsageError), for the lab's
// verbs and lessons outside this package.
func Refusef(format string, a ...any) error { return usageErrorf(format, a...) }

// labError is a failure in the lab's own words that is no refusal of a
// line: a lab verb's (lesson, leaf start, nats-server …), or a bug of the
// lab's caught running a line. The real CLI never prints it either.
type labError struct{ err error }

func (e *labError) Error() string { return e.err.Error() }
func (e *labError) Unwrap() error { return e.err }

// inLabVoice marks err, a lab verb's failure, as the lab's own words,
// unless the real CLI has printed it already or it is one already.
func inLabVoice(err error) error {
	if err == nil || Reported(err) || errors.Is(err, errSilent) {
		return err
	}
	if _, ok := Refusal(err); ok {
		return err
	}
	return &labError{err}
}

// LabPrefix leads the lab's own refusals where they share a stream with
// the real CLI's lines and no style tells them apart (natslab run's
// stderr), as natslab's own errors are led.
const LabPrefix = "natslab: "

// Refusal is what the lab says, in its own words, when err is the lab's
// own refusal of a line or another failure in its words (a UsageError, a
// lab verb's failure, a bug of the lab's) rather than one the real CLI
// would report: ok is false otherwise. The message has no prefix; user
// info in a URL is masked.
func Refusal(err error) (msg string, ok bool) {
	var u *UsageError
	var le *labError
	if !errors.As(err, &u) && !errors.As(err, &le) {
		return "", false
	}
	return strings.ReplaceAll(strings.TrimSpace(broker.Redact(err.Error())), "\n", " "), true
}

// ErrorLine is the line printed for err to stderr: the real CLI's line
// (nats: error: …), or for the lab's own refusal the lab's (natslab: …).
func ErrorLine(err error) string {
	if msg, ok := Refusal(err); ok {
		return LabPrefix + msg
	}
	var pe *parseError
	if errors.As(err, &pe) {
		return "error: " + broker.Redact(pe.msg)
	}
	// The one change to the real CLI's line: user info in a URL is masked.
	msg := strings.TrimSpace(broker.Redact(err.Error()))
	// Errors joined by the library (errors.Join) are one line each in the
	// real CLI's output too; any other line break is the lab's to fold.
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) {
		msg = strings.ReplaceAll(msg, "\n", " ")
	}
	return "nats: error: " + msg
}

// errSilent ends a command where the real CLI exits with status 1 having
// said all it says (os.Exit(1), log.Fatalf after its own line): it counts
// as a failure, and ReportError prints no error line for it.
var errSilent = errors.New("exit status 1")

// ReportError writes err as the real CLI reports it (to st.Err) and the
// lab's note about it, if any (to st.Note); nothing when the real CLI has
// reported it itself (see Reported). The lab's own refusal (see Refusal)
// is no line of the real CLI's: it goes to st.Lab, or, where st.Lab is
// nil, to st.Err led by LabPrefix.
func ReportError(st Streams, err error) {
	if err == nil {
		return
	}
	if msg, ok := Refusal(err); ok {
		w := st.Lab
		if w == nil {
			w, msg = st.Err, LabPrefix+msg
		}
		if w != nil {
			_, _ = io.WriteString(w, msg+"\n")
		}
		if n := ErrorNote(err); n != "" && st.Note != nil {
			_, _ = io.WriteString(st.Note, n+"\n")
		}
		return
	}
	if Reported(err) {
		if n := ErrorNote(err); n != "" && st.Note != nil {
			_, _ = io.WriteString(st.Note, n+"\n")
		}
		return
	}
	if st.Err != nil && !errors.Is(err, errSilent) {
		_, _ = io.WriteString(st.Err, ErrorLine(err)+"\n")
	}
	var pe *parseError
	if errors.As(err, &pe) && st.Err != nil {
		_, _ = io.WriteString(st.Err, "\n")
	}
	if n := ErrorNote(err); n != "" && st.Note != nil {
		_, _ = io.WriteString(st.Note, n+"\n")
	}
}

// MarkNotes returns a writer that starts every line written to it with
// NoteMarker: for notes shown in a stream of their own, such as
// natslab run --explain's stderr.
func MarkNotes(w io.Writer) io.Writer { return &markWriter{w: w, start: true} }

type markWriter struct {
	mu    sync.Mutex
	w     io.Writer
	start bool // the next byte starts a line
}

func (m *markWriter) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b []byte
	for _, c := range p {
		if m.start {
			b = append(b, NoteMarker...)
		}
		b = append(b, c)
		m.start = c == '\n'
	}
	if _, err := m.w.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}

// notedError is a failure the real CLI reports as err, with the lab's
// explanation of it kept apart, so the real line stays as the real CLI
// prints it.
type notedError struct {
	err  error
	note string
}

func (e *notedError) Error() string { return e.err.Error() }
func (e *notedError) Unwrap() error { return e.err }

// explain attaches the lab's note to err: ErrorLine still prints err as the
// real CLI does, ErrorNote says what the lab adds. A nil err stays nil.
func explain(err error, format string, a ...any) error {
	if err == nil {
		return nil
	}
	return &notedError{err: err, note: fmt.Sprintf(format, a...)}
}

// noteOf is real, the library's error as the real CLI prints it, with the
// lab's explanation of it (why, an error of the lab's words) as its note.
func noteOf(real, why error) error {
	if why == nil {
		return real
	}
	note := why.Error()
	if n := ErrorNote(why); n != "" {
		note += ": " + n
	}
	return explain(real, "%s", note)
}

// lookNote is real with what the lab's own look at the same thing found
// (look, its error): where the look's error carries a note, the note alone,
// since its line is the library's again and real prints that; else as
// noteOf.
func lookNote(real, look error) error {
	n := ErrorNote(look)
	switch {
	case n == "":
		return noteOf(real, look)
	case n == ErrorNote(real):
		return real
	}
	return explain(real, "%s", n)
}

// ErrorNote is the lab's explanation of err, one line per note, oldest
// cause first; "" when the lab has nothing to add to the real CLI's line.
func ErrorNote(err error) string {
	var notes []string
	for err != nil {
		if n, ok := err.(*notedError); ok && n.note != "" {
			notes = append([]string{n.note}, notes...)
		}
		err = errors.Unwrap(err)
	}
	return strings.Join(notes, "\n")
}

// suggest returns the candidate closest to word, or "" if none is close
// enough to be a likely typo.
func suggest(word string, candidates []string) string {
	best, bestDist, bestTrue, bestBegun := "", 1<<30, 1<<30, false
	w := strings.ToLower(word)
	for _, c := range candidates {
		trueDist := levenshtein.ComputeDistance(w, strings.ToLower(c))
		d := trueDist
		begun := strings.HasPrefix(strings.ToLower(c), w) && len(w) >= 2
		if begun {
			d = min(d, 1)
		}
		if d == 2 && transposed(w, strings.ToLower(c)) {
			d = 1
		}
		// Among candidates as likely (several that word begins), the
		// nearest wins: --max-msg is --max-msgs, not --max-msg-size. As
		// near, one that word begins wins: su is sub unfinished, not the
		// alias s with a letter too many.
		if d < bestDist || (d == bestDist && (trueDist < bestTrue || (trueDist == bestTrue && begun && !bestBegun))) {
			best, bestDist, bestTrue, bestBegun = c, d, trueDist, begun
		}
	}
	limit := 2
	if len(word) <= 3 {
		limit = 1
	}
	if len(word) >= 8 {
		limit = 3
	}
	if bestDist <= limit {
		return best
	}
	return ""
}

// didYouMean formats a suggestion, or "" when there is none.
func didYouMean(word string, candidates []string) string {
	if s := suggest(word, candidates); s != "" {
		return fmt.Sprintf(": did you mean %s?", s)
	}
	return ""
}

// transposed reports whether a and b differ by two neighbouring letters
// swapped ("pbu" for "pub"), the commonest typo of all.
func transposed(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i+1 < len(a); i++ {
		if a[i] != b[i] {
			return a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
		}
	}
	return false
}
