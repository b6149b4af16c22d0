package command

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agnivade/levenshtein"
)

// UsageError is a mistake in what was typed: nothing was sent to the broker.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usageErrorf(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

// IsUsage reports whether err is a mistake in what was typed.
func IsUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}

// ErrorLine is how an error is shown, exactly as the real CLI prints it.
func ErrorLine(err error) string {
	msg := strings.TrimSpace(err.Error())
	msg = strings.ReplaceAll(msg, "\n", " ")
	return "nats: error: " + msg
}

// suggest returns the candidate closest to word, or "" if none is close
// enough to be a likely typo.
func suggest(word string, candidates []string) string {
	best, bestDist := "", 1<<30
	w := strings.ToLower(word)
	for _, c := range candidates {
		d := levenshtein.ComputeDistance(w, strings.ToLower(c))
		if strings.HasPrefix(strings.ToLower(c), w) && len(w) >= 2 {
			d = min(d, 1)
		}
		if d == 2 && transposed(w, strings.ToLower(c)) {
			d = 1
		}
		if d < bestDist {
			best, bestDist = c, d
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
