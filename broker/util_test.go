package broker_test

import (
	"bytes"
	"strings"
	"sync"
	"time"
)

// syncBuffer collects what is written from any goroutine and says when it
// holds a given text.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written chan struct{} // closed at the next write
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written != nil {
		close(s.written)
		s.written = nil
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor returns once the buffer holds want, or false after limit.
func (s *syncBuffer) waitFor(want string, limit time.Duration) bool {
	timeout := time.After(limit)
	for {
		s.mu.Lock()
		if strings.Contains(s.b.String(), want) {
			s.mu.Unlock()
			return true
		}
		if s.written == nil {
			s.written = make(chan struct{})
		}
		next := s.written
		s.mu.Unlock()
		select {
		case <-next:
		case <-timeout:
			return false
		}
	}
}
