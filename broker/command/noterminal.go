package command

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/dustin/go-humanize"
	"github.com/nats-io/jsm.go"

	"natslab/broker/text"
)

// The real CLI, run where it has no terminal (a script, a pipe, the lab's
// pane), refuses where it would ask: a prompt for a value, a confirmation,
// a stream or consumer picked from a list. The lab does what it does, word
// for word, and its note says which flag or argument avoids the question.
// The lab's pane may still confirm a destructive command itself (see
// Call.confirm): that stands in for the real CLI's own y/N prompt.

var (
	// errNoPrompt is survey's refusal to prompt for a value.
	errNoPrompt = errors.New("cannot prompt for user input without a terminal")
	// errNoConfirm is natscli's refusal to ask a yes/no question, or a
	// number (askOneInt, askOneBytes say it too).
	errNoConfirm = errors.New("cannot ask for confirmation without a terminal")
	// errNoPickStream is selectStream's, when the stream named does not
	// exist (or none is named).
	errNoPickStream = errors.New("cannot pick a Stream without a terminal and no Stream name supplied")
	// errNoPickConsumer is selectConsumer's, where a consumer would be
	// picked from a list.
	errNoPickConsumer = errors.New("cannot pick a Consumer without a terminal and no Consumer name supplied")
)

// fatalIf is fisk.FatalIfError's message: "prefix: err" (or err alone).
func fatalIf(err error, format string, a ...any) error {
	if err == nil {
		return nil
	}
	if format == "" {
		return err
	}
	return fmt.Errorf("%s: %w", fmt.Sprintf(format, a...), err)
}

// wouldPrompt is the real CLI's refusal to prompt for what a flag would
// have given, as fisk.FatalIfError(err, "invalid input") prints it, with
// the lab's note naming the flag.
func wouldPrompt(refusal error, what, flag string) error {
	return explain(fatalIf(refusal, "invalid input"), "the real CLI asks for %s here, and has no terminal to ask in: give %s", what, flag)
}

// wouldPromptDefaults is wouldPrompt where --defaults would have answered.
func wouldPromptDefaults(refusal error, what, flag string) error {
	return explain(fatalIf(refusal, "invalid input"), "the real CLI asks for %s here, and has no terminal to ask in: give %s, or add --defaults to take the defaults for everything not given", what, flag)
}

// selectStream is natscli's: the stream named, when it loads. Otherwise
// the real CLI would offer a list to pick from, which needs a terminal;
// the lab's note names the streams instead. known is true when the name
// exists but could not be loaded (natscli carries on with the name).
func (c *Call) selectStream(mgr *jsm.Manager, stream string, all bool) (*jsm.Stream, error) {
	return c.selectStreamFor(mgr, stream, all, "could not pick a Stream to operate on")
}

// selectStreamFor is selectStream where the real CLI's command says what
// it could not do in words of its own (consumer add: "could not select
// Stream").
func (c *Call) selectStreamFor(mgr *jsm.Manager, stream string, all bool, prefix string) (*jsm.Stream, error) {
	if stream != "" {
		if s, err := mgr.LoadStream(stream); err == nil {
			return s, nil
		}
	}
	names, err := mgr.StreamNames(nil)
	if err != nil {
		return nil, c.explainAPI(fatalIf(err, "%s", prefix))
	}
	var matched, internal []string
	for _, n := range names {
		if n == stream {
			return nil, nil
		}
		if all || !jsm.IsInternalStream(n) {
			matched = append(matched, n)
		} else {
			internal = append(internal, n)
		}
	}
	note := streamChoiceNote(stream, matched)
	if len(matched) == 0 && len(internal) > 0 {
		// The real CLI offers no bucket's stream to pick: there are
		// streams, only none of those.
		what, todo := "there are no streams to pick", "create one with stream add ORDERS"
		if stream != "" {
			what, todo = fmt.Sprintf("there is no stream %s", stream), "create it with stream add "+stream
		}
		note = fmt.Sprintf(`%s, only those that keep key-value buckets and object stores (%s): %s --subjects "orders.>" --defaults`, what, strings.Join(internal, ", "), todo)
	}
	return nil, explain(fatalIf(errNoPickStream, "%s", prefix), "%s", note)
}

// streamChoiceNote says which streams exist, for a name that is not one.
func streamChoiceNote(stream string, names []string) string {
	switch {
	case len(names) == 0 && stream == "":
		return `there are no streams yet: create one with stream add ORDERS --subjects "orders.>" --defaults`
	case len(names) == 0:
		return fmt.Sprintf(`there is no stream %s, nor any other yet: create it with stream add %s --subjects "orders.>" --defaults`, stream, stream)
	case stream == "":
		return fmt.Sprintf("name the stream on the line: %s", strings.Join(names, ", "))
	}
	return fmt.Sprintf("there is no stream %s%s (streams: %s)", stream, didYouMean(stream, names), strings.Join(names, ", "))
}

// parseBytes is natscli's ParseStringAsBytes: "" and anything negative is
// -1 (unlimited), a plain number is bytes, a number with a unit (K, KB,
// KiB, M … TB, 1024-based) is multiplied out.
func parseBytes(s string, bitSize int) (int64, error) {
	if s == "" {
		return -1, nil
	}
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-") {
		return -1, nil
	}
	if num, err := strconv.ParseInt(s, 10, bitSize); err == nil {
		if num < 0 {
			return -1, nil
		}
		return num, nil
	}
	m := bytesUnitSplitter().FindStringSubmatch(s)
	if len(m) == 0 {
		return 0, fmt.Errorf("invalid bytes specification %v: %w", s, errInvalidByteString)
	}
	num, err := strconv.ParseInt(m[1], 10, bitSize)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", errBytesOutOfRange, fmt.Sprintf("maximum value %v", humanize.Comma(bitSizeRange[bitSize])))
	}
	mult, ok := map[string]int64{"B": 0, "K": 10, "KB": 10, "KIB": 10, "M": 20, "MB": 20, "MIB": 20, "G": 30, "GB": 30, "GIB": 30, "T": 40, "TB": 40, "TIB": 40}[strings.ToUpper(m[2])]
	if !ok {
		return 0, fmt.Errorf("invalid bytes specification %v: %w", s, errInvalidByteString)
	}
	return num * (1 << mult), nil
}

var (
	bytesUnitSplitter    = text.Pattern(`^(\d+)(\w+)`)
	errInvalidByteString = errors.New("bytes must end in B, K, KB, M, MB, G, GB, T or TB")
	errBytesOutOfRange   = errors.New("bytes value out of allowed range")
	bitSizeRange         = map[int]int64{8: math.MaxInt8, 16: math.MaxInt16, 32: math.MaxInt32, 64: math.MaxInt64}
)

// splitSubjects is natscli's SplitCLISubjects: a value holding commas or
// spaces is several subjects.
func splitSubjects(subjects []string) []string {
	res := []string{}
	for _, s := range subjects {
		if strings.ContainsAny(s, ",\t\n\f\r ") {
			res = append(res, strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })...)
		} else {
			res = append(res, s)
		}
	}
	return res
}
