package command

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/jsm.go/api"
)

// An election that takes longer than the wait, or a look that fails,
// cannot be made on purpose on a healthy cluster: the lines the lab logs
// while it waits are pinned here, on a clock of the test's, against the
// real CLI's timeline (natscli's leaderStandDown: a look every 500ms, ten
// looks, then its error).
// errLost stands for a request nobody answers: the look waits its whole
// timeout.
var errLost = errors.New("lost")

func TestLeaderWaitLogsAsNatscli(t *testing.T) {
	leading := func(name string) *api.StreamInfo {
		return &api.StreamInfo{Cluster: &api.ClusterInfo{Leader: name}}
	}
	for _, tc := range []struct {
		name  string
		at    func(elapsed time.Duration) (*api.StreamInfo, error)
		lines []string
		err   string
	}{{
		name: "a quick election logs nothing of its own",
		at: func(d time.Duration) (*api.StreamInfo, error) {
			if d < 100*time.Millisecond {
				return leading(""), nil
			}
			return leading("n2"), nil
		},
	}, {
		name: "no leader at the real CLI's first two looks",
		at: func(d time.Duration) (*api.StreamInfo, error) {
			if d < 1200*time.Millisecond {
				return leading(""), nil
			}
			return leading("n3"), nil
		},
		lines: []string{"No leader elected", "No leader elected"},
	}, {
		name: "a failed look",
		at: func(d time.Duration) (*api.StreamInfo, error) {
			if d < 600*time.Millisecond {
				return nil, errors.New("nats: timeout")
			}
			return leading("n2"), nil
		},
		lines: []string{"Failed to retrieve Stream State: nats: timeout"},
	}, {
		// A request sent while the replicas vote goes unanswered: the
		// look waits until the real CLI's first moment, not --timeout,
		// and logs nothing; the real CLI's own look then finds the leader.
		name: "a request lost between the real CLI's looks",
		at: func(d time.Duration) (*api.StreamInfo, error) {
			if d < 50*time.Millisecond {
				return nil, errLost
			}
			return leading("n2"), nil
		},
	}, {
		name:  "the old leader stays",
		at:    func(time.Duration) (*api.StreamInfo, error) { return leading("n1"), nil },
		lines: nil,
		err:   `nats: error: stream "ORDERS" did not elect a new leader in time`,
	}, {
		name:  "no leader at all",
		at:    func(time.Duration) (*api.StreamInfo, error) { return leading(""), nil },
		lines: strings.Split(strings.Repeat("No leader elected\n", 10), "\n")[:10],
		err:   `nats: error: stream "ORDERS" did not elect a new leader in time`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			now := start
			var lines []string
			w := &leaderWait{
				stream: "ORDERS", leader: "n1", timeout: 5 * time.Second,
				look: func(timeout time.Duration) (*api.StreamInfo, error) {
					info, err := tc.at(now.Sub(start))
					if err == errLost {
						now = now.Add(timeout) // no answer comes
						return nil, context.DeadlineExceeded
					}
					return info, err
				},
				now:    func() time.Time { return now },
				sleep:  func(d time.Duration) error { now = now.Add(d); return nil },
				status: func(format string, a ...any) { lines = append(lines, fmt.Sprintf(format, a...)) },
			}
			info, err := w.run()
			if elapsed := now.Sub(start); elapsed > stepDownWait+w.timeout {
				t.Errorf("the wait took %s on the test's clock", elapsed)
			}
			if fmt.Sprint(lines) != fmt.Sprint(tc.lines) {
				t.Errorf("logged %q, want %q", lines, tc.lines)
			}
			if tc.err == "" {
				if err != nil || info.Cluster.Leader == "n1" {
					t.Fatalf("want the new leader, got %v, %v", info, err)
				}
				return
			}
			if ErrorLine(err) != tc.err || !strings.Contains(ErrorNote(err), "stream info ORDERS") {
				t.Errorf("line %q note %q, want %q", ErrorLine(err), ErrorNote(err), tc.err)
			}
		})
	}
}
