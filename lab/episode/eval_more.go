package episode

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"

	"natslab/broker/command"
	"natslab/broker/text"
)

// Checks of the object store and of services.

func (s *snapshot) checkObject(c *ObjectCheck) (bool, string) {
	ctx, cancel := s.timeout()
	defer cancel()
	obs, err := s.l.js.ObjectStore(ctx, c.Bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
		if c.Absent && c.Name == "" {
			return true, ""
		}
		return false, fmt.Sprintf("there is no object store bucket %s", c.Bucket)
	}
	if err != nil {
		return false, s.jsErr(err)
	}
	if c.Name == "" {
		if c.Absent {
			return false, "bucket " + c.Bucket + " still exists"
		}
		st, err := obs.Status(ctx)
		if err != nil {
			return false, s.jsErr(err)
		}
		if c.Sealed != nil && st.Sealed() != *c.Sealed {
			if st.Sealed() {
				return false, "bucket " + c.Bucket + " is sealed"
			}
			return false, "bucket " + c.Bucket + " is not sealed"
		}
		if c.Objects.Set() {
			names, err := command.ObjectNames(ctx, s.l.js, c.Bucket)
			if err != nil {
				return false, s.jsErr(err)
			}
			n := int64(len(names))
			if !c.Objects.Holds(n) {
				return false, fmt.Sprintf("bucket %s holds %s, wants %s", c.Bucket, text.Count(n, "object", "objects"), c.Objects.Want())
			}
		}
		if c.Watchers.Set() {
			if n := int64(len(s.objectWatchers(c.Bucket))); !c.Watchers.Holds(n) {
				return false, fmt.Sprintf("bucket %s has %s, wants %s", c.Bucket, text.Count(n, "watcher", "watchers"), c.Watchers.Want())
			}
		}
		return true, ""
	}
	info, err := obs.GetInfo(ctx, c.Name)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		if c.Absent {
			return true, ""
		}
		return false, fmt.Sprintf("bucket %s has no object %s%s", c.Bucket, c.Name, s.objectNames(c.Bucket))
	}
	if err != nil {
		return false, s.jsErr(err)
	}
	if c.Absent {
		return false, fmt.Sprintf("object %s is still in bucket %s", c.Name, c.Bucket)
	}
	nums := []numCheck{
		{c.Size, int64(info.Size), "holds %s", "byte", ""},
		{c.Chunks, int64(info.Chunks), "is stored in %s", "chunk", ""},
	}
	for _, n := range nums {
		if why := n.fails("object " + c.Name); why != "" {
			return false, why
		}
	}
	if c.Watched && !slices.ContainsFunc(s.objectWatchers(c.Bucket), func(ci *jetstream.ConsumerInfo) bool { return ci.Created.Before(info.ModTime) }) {
		return false, fmt.Sprintf("object %s went into bucket %s before any watch of it began: a watcher only listed it, wants one put while a watch runs", c.Name, c.Bucket)
	}
	return true, ""
}

// objectWatchers are the consumers of a bucket's stream that watch it, as
// object watch's does: they read the objects' descriptions
// ($O.<bucket>.M.>), and a client receives what they deliver now. object
// get reads an object's chunks through a consumer of its own, which can
// stay seconds after the read (until its inactive threshold), and object
// ls reads the descriptions once and goes: neither is watching.
func (s *snapshot) objectWatchers(bucket string) []*jetstream.ConsumerInfo {
	return s.receivedConsumers("OBJ_"+bucket, "$O."+bucket+".M.>")
}

// objectNames lists a bucket's objects for a "no object" reason, as the
// lab's notes do: without a consumer, which a check made at every look
// would make the status bar's count of consumers flicker.
func (s *snapshot) objectNames(bucket string) string {
	ctx, cancel := s.timeout()
	defer cancel()
	names, err := command.ObjectNames(ctx, s.l.js, bucket)
	if err != nil || len(names) == 0 {
		return " (it holds none)"
	}
	return " (it holds " + strings.Join(names, ", ") + ")"
}

// serviceInstances finds the instances of a micro service from the
// server's subscription list: each instance listens on
// $SRV.PING.<name>.<id>.
func (s *snapshot) serviceInstances(name string) []string {
	prefix := micro.APIPrefix + "." + micro.PingVerb.String() + "." + name + "."
	var ids []string
	seen := map[string]bool{}
	for _, sd := range s.clientSubs() {
		if id, ok := strings.CutPrefix(sd.Subject, prefix); ok && !strings.Contains(id, ".") && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// statsWait bounds how long one instance may take to answer for its stats.
const statsWait = time.Second

func (s *snapshot) checkService(c *ServiceCheck) (bool, string) {
	if s.ns == nil {
		return false, "the server is not running right now"
	}
	ids := s.serviceInstances(c.Name)
	n := int64(len(ids))
	if want := c.Instances.Or(">=1"); !want.Holds(n) {
		if n == 0 {
			return false, fmt.Sprintf("no instance of service %s is running (nothing answers $SRV.PING.%s)", c.Name, c.Name)
		}
		return false, fmt.Sprintf("service %s has %s running, wants %s", c.Name, text.Count(n, "instance", "instances"), want.Want())
	}
	if !c.Requests.Set() && !c.Errors.Set() && !c.EachRequests.Set() {
		return true, ""
	}
	var requests, errs int64
	for _, id := range ids {
		subject := micro.APIPrefix + "." + micro.StatsVerb.String() + "." + c.Name + "." + id
		msg, err := s.l.nc.Request(subject, nil, statsWait)
		if err != nil {
			return false, fmt.Sprintf("instance %s of service %s did not answer for its stats: %v", id, c.Name, err)
		}
		var st micro.Stats
		if err := json.Unmarshal(msg.Data, &st); err != nil {
			return false, fmt.Sprintf("instance %s of service %s answered %q for its stats", id, c.Name, msg.Data)
		}
		var r, e int64
		for _, ep := range st.Endpoints {
			r += int64(ep.NumRequests)
			e += int64(ep.NumErrors)
		}
		if !c.EachRequests.Holds(r) {
			return false, fmt.Sprintf("instance %s of service %s has handled %s, wants %s (each instance)", id, c.Name, text.Count(r, "request", "requests"), c.EachRequests.Want())
		}
		requests += r
		errs += e
	}
	if !c.Requests.Holds(requests) {
		return false, fmt.Sprintf("service %s has handled %s, wants %s", c.Name, text.Count(requests, "request", "requests"), c.Requests.Want())
	}
	if !c.Errors.Holds(errs) {
		return false, fmt.Sprintf("service %s has answered %s, wants %s", c.Name, text.Count(errs, "error", "errors"), c.Errors.Want())
	}
	return true, ""
}

// republishes says what a stream's republish setting lacks, or "".
func republishes(name string, rp *jetstream.RePublish, c *StreamCheck) string {
	if c.RepublishSource == "" && c.RepublishDestination == "" && c.RepublishHeaders == nil {
		return ""
	}
	if rp == nil {
		return name + " republishes nothing (stream edit with --republish-source and --republish-destination sets it)"
	}
	if c.RepublishSource != "" && rp.Source != c.RepublishSource {
		return fmt.Sprintf("%s republishes what it stores on %s, not %s", name, rp.Source, c.RepublishSource)
	}
	if c.RepublishDestination != "" && rp.Destination != c.RepublishDestination {
		return fmt.Sprintf("%s republishes to %s, not %s", name, rp.Destination, c.RepublishDestination)
	}
	if c.RepublishHeaders != nil && rp.HeadersOnly != *c.RepublishHeaders {
		if rp.HeadersOnly {
			return name + " republishes headers only, without the bodies"
		}
		return name + " republishes whole messages, not headers only (--republish-headers)"
	}
	return ""
}
