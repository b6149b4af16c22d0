package command_test

import (
	"testing"

	"natslab/broker/command"
)

// A line break after a line that leaves a quote open (or ends with a lone
// backslash) is inside a word, as SplitWords reads the line.
func TestQuoteOpen(t *testing.T) {
	for line, open := range map[string]bool{
		`pub greet 'Hello`:         true,
		`pub greet "Hello`:         true,
		`pub greet "a \" b`:        true,
		`pub greet Hello\`:         true,
		`pub greet 'Hello NATS'`:   false,
		`pub greet "a \" b"`:       false,
		`pub greet 'it''s'`:        false,
		`pub greet it\'s`:          false,
		`req svc '{"id": 1}' &`:    false,
		`pub greet "{\"a\": \"b\"`: true,
	} {
		if got := command.QuoteOpen(line); got != open {
			t.Errorf("QuoteOpen(%s) = %v, want %v", line, got, open)
		}
	}
}
