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

// UsageError is a mistake in what was typed: nothing was sent to the broker.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usageErrorf(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

// ErrorLine is the line the real CLI prints for err, to stderr.
func ErrorLine(err error) string {
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
// reported it itself (see Reported).
func ReportError(st Streams, err error) {
	if err == nil {
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
	if errors.As(err, &pe) {
		if st.Err != nil {
			_, _ = io.WriteString(st.Err, "\n")
		}
		if st.Out != nil {
			_, _ = io.WriteString(st.Out, pe.usage)
		}
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
	best, bestDist, bestTrue := "", 1<<30, 1<<30
	w := strings.ToLower(word)
	for _, c := range candidates {
		trueDist := levenshtein.ComputeDistance(w, strings.ToLower(c))
		d := trueDist
		if strings.HasPrefix(strings.ToLower(c), w) && len(w) >= 2 {
			d = min(d, 1)
		}
		if d == 2 && transposed(w, strings.ToLower(c)) {
			d = 1
		}
		// Among candidates as likely (several that word begins), the
		// nearest wins: --max-msg is --max-msgs, not --max-msg-size.
		if d < bestDist || (d == bestDist && trueDist < bestTrue) {
			best, bestDist, bestTrue = c, d, trueDist
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
