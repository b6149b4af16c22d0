package jsonwarm

import "testing"

// The warming goes down every level of a stream's description only if
// the list encodes and decodes whole.
func TestWarmDecodesTheStreamItEncoded(t *testing.T) {
	if err := warm(); err != nil {
		t.Fatal(err)
	}
}
