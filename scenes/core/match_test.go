package core

import (
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
)

// The scene's token-by-token account of a match must reach the server's
// own verdict, for every filter and subject, and say where it failed.
func TestMatchAgreesWithTheServer(t *testing.T) {
	filters := []string{"orders.*.created", "orders.>", ">", "*", "orders", "orders.*", "orders.us.created", "*.*.created", "orders.*.>", "*.>", "orders.us.>"}
	subjects := []string{"orders", "orders.created", "orders.us.created", "orders.us.west.created", "orders.eu.created", "orders.us.shipped", "greet", "a.b.c.d.e"}
	for _, f := range filters {
		for _, subj := range subjects {
			m := match(strings.Split(f, "."), strings.Split(subj, "."))
			if want := server.SubjectMatchesFilter(subj, f); m.ok != want {
				t.Errorf("%s against %s: scene says %v, server says %v", f, subj, m.ok, want)
			}
			if !m.ok && m.why == "" {
				t.Errorf("%s against %s: a failure must say why", f, subj)
			}
			if m.ok != (m.fail < 0) {
				t.Errorf("%s against %s: ok %v but fail column %d", f, subj, m.ok, m.fail)
			}
		}
	}
}

// The three subjects of the subjects episode, against its two filters.
func TestMatchExplainsTheEpisode(t *testing.T) {
	cases := []struct {
		filter, subject string
		ok              bool
		marks           []mark
		why             string
	}{
		{"orders.*.created", "orders.us.created", true, []mark{good, good, good}, ""},
		{"orders.*.created", "orders.created", false, []mark{good, good, bad}, "ends before created"},
		{"orders.*.created", "orders.us.west.created", false, []mark{good, good, bad}, "created ≠ west"},
		{"orders.>", "orders.us.west.created", true, []mark{good, good}, ""},
		{"orders.>", "orders", false, []mark{good, bad}, "> needs a token"},
		{"orders.*", "orders.us.created", false, []mark{good, good}, "nothing takes created"},
	}
	for _, c := range cases {
		m := match(strings.Split(c.filter, "."), strings.Split(c.subject, "."))
		if m.ok != c.ok || m.why != c.why || len(m.marks) != len(c.marks) {
			t.Errorf("%s against %s: got ok=%v why=%q marks=%v", c.filter, c.subject, m.ok, m.why, m.marks)
			continue
		}
		for i := range c.marks {
			if m.marks[i] != c.marks[i] {
				t.Errorf("%s against %s: token %d marked %d, want %d", c.filter, c.subject, i, m.marks[i], c.marks[i])
			}
		}
	}
}

func TestSamplesAndSubjectChecks(t *testing.T) {
	if got := strings.Join(samples("orders.>"), " "); got != "orders.created orders.us.created orders.us.west.created" {
		t.Errorf("samples of orders.>: %s", got)
	}
	if got := strings.Join(samples("greet"), " "); got != "greet" {
		t.Errorf("samples of greet: %s", got)
	}
	for _, bad := range []string{"orders.us created", "orders..created", "orders.>.x", "orders.*", ""} {
		if checkSubject(bad) == nil {
			t.Errorf("%q is no subject to publish to", bad)
		}
	}
	for _, bad := range []string{"orders.us created", "orders..created", "orders.>.x", ""} {
		if checkFilter(bad) == nil {
			t.Errorf("%q is no filter", bad)
		}
	}
	if err := checkSubject("orders.us created"); err == nil || !strings.Contains(err.Error(), "space") {
		t.Errorf("a space must be named: %v", err)
	}
	if err := checkSubject("orders.*"); err == nil || !strings.Contains(err.Error(), "wildcard") {
		t.Errorf("a wildcard must be named: %v", err)
	}
}
