package command_test

import "testing"

func TestSwitchesTakeNoValueInEveryCommand(t *testing.T) {
	l := newLab(t)
	l.fails("pub greet hi --jetstream=maybe", "--jetstream is a switch", "on its own")
	l.fails("sub greet --raw=maybe", "--raw is a switch")
	l.fails("pub greet hi --templates=false", "--no-templates")
	l.must("pub greet hi --no-templates")
}

func TestUnknownWordsSuggestTheNearestCommand(t *testing.T) {
	l := newLab(t)
	l.fails("pbu greet hi", `unknown command "pbu"`, "did you mean pub?")
	l.fails("strem ls", "did you mean stream?")
	l.fails("pub greet hi --cont 3", "error: unknown long flag '--cont'", "did you mean --count?")
	// A flag several others begin: the nearest, then the rest, so the
	// learner who meant --max-msgs does not set the message size.
	l.must(`stream add ORDERS --subjects "orders.>" --defaults`)
	l.fails("stream edit ORDERS --max-msg 5 -f", "error: unknown long flag '--max-msg'", "did you mean --max-msgs? (or --max-msg-size, --max-msgs-per-subject)")
	l.fails("pub", "needs <subject>", `pub greet "Hello NATS!"`)
	l.fails("pub greet hi --count x", `--count wants a whole number`)
	l.fails(`pub greet 'oops`, "quote is not closed")
}
