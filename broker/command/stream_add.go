package command

import (
	"fmt"
	"sort"
	"strings"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/nats-server/v2/server"

	"natslab/broker/command/jsadmin"
)

func (s *streamCmd) buildAdd(add *fisk.CmdClause, c *Call) {
	add.Action(act(c, s.add))
	add.Arg("stream", "The stream's name, like ORDERS").StringVar(&s.stream)
	s.cfg.addConfigFlags(add, false)
	add.Flag("json", "Print the new stream's information as JSON").Short('j').UnNegatableBoolVar(&s.json)
	add.Flag("defaults", "Use the defaults for everything not given, without a note").UnNegatableBoolVar(&s.cfg.defaults)
}

// add creates a stream. Where the real CLI would prompt for a value, the
// lab takes the default and says in one status line which values it chose.
func (s *streamCmd) add(c *Call) error {
	if s.stream == "" {
		return usageErrorf("stream add needs a stream name, for example: %s", examples["stream add"])
	}
	if !jsadmin.IsValidName(s.stream) {
		return streamNameError(s.stream)
	}
	if err := s.cfg.unsupported(); err != nil {
		return err
	}
	if err := s.cfg.halfSet(); err != nil {
		return err
	}
	cfg, defaulted, unlimited, err := s.cfg.newConfig(s.stream)
	if err != nil {
		return err
	}
	mgr, err := c.streamManager()
	if err != nil {
		return err
	}
	st, err := mgr.NewStreamFromDefault(s.stream, cfg)
	if err != nil {
		return s.createError(c, mgr, cfg, err, "could not create Stream")
	}
	if note := streamDefaultsNote(defaulted, unlimited, s.cfg.defaults); note != "" {
		c.Statusf("%s", note)
	}
	if !s.json {
		fmt.Fprintf(c.Out, "Stream %s was created\n\n", s.stream)
	}
	info, err := st.LatestInformation()
	if err != nil {
		return c.streamAPIError(err, s.stream, "")
	}
	return s.show(c, info)
}

// createError explains why the server refused a new stream (or an edit).
func (s *streamCmd) createError(c *Call, mgr *jsadmin.Manager, cfg api.StreamConfig, err error, action string) error {
	switch {
	case api.IsNatsError(err, streamErrCodeStreamExists):
		existing, lerr := mgr.LoadStream(s.stream)
		if lerr == nil {
			return fmt.Errorf("stream %s already exists with a different configuration (it captures %s): change it with stream edit %s, or remove it first with stream rm %s --force",
				s.stream, strings.Join(existing.Subjects(), ", "), s.stream, s.stream)
		}
		return fmt.Errorf("stream %s already exists with a different configuration: change it with stream edit %s", s.stream, s.stream)
	case api.IsNatsError(err, streamErrCodeSubjectsOverlap):
		if e := s.overlapError(mgr, cfg); e != nil {
			return e
		}
	case api.IsNatsError(err, streamErrCodeReplicasCluster):
		if c.S.dep.Own() {
			return fmt.Errorf("--replicas %d needs a cluster, and the lab's server is a single node: use --replicas 1, or start natslab with --cluster 3", cfg.Replicas)
		}
		return fmt.Errorf("--replicas %d needs a cluster, and the server the lab is connected to is not clustered: use --replicas 1", cfg.Replicas)
	case api.IsNatsError(err, streamErrCodeNoPeers):
		return fmt.Errorf("the cluster has no %d servers able to keep a copy of stream %s (%v): use fewer --replicas, or start the nodes that are down", cfg.Replicas, s.stream, err)
	case api.IsNatsError(err, streamErrCodeInsufficientRsrc), api.IsNatsError(err, streamErrCodeMemoryFull), api.IsNatsError(err, streamErrCodeStorageFull):
		return fmt.Errorf("the server has no room for stream %s (%v): lower --max-bytes, use --storage file, or remove streams you no longer need", s.stream, err)
	case api.IsNatsError(err, streamErrCodeInvalidConfig):
		msg := err.Error()
		switch {
		case strings.Contains(msg, "capturing all subjects"), strings.Contains(msg, "overlap with jetstream api"):
			return fmt.Errorf("stream %s cannot capture %s: that includes the server's own API subjects; capture a prefix such as orders.> instead", s.stream, strings.Join(cfg.Subjects, ", "))
		case strings.Contains(msg, "duplicates window can not be larger"):
			return fmt.Errorf("--dupe-window %v is longer than --max-age %v: messages would be gone while their IDs are still remembered; use a --dupe-window of %v or less", cfg.Duplicates, cfg.MaxAge, cfg.MaxAge)
		}
	}
	return c.streamAPIError(err, s.stream, action)
}

// overlapError names the streams that already store some of the subjects:
// each subject can be stored by one stream only.
func (s *streamCmd) overlapError(mgr *jsadmin.Manager, cfg api.StreamConfig) error {
	streams, _, _, err := mgr.Streams("")
	if err != nil {
		return nil
	}
	var clashes []string
	for _, other := range streams {
		if other.Name() == s.stream {
			continue
		}
		var mine, theirs []string
		for _, a := range cfg.Subjects {
			for _, b := range other.Subjects() {
				if server.SubjectsCollide(a, b) {
					mine = streamAppendNew(mine, a)
					theirs = streamAppendNew(theirs, b)
				}
			}
		}
		if len(mine) > 0 {
			clashes = append(clashes, fmt.Sprintf("stream %s already captures %s, which overlaps %s", other.Name(), strings.Join(theirs, ", "), strings.Join(mine, ", ")))
		}
	}
	if len(clashes) == 0 {
		return nil
	}
	sort.Strings(clashes)
	return fmt.Errorf("subjects overlap: %s. A subject can be stored by one stream only: choose other subjects, or add them to the existing stream with stream edit", strings.Join(clashes, "; "))
}

func streamAppendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
