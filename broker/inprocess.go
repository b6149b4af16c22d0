package broker

import (
	"net"
	"sync"
	"time"
)

// sendBufferSize bounds what an in-process client may have written and
// the server not yet read, as a socket's send buffer does.
const sendBufferSize = 4 << 20

// bufferedConn gives an in-process connection (nats-server's net.Pipe)
// what a TCP socket has and a pipe lacks: a send buffer. A pipe's Write
// returns only once the other side has read every byte, so a client
// writing CONNECT and PING to a server that closes it after reading the
// CONNECT (a user a reload no longer lets in) waits for ever, holding its
// connection's lock, while the server waits to write its -ERR to a client
// that is not reading: nats.go never learns why and reconnects for ever.
// Here writes go to a buffer a goroutine of its own hands to the pipe, so
// the client goes on to read the server's answer, as over TCP.
type bufferedConn struct {
	net.Conn
	mu      sync.Mutex
	cond    *sync.Cond
	pending []byte
	spare   []byte
	closed  bool  // Close was called: no more writes, reads end
	err     error // the pipe refused a write: later writes fail with it
}

func newBufferedConn(c net.Conn) *bufferedConn {
	b := &bufferedConn{Conn: c}
	b.cond = sync.NewCond(&b.mu)
	go b.pump()
	return b
}

func (b *bufferedConn) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for !b.closed && b.err == nil && len(b.pending) > 0 && len(b.pending)+len(p) > sendBufferSize {
		b.cond.Wait()
	}
	switch {
	case b.closed:
		return 0, net.ErrClosed
	case b.err != nil:
		return 0, b.err
	}
	b.pending = append(b.pending, p...)
	b.cond.Broadcast()
	return len(p), nil
}

// pump hands what was written to the pipe, in order. After Close it
// still delivers what was written before, as a socket does, then closes
// the pipe; if the server stops reading, the pipe ends when the server
// closes its side.
func (b *bufferedConn) pump() {
	defer b.Conn.Close()
	for {
		b.mu.Lock()
		for len(b.pending) == 0 && !b.closed {
			b.cond.Wait()
		}
		if len(b.pending) == 0 {
			b.mu.Unlock()
			return
		}
		chunk := b.pending
		b.pending, b.spare = b.spare[:0], nil
		b.mu.Unlock()
		_, err := b.Conn.Write(chunk)
		b.mu.Lock()
		b.spare = chunk[:0]
		if err != nil {
			b.err, b.pending = err, nil
		}
		b.cond.Broadcast()
		b.mu.Unlock()
		if err != nil {
			return
		}
	}
}

func (b *bufferedConn) Read(p []byte) (int, error) {
	n, err := b.Conn.Read(p)
	if err != nil {
		b.mu.Lock()
		if b.closed {
			err = net.ErrClosed
		}
		b.mu.Unlock()
	}
	return n, err
}

// Close ends reading at once and writing once what was written has gone.
func (b *bufferedConn) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return net.ErrClosed
	}
	b.closed = true
	b.cond.Broadcast()
	// A reader blocked on the pipe returns now.
	return b.Conn.SetReadDeadline(time.Now())
}

// Writes never wait on the pipe, so its deadlines are the buffer's
// business: the client's write deadline has nothing to bound.
func (b *bufferedConn) SetWriteDeadline(time.Time) error { return nil }

func (b *bufferedConn) SetDeadline(t time.Time) error { return b.Conn.SetReadDeadline(t) }
