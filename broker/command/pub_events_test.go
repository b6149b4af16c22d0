package command_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"

	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// eventLab is a lab that keeps every event its session told.
func eventLab(t *testing.T) (*lab, func() []command.Event) {
	var mu sync.Mutex
	var events []command.Event
	srv := brokertest.Start(t)
	l := &lab{t: t, srv: srv, changed: make(chan struct{}, 1)}
	l.s = command.NewSession(srv, command.WithTimeout(2*time.Second), command.WithObserver(func(e command.Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
		l.poke()
	}))
	t.Cleanup(l.s.Close)
	return l, func() []command.Event {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(events)
	}
}

// A core pub tells the observer each subject it sends, as sent (its
// templates filled in), before the message goes: lesson checks pair it
// with what a subscriber received through a mapping.
func TestPubTellsWhatItSends(t *testing.T) {
	l, events := eventLab(t)
	l.must(`pub "jobs.{{Count}}" "job {{Count}}" --count 3`)
	var got []string
	for _, e := range events() {
		if e.Kind == command.Published {
			got = append(got, e.Subject)
		}
	}
	if fmt.Sprint(got) != "[jobs.1 jobs.2 jobs.3]" {
		t.Errorf("published events: %v", got)
	}
}

// A stream that refuses a pub --jetstream (full, discard new) answers with
// its error: the real CLI's line, and an event that names the stream and
// the server's error code. A stored publish and a plain pub tell none.
func TestPubJetStreamTellsARefusal(t *testing.T) {
	l, events := eventLab(t)
	l.must(`stream add ORDERS --subjects "orders.>" --max-msgs 1 --discard new --defaults`)
	l.must(`pub orders.new first --jetstream`)
	l.must(`pub orders.new plain`)
	l.fails(`pub orders.new second --jetstream`, "nats: error: maximum messages exceeded (10077)")
	var refused []string
	for _, e := range events() {
		if e.Kind == command.PublishRefused {
			refused = append(refused, fmt.Sprintf("%s %s %d %v", e.Subject, e.Stream, e.Code, e.Err))
		}
	}
	if fmt.Sprint(refused) != "[orders.new ORDERS 10077 maximum messages exceeded (10077)]" {
		t.Errorf("refusal events: %q", refused)
	}
}

// A job's end is told while the job still holds its number and before
// whoever waits on it (Run, Done) goes on: a line run after another finds
// every event of the one before told, and never a number the observer
// still knows as the other job's. (The next job takes the lowest free
// number: told late, the first job's end was taken for the second's, and
// a lesson counted the second's messages as two subscribers'.)
func TestAJobsEndIsToldBeforeItIsDone(t *testing.T) {
	srv := brokertest.Start(t, brokertest.InProcessOnly())
	var s *command.Session
	var mu sync.Mutex
	var told []string
	s = command.NewSession(srv, command.WithObserver(func(e command.Event) {
		line := fmt.Sprintf("%d %d", e.Kind, e.Job)
		if e.Kind == command.JobEnded {
			j := s.Job(e.Job)
			switch {
			case j == nil:
				line += " (its number already free)"
			default:
				select {
				case <-j.Done():
					line += " (already done)"
				default:
				}
			}
		}
		mu.Lock()
		told = append(told, line)
		mu.Unlock()
	}))
	defer s.Close()
	for _, line := range []string{"pub a x", "pub b y"} {
		if err := s.Run(context.Background(), line, io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	started, published, ended := command.JobStarted, command.Published, command.JobEnded
	want := []string{
		fmt.Sprintf("%d 1", started), fmt.Sprintf("%d 1", published), fmt.Sprintf("%d 1", ended),
		fmt.Sprintf("%d 1", started), fmt.Sprintf("%d 1", published), fmt.Sprintf("%d 1", ended),
	}
	if !slices.Equal(told, want) {
		t.Errorf("events told (kind job):\n%q\nwant\n%q", told, want)
	}
}
