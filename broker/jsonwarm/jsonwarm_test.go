package jsonwarm

import "testing"

// The warming goes down every level of a message only if it encodes and
// decodes whole.
func TestWarmDecodesWhatItEncoded(t *testing.T) {
	if err := warmConnection(); err != nil {
		t.Fatal(err)
	}
	if err := warmStreamList(); err != nil {
		t.Fatal(err)
	}
}
