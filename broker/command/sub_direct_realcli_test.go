package command_test

import "testing"

// TestSubDirectSinceAsTheRealCLI: natscli's direct read with --since
// prints the first message since then and goes on from where --new would
// start, one further: the rest of what the stream held, and the first
// message stored after, it never prints. The lab prints the same, the real
// CLI and the lab reading the same stream while three more are published.
func TestSubDirectSinceAsTheRealCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real nats CLI")
	}
	l := newLab(t)
	url := realURL(t, l)
	l.must(`stream add S --subjects 's.>' --defaults`)
	for _, m := range []string{"m1", "m2", "m3"} {
		l.must(`pub s.a ` + m)
	}
	const line = `sub --stream S --direct --since 1h --count 3 --raw`
	// The real CLI says what it reads once it has read where the stream
	// ends.
	real := startRealSub(t, url, "sub", "--stream", "S", "--direct", "--since", "1h", "--count", "3", "--raw")
	j, labOut := l.background(line)
	waitReady(t, j)
	for _, m := range []string{"m4", "m5", "m6"} {
		l.must(`pub s.a ` + m)
	}
	waitDone(t, j)
	sameOutput(t, line, labOut.String(), real.output())
}
