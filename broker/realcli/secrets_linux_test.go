package realcli_test

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/realcli"
)

// lockedBuf collects what the child prints and says when it printed.
type lockedBuf struct {
	mu      sync.Mutex
	b       bytes.Buffer
	printed chan struct{}
	once    sync.Once
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.once.Do(func() { close(l.printed) })
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A secret on the line the real CLI runs (--token, --password, a URL with
// user info) never shows in the child's arguments, which every user of
// the machine may read (ps); the real CLI still gets it: it connects to a
// server that wants the token.
func TestChildArgumentsHideSecrets(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real nats CLI")
	}
	const token = "s3cret-t0ken"
	srv := brokertest.Start(t, brokertest.WithToken(token))
	u, err := url.Parse(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	withToken := "nats://" + token + "@" + u.Host
	for i, args := range [][]string{
		{"--token", token},
		{"--token=" + token},
		{"--server", withToken},
		{"-s", withToken},
		{"--user", token},
	} {
		t.Run(args[0], func(t *testing.T) {
			subject := fmt.Sprintf("secrets.check%d", i)
			out := &lockedBuf{printed: make(chan struct{})}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				done <- realcli.Child{Args: append([]string{"sub", subject}, args...), Conn: realcli.Conn{URL: srv.ClientURL()}, Home: t.TempDir(), Stdout: out, Stderr: out}.Run(ctx)
			}()
			defer func() { cancel(); <-done }()
			select {
			case <-out.printed:
			case err := <-done:
				t.Fatalf("the child ended: %v\n%s", err, out.String())
			case <-time.After(20 * time.Second):
				t.Fatal("the child never printed")
			}
			cmdline := childCmdline(t, subject)
			if strings.Contains(cmdline, token) {
				t.Errorf("the child's arguments show the secret: %q", cmdline)
			}
			// Its subscription at the server: the server took the token.
			var ended error
			endedEarly := false
			subscribed := broker.WaitFor(10*time.Second, func() bool {
				select {
				case ended = <-done:
					endedEarly = true
					done <- ended
					return true
				default:
				}
				return srv.Monitor().Interest(subject) > 0
			})
			if endedEarly {
				t.Fatalf("the child ended without subscribing: %v\n%s", ended, out.String())
			}
			if !subscribed {
				t.Fatalf("the child never subscribed:\n%s", out.String())
			}
		})
	}
}

// childCmdline finds the running child whose arguments name subject and
// returns them, space-separated.
func childCmdline(t *testing.T, subject string) string {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		words := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(words) > 2 && words[1] == realcli.ChildArg && strings.Contains(string(b), subject) {
			return strings.Join(words, " ")
		}
	}
	t.Fatalf("no child names %s", subject)
	return ""
}
