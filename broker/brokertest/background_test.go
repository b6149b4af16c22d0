package brokertest

import (
	"strings"
	"testing"
)

func TestInterleaves(t *testing.T) {
	fg := []string{"a", "b", "", "c"}
	bg := []string{"w1", "", "w2"}
	for _, c := range []struct {
		got  string
		want bool
	}{
		{"a b  c w1  w2", true},
		{"w1  w2 a b  c", true},
		{"a w1 b  c  w2", true},
		{"a w1 b   w2 c", true},     // the blank lines may be either's
		{"a b  c w2  w1", false},    // the background's order broken
		{"b a  c w1  w2", false},    // the foreground's order broken
		{"a b  c w1  w2 w2", false}, // a line too many
		{"a b  c w1  w3", false},    // a line that differs
		{"a b c w1  w2", false},     // a line missing
	} {
		got := strings.Split(c.got, " ")
		if ok := interleaves(got, [][]string{fg, bg}); ok != c.want {
			t.Errorf("interleaves(%q) = %v, want %v", c.got, ok, c.want)
		}
	}
}

func TestSplitBackground(t *testing.T) {
	for _, c := range []struct {
		line string
		bg   bool
	}{
		{"nats kv watch B &", true},
		{"nats kv watch B  & ", true},
		{"nats kv watch B", false},
		{"nats pub s '&'", false},
		{"nats pub s a&", false},
	} {
		words, bg, err := splitBackground(c.line)
		if err != nil || bg != c.bg || (bg && words[len(words)-1] != "B") {
			t.Errorf("splitBackground(%q) = %q, %v, %v", c.line, words, bg, err)
		}
	}
}
