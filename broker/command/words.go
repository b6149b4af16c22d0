package command

import (
	"errors"
	"strings"

	shellquote "github.com/kballard/go-shellquote"
)

// MaxLineLength bounds one command line; anything longer is surely a paste
// gone wrong, and is refused before any work is done.
const MaxLineLength = 64 * 1024

// SplitWords splits a command line the way a POSIX shell would (quotes,
// backslash escapes) and drops a leading "nats".
func SplitWords(line string) ([]string, error) {
	if len(line) > MaxLineLength {
		return nil, usageErrorf("the command is %d bytes long; the lab accepts up to %d (put large bodies in a file and publish them with the real CLI)", len(line), MaxLineLength)
	}
	words, err := shellquote.Split(StripComment(line))
	if err != nil {
		var what string
		switch {
		case errors.Is(err, shellquote.UnterminatedSingleQuoteError):
			what = "a ' quote is not closed"
		case errors.Is(err, shellquote.UnterminatedDoubleQuoteError):
			what = `a " quote is not closed`
		case errors.Is(err, shellquote.UnterminatedEscapeError):
			what = `the line ends with a lone \`
		default:
			what = err.Error()
		}
		return nil, usageErrorf("%s: close it and try again, for example: pub greet 'Hello NATS!'", what)
	}
	if len(words) > 0 && words[0] == "nats" {
		words = words[1:]
	}
	return words, nil
}

// splitCommand is SplitWords for a line to run: a shell pipeline (an
// unquoted |, as in natscli's cheat sheet: echo "hello world" | nats pub
// destination.subject) is refused in one line, as the lab runs one
// command per line and pipes nothing into it or out of it.
func splitCommand(line string) ([]string, error) {
	words, err := SplitWords(line)
	if err != nil || !pipes(StripComment(line)) {
		return words, err
	}
	return nil, usageErrorf("the line is a shell pipeline (|), and the lab runs one nats command per line, not a shell: give pub or request its body as an argument (pub greet 'hello world'), and run pipelines in a shell with the real nats CLI")
}

// pipes reports whether line holds a | outside quotes and not escaped,
// which a shell reads as a pipe.
func pipes(line string) bool {
	return unquoted(line, func(i int, _ bool) bool { return line[i] == '|' }) >= 0
}

// QuoteOpen reports whether line leaves a quote open or ends with a lone
// backslash, as SplitWords reads it: a line break after it is inside a
// word.
func QuoteOpen(line string) bool {
	_, err := shellquote.Split(StripComment(line))
	return errors.Is(err, shellquote.UnterminatedSingleQuoteError) ||
		errors.Is(err, shellquote.UnterminatedDoubleQuoteError) ||
		errors.Is(err, shellquote.UnterminatedEscapeError)
}

// StripComment drops a shell comment from line: from a # that begins a
// word, outside quotes, to the end, as a shell reads the lines docs
// annotate (stream ls  # every stream). A # inside a word (a#b) or quoted
// is the word's.
func StripComment(line string) string {
	if i := unquoted(line, func(i int, wordStart bool) bool { return line[i] == '#' && wordStart }); i >= 0 {
		return strings.TrimRight(line[:i], " \t\n")
	}
	return line
}

// unquoted reads line as a shell does and returns the index of the first
// byte outside quotes and escapes for which found holds (told whether the
// byte begins a word), or -1.
func unquoted(line string, found func(i int, wordStart bool) bool) int {
	var quote byte // the quote a quoted part is in, 0 outside
	wordStart := true
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quote == '\'':
			if ch == '\'' {
				quote = 0
			}
		case quote == '"':
			if ch == '\\' {
				i++
			} else if ch == '"' {
				quote = 0
			}
		case ch == '\\':
			i++
		case ch == '\'' || ch == '"':
			quote = ch
		case ch == ' ' || ch == '\t' || ch == '\n':
			wordStart = true
			continue
		case found(i, wordStart):
			return i
		}
		wordStart = false
	}
	return -1
}

// SplitBackground reports whether line ends with a shell-style "&" (run in
// the background) and returns the line without it.
func SplitBackground(line string) (string, bool) {
	t := strings.TrimRight(StripComment(line), " \t")
	if !strings.HasSuffix(t, "&") || strings.HasSuffix(t, "&&") {
		return line, false
	}
	rest := strings.TrimRight(strings.TrimSuffix(t, "&"), " \t")
	// Only a bare & counts: one inside quotes belongs to the argument.
	if words, err := shellquote.Split(rest); err != nil || len(words) == 0 {
		return line, false
	}
	if _, err := shellquote.Split(t); err != nil {
		return line, false
	}
	return rest, true
}

// Quote joins words back into a line a shell would split the same way.
func Quote(words []string) string { return shellquote.Join(words...) }
