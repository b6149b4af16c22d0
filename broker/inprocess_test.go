package broker

import (
	"errors"
	"io"
	"net"
	"testing"
)

// A write returns before the other side reads, as on a socket; what was
// written before Close still arrives, in order, and then the pipe ends;
// writing after Close fails.
func TestBufferedConnSendsLikeASocket(t *testing.T) {
	client, server := net.Pipe()
	b := newBufferedConn(client)
	// Nobody reads yet: on a bare pipe this would block for ever.
	for _, part := range []string{"CONNECT {}\r\n", "PING\r\n"} {
		if _, err := b.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Write([]byte("late")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a write after Close: %v", err)
	}
	got, err := io.ReadAll(server)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "CONNECT {}\r\nPING\r\n" {
		t.Fatalf("the other side read %q", got)
	}
	if _, err := b.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a read after Close: %v", err)
	}
}
