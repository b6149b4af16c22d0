package broker

import (
	"strings"
)

// Masked is what stands for a secret wherever the lab shows a URL, as
// net/url's URL.Redacted writes it.
const Masked = "xxxxx"

// Redact masks the user info of every URL in text: nats://alice:s3cret@host
// becomes nats://alice:xxxxx@host, and nats://TOKEN@host, where the user
// name is a token (as nats.go reads it), nats://xxxxx@host. It is the one
// way the lab shows a URL, an error or a log line that may carry one: on a
// projector, a password on screen is a password given away. Text without
// user info comes back as it was.
func Redact(text string) string { return redact(text, false) }

// RedactURL is Redact for a value known to be a URL (or a comma-separated
// list of them), such as --server's: its user info is masked even where it
// holds a space, which in free text would end the URL.
func RedactURL(urls string) string { return redact(urls, true) }

func redact(text string, whole bool) string {
	if !strings.Contains(text, "://") || !strings.Contains(text, "@") {
		return text
	}
	var b strings.Builder
	rest := text
	for {
		i := strings.Index(rest, "://")
		if i < 0 {
			b.WriteString(rest)
			return b.String()
		}
		quote := quoteBefore(rest[:i])
		b.WriteString(rest[:i+3])
		rest = rest[i+3:]
		// The authority runs to the end of the word (of the quotes, for a
		// quoted URL: errors quote the URL they could not parse), or to the
		// next URL of a comma-separated list; its user info to its last
		// '@' (a password may hold an '@' or a '/' that was not escaped).
		end := strings.IndexFunc(rest, endsWord)
		if whole {
			end = -1
		} else if quote != 0 {
			end = strings.IndexRune(rest, quote)
		}
		if end < 0 {
			end = len(rest)
		}
		if next := strings.Index(rest[:end], "://"); next >= 0 {
			if comma := strings.LastIndex(rest[:next], ","); comma >= 0 {
				end = comma
			}
		}
		at := strings.LastIndex(rest[:end], "@")
		if at < 0 {
			continue
		}
		user, _, hasPassword := strings.Cut(rest[:at], ":")
		if hasPassword {
			b.WriteString(user + ":" + Masked)
		} else {
			b.WriteString(Masked)
		}
		rest = rest[at:]
	}
}

// HasUserInfo reports whether text holds a URL with user info (a user and
// password, or a token).
func HasUserInfo(text string) bool { return Redact(text) != text }

// quoteBefore is the quote that opens the word a URL's scheme ends, or 0.
func quoteBefore(text string) rune {
	start := strings.LastIndexFunc(text, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '.' || r == '-')
	})
	if start >= 0 {
		switch q := rune(text[start]); q {
		case '"', '\'', '`':
			return q
		}
	}
	return 0
}

func endsWord(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', '<', '>':
		return true
	}
	return false
}

// redactedError shows its error with the user info of every URL masked,
// and still unwraps to it (errors.Is keeps working).
type redactedError struct{ err error }

func (e redactedError) Error() string { return Redact(e.err.Error()) }
func (e redactedError) Unwrap() error { return e.err }

// RedactError is err with the user info of every URL in its message
// masked; nil stays nil. Errors from nats.go and net/url quote the URL they
// were given.
func RedactError(err error) error {
	if err == nil || !HasUserInfo(err.Error()) {
		return err
	}
	return redactedError{err}
}
