package command

import (
	"fmt"
	"strings"
	"time"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go"
	"github.com/nats-io/jsm.go/api"
)

// stream cluster step-down: the real CLI's way to make a replicated
// stream's leader stand down, so the other replicas elect a new one. Its
// output is the real CLI's (natscli's cli/stream_command.go
// leaderStandDown): a status line for the request, one for the outcome,
// then the stream's information. The real CLI looks every 500ms, ten
// times; the lab looks more often, for as long.

func init() {
	examples["stream cluster"] = `stream cluster step-down ORDERS`
	examples["stream cluster step-down"] = `stream cluster step-down ORDERS`
}

// stepDownWait is how long the lab waits for a new leader, as the real CLI
// does (ten looks, stepDownLook apart); stepDownPoll is how often it looks.
const (
	stepDownWait = 5 * time.Second
	stepDownLook = 500 * time.Millisecond
	stepDownPoll = 25 * time.Millisecond
)

func (s *streamCmd) buildCluster(cmd *fisk.CmdClause, c *Call) {
	var preferred string
	down := cmd.Command("step-down", "Make the stream's leader stand down, so that its replicas elect another").
		Alias("stepdown").Alias("sd").Alias("elect").Alias("down").Alias("d")
	down.Arg("stream", "The replicated stream").StringVar(&s.stream)
	down.Flag("preferred", "The node to prefer as the new leader, for example n2").StringVar(&preferred)
	down.Flag("force", "Ask even when the stream has no leader now").Short('f').UnNegatableBoolVar(&s.force)
	down.Action(act(c, func(c *Call) error { return s.stepDown(c, preferred) }))
}

// stepDown is natscli's leaderStandDown.
func (s *streamCmd) stepDown(c *Call, preferred string) error {
	mgr, st, err := s.askStream(c)
	if err != nil {
		return err
	}
	if st, err = s.loadStream(c, mgr, st, ""); err != nil {
		return err
	}
	info, err := st.LatestInformation()
	if err != nil {
		return c.explainAPI(err)
	}
	if info.Cluster == nil || len(info.Cluster.Replicas) == 0 {
		return notClustered(c, st.Name(), info)
	}
	// Right after an election the followers may not be current yet, and a
	// leader standing down with no current follower (or a preferred one
	// still catching up) stays leader. Scripts run lines back to back, so
	// the lab waits a moment for one to be ready; the real CLI does not.
	if latest := waitForCurrent(c, st.Information, preferred); latest != nil {
		info = latest
	}
	leader := info.Cluster.Leader
	if leader == "" && !s.force {
		return explain(fmt.Errorf("stream %q has no current leader", st.Name()), "an election may be going on: try again in a moment, or add --force")
	} else if leader == "" {
		leader = "<unknown>"
	}
	var placement *api.Placement
	if preferred != "" {
		placement = &api.Placement{Preferred: preferred}
	}
	c.Statusf("Requesting leader step down of %q for stream %q in a %d peer cluster group", leader, st.Name(), len(info.Cluster.Replicas)+1)
	if err := st.LeaderStepDown(placement); err != nil {
		if note := preferredNote(st.Name(), preferred, info.Cluster); note != "" {
			return explain(err, "%s", note)
		}
		return c.explainAPI(err)
	}
	w := newLeaderWait(c, st.Name(), leader)
	info, err = w.run()
	if err != nil {
		return err
	}
	c.Statusf("New leader elected %q", info.Cluster.Leader)
	fmt.Fprintln(c.Out)
	return s.showStream(c, w.latest)
}

// leaderWait is natscli's wait for a new leader after a step-down. The
// real CLI looks every stepDownLook, ten times, logging each look that
// finds no leader ("No leader elected") or fails ("Failed to retrieve
// Stream State: …"), and gives up with its error after the tenth. The lab
// also looks every stepDownPoll in between, so a quick election shows at
// once; only the looks made at the real CLI's moments wait as long as the
// real CLI's (--timeout) and log its lines: the lines are those natscli
// prints for the same election.
type leaderWait struct {
	stream, leader string
	timeout        time.Duration // how long a look at one of the real CLI's moments waits
	look           func(timeout time.Duration) (*api.StreamInfo, error)
	now            func() time.Time
	sleep          func(time.Duration) error
	status         func(format string, a ...any)
	latest         *jsm.Stream // the stream as the last look that was answered saw it
}

func newLeaderWait(c *Call, stream, leader string) *leaderWait {
	w := &leaderWait{
		stream: stream, leader: leader, timeout: c.timeout, now: time.Now,
		sleep:  func(d time.Duration) error { return sleepCtx(c, d) },
		status: c.Statusf,
	}
	w.look = func(timeout time.Duration) (*api.StreamInfo, error) {
		mgr, err := c.manager(jsm.WithTimeout(timeout))
		if err != nil {
			return nil, err
		}
		st, err := mgr.LoadStream(stream)
		if err != nil {
			return nil, err
		}
		w.latest = st
		return st.LatestInformation()
	}
	return w
}

// run returns the stream's information once another node leads it.
func (w *leaderWait) run() (*api.StreamInfo, error) {
	start := w.now()
	next := start.Add(stepDownLook) // when the real CLI looks next
	for {
		if err := w.sleep(stepDownPoll); err != nil {
			return nil, err
		}
		if w.now().Sub(start) > stepDownWait {
			return nil, explain(fmt.Errorf("stream %q did not elect a new leader in time", w.stream),
				"%s was still leading, or no replica had taken over, %s after the request (the real CLI looks ten times, %s apart): stream info %s shows who leads it now", w.leader, stepDownWait, stepDownLook, w.stream)
		}
		// A request sent while the replicas vote may go unanswered. The
		// real CLI, looking only at its moments, seldom sends one then; a
		// look in between waits only until the next moment, and its
		// failure is not the real CLI's to log.
		moment := !w.now().Before(next)
		timeout := w.timeout
		if !moment {
			timeout = max(next.Sub(w.now()), stepDownPoll)
		}
		info, err := w.look(timeout)
		if moment {
			for !w.now().Before(next) {
				next = next.Add(stepDownLook)
			}
		}
		switch {
		case err != nil:
			if moment {
				w.status("Failed to retrieve Stream State: %s", err)
			}
		case info.Cluster == nil || info.Cluster.Leader == "":
			if moment {
				w.status("No leader elected")
			}
		case info.Cluster.Leader != w.leader:
			return info, nil
		}
	}
}

// waitForCurrent waits up to stepDownWait for a follower that could take
// over (the preferred one, if named) to be current, and returns the last
// information it read.
func waitForCurrent(c *Call, read func(...api.JSApiStreamInfoRequest) (*api.StreamInfo, error), preferred string) *api.StreamInfo {
	var last *api.StreamInfo
	deadline := time.Now().Add(stepDownWait)
	for time.Now().Before(deadline) {
		info, err := read()
		if err == nil && info.Cluster != nil {
			last = info
			for _, r := range info.Cluster.Replicas {
				if r.Current && !r.Offline && (preferred == "" || r.Name == preferred) {
					return last
				}
			}
		}
		if sleepCtx(c, stepDownPoll) != nil {
			break
		}
	}
	return last
}

// preferredNote explains a refused --preferred: only a follower can take
// over, and the leader cannot succeed itself. "" when preferred is one.
func preferredNote(stream, preferred string, cl *api.ClusterInfo) string {
	if preferred == "" {
		return ""
	}
	var followers []string
	for _, r := range cl.Replicas {
		if r.Name == preferred {
			return ""
		}
		followers = append(followers, r.Name)
	}
	if preferred == cl.Leader {
		return fmt.Sprintf("%s leads %s already; prefer one of its followers: %s", preferred, stream, strings.Join(followers, ", "))
	}
	return fmt.Sprintf("%s is not a replica of %s: prefer one of its followers: %s", preferred, stream, strings.Join(followers, ", "))
}

// notClustered is the real CLI's error for a stream with one replica, with
// what to do instead.
func notClustered(c *Call, name string, info *api.StreamInfo) error {
	err := fmt.Errorf("stream %q is not clustered", name)
	if info.Cluster == nil || info.Cluster.Name == "" {
		return explain(err, "the server is a single node, so there is no other replica to take over (start natslab with --cluster 3)")
	}
	return explain(err, "it has %d replica, so no other node can take over (stream edit %s --replicas 3 --force replicates it)", info.Config.Replicas, name)
}

// sleepCtx waits d, or less if the command is stopped.
func sleepCtx(c *Call, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.Ctx.Done():
		return c.Ctx.Err()
	case <-t.C:
		return nil
	}
}
