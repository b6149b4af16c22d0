package command

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/choria-io/fisk"
	"github.com/nats-io/jsm.go"
	"github.com/nats-io/jsm.go/api"
)

func (s *streamCmd) buildReport(r *fisk.CmdClause, c *Call) {
	r.Action(act(c, s.report))
	r.Flag("subject", "Only streams that capture this subject").StringVar(&s.filterSubject)
	r.Flag("cluster", "Only streams in this cluster").StringVar(&s.cluster)
	r.Flag("consumers", "Sort by number of consumers").Short('o').UnNegatableBoolVar(&s.sortConsumers)
	r.Flag("messages", "Sort by number of messages").Short('m').UnNegatableBoolVar(&s.sortMsgs)
	r.Flag("name", "Sort by name").Short('n').UnNegatableBoolVar(&s.sortName)
	r.Flag("storage", "Sort by storage").Short('t').UnNegatableBoolVar(&s.sortStorage)
	r.Flag("raw", "Show numbers without formatting").Short('r').UnNegatableBoolVar(&s.raw)
	r.Flag("leaders", "Show how stream leaders spread over the cluster").Short('l').UnNegatableBoolVar(&s.leaders)
}

// streamStat is one row of the report.
type streamStat struct {
	name      string
	consumers int
	msgs      int64
	bytes     uint64
	storage   string
	cluster   *api.ClusterInfo
	lostBytes uint64
	lostMsgs  int
	deleted   int
	placement *api.Placement
	apiLevel  string
	mirror    *api.StreamSourceInfo
	sources   []*api.StreamSourceInfo
}

// streamLeader counts the streams one server leads.
type streamLeader struct {
	name, cluster string
	groups        int
}

// report is natscli's reportAction.
func (s *streamCmd) report(c *Call) error {
	mgr, err := c.manager()
	if err != nil {
		return fatalIf(err, "setup failed")
	}
	fmt.Fprint(c.Out, "Obtaining Stream stats\n\n")
	var filter *jsm.StreamNamesFilter
	if s.filterSubject != "" {
		filter = &jsm.StreamNamesFilter{Subject: s.filterSubject}
	}
	all, missing, offline, err := mgr.Streams(filter)
	if err != nil {
		return c.explainAPI(err)
	}

	var stats []streamStat
	leaders := map[string]*streamLeader{}
	replication := false
	for _, st := range all {
		info, err := st.LatestInformation()
		if err != nil {
			return c.explainAPI(fatalIf(err, "could not get stream info for %s", st.Name()))
		}
		if cl := info.Cluster; cl != nil {
			if s.cluster != "" && cl.Name != s.cluster {
				continue
			}
			if cl.Leader != "" {
				if leaders[cl.Leader] == nil {
					leaders[cl.Leader] = &streamLeader{name: cl.Leader, cluster: cl.Name}
				}
				leaders[cl.Leader].groups++
			}
		}
		deleted := info.State.NumDeleted
		if len(info.State.Deleted) > 0 {
			deleted = len(info.State.Deleted)
		}
		level := info.Config.Metadata[api.JsMetaRequiredServerLevel]
		if level == "" {
			level = "0"
		}
		stat := streamStat{name: info.Config.Name, consumers: info.State.Consumers, msgs: int64(info.State.Msgs), bytes: info.State.Bytes,
			storage: info.Config.Storage.String(), cluster: info.Cluster, deleted: deleted, placement: info.Config.Placement, apiLevel: level,
			mirror: info.Mirror, sources: info.Sources}
		replication = replication || len(info.Config.Sources) > 0 || info.Config.Mirror != nil
		if info.State.Lost != nil {
			stat.lostBytes = info.State.Lost.Bytes
			stat.lostMsgs = len(info.State.Lost.Msgs)
		}
		stats = append(stats, stat)
	}
	if len(stats) == 0 && len(missing) == 0 && len(offline) == 0 {
		fmt.Fprintln(c.Out, "No Streams defined")
		return nil
	}
	// The real CLI's orders; stable, so ties keep the name order.
	var less func(a, b streamStat) bool
	switch {
	case s.sortConsumers:
		less = func(a, b streamStat) bool { return a.consumers < b.consumers }
	case s.sortMsgs:
		less = func(a, b streamStat) bool { return a.msgs < b.msgs }
	case s.sortName:
		less = func(a, b streamStat) bool { return a.name < b.name }
	case s.sortStorage:
		less = func(a, b streamStat) bool { return a.storage < b.storage }
	default:
		less = func(a, b streamStat) bool { return a.bytes < b.bytes }
	}
	sort.SliceStable(stats, func(i, j int) bool { return less(stats[i], stats[j]) })

	t := newTable("Stream Report")
	t.AddHeaders("Stream", "Storage", "Placement", "Consumers", "Messages", "Bytes", "Lost", "Deleted", "API Level", "Replicas")
	for _, st := range stats {
		placement := ""
		if p := st.placement; p != nil {
			if p.Cluster != "" {
				placement = fmt.Sprintf("cluster: %s ", p.Cluster)
			}
			if len(p.Tags) > 0 {
				placement += "tags: " + human(p.Tags)
			}
		}
		lost := "0"
		if s.raw {
			if st.lostMsgs > 0 {
				lost = fmt.Sprintf("%d (%d)", st.lostMsgs, st.lostBytes)
			}
			// natscli's raw row has no API level: the replicas come
			// under "API Level", and "Replicas" stays empty.
			t.AddRow(st.name, st.storage, placement, st.consumers, st.msgs, st.bytes, lost, st.deleted, streamPeers(st.cluster))
			continue
		}
		if st.lostMsgs > 0 {
			lost = fmt.Sprintf("%s (%s)", human(st.lostMsgs), size(st.lostBytes))
		}
		t.AddRow(st.name, st.storage, placement, human(st.consumers), human(st.msgs), size(st.bytes), lost, human(st.deleted), st.apiLevel, streamPeers(st.cluster))
	}
	fmt.Fprintln(c.Out, t.Render())
	if replication {
		fmt.Fprintln(c.Out, s.replicationTable(stats))
	}
	if s.leaders && len(leaders) > 0 {
		fmt.Fprintln(c.Out, streamLeadersTable(leaders))
	}
	renderMissing(c.Out, "Streams", missing, offline)
	return nil
}

// streamPeers lists a stream's servers, shortest names, the leader marked
// with * and a replica that is behind or offline with !.
func streamPeers(cl *api.ClusterInfo) string {
	if cl == nil {
		return ""
	}
	leader := -1
	var warn []int
	var peers []string
	if cl.Leader != "" {
		peers = append(peers, cl.Leader)
		leader = 0
	}
	for i, r := range cl.Replicas {
		if r.Offline || !r.Current {
			if leader == 0 {
				warn = append(warn, i+1)
			} else {
				warn = append(warn, i)
			}
		}
		peers = append(peers, r.Name)
	}
	compact := streamCompactNames(peers)
	if leader != -1 {
		compact[0] += "*"
	}
	for _, i := range warn {
		compact[i] += "!"
	}
	sort.Strings(compact)
	return human(compact)
}

// streamCompactNames drops the domain parts all names share (n1.lab.local,
// n2.lab.local become n1, n2).
func streamCompactNames(names []string) []string {
	if len(names) == 0 {
		return names
	}
	parts := make([][]string, len(names))
	shortest := math.MaxInt32
	for i, n := range names {
		parts[i] = strings.Split(n, ".")
		shortest = min(shortest, len(parts[i]))
	}
	suffix := ""
	for i := shortest - 1; i > 0; i-- {
		tok := parts[0][i]
		same := true
		for _, p := range parts {
			if p[i] != tok {
				same = false
				break
			}
		}
		if !same {
			break
		}
		suffix = "." + tok + suffix
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.TrimSuffix(n, suffix)
	}
	return out
}

// streamLeadersTable shows how many streams each server leads.
func streamLeadersTable(leaders map[string]*streamLeader) string {
	t := newTable("RAFT Leader Report")
	t.AddHeaders("Server", "Cluster", "Streams", "Distribution")
	var list []*streamLeader
	perCluster := map[string]int{}
	for _, l := range leaders {
		list = append(list, l)
		perCluster[l.cluster] += l.groups
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].cluster != list[j].cluster {
			return list[i].cluster < list[j].cluster
		}
		if list[i].groups != list[j].groups {
			return list[i].groups < list[j].groups
		}
		return list[i].name < list[j].name
	})
	prev := ""
	for i, l := range list {
		if i > 0 && l.cluster != prev {
			t.AddSeparator()
		}
		prev = l.cluster
		dots := 0
		if l.groups > 0 {
			dots = max(1, int(math.Round(float64(l.groups)/float64(perCluster[l.cluster])*100/10)))
		}
		t.AddRow(l.name, l.cluster, human(l.groups), strings.Repeat("*", dots))
	}
	return t.Render()
}

// replicationTable is natscli's renderReplication: a row for each mirror
// and source, how long ago it last heard from its origin, its lag, and the
// server's error, if any.
func (s *streamCmd) replicationTable(stats []streamStat) string {
	t := newTable("Replication Report")
	t.AddHeaders("Stream", "Kind", "API Prefix", "Source Stream", "Filters and Transforms", "Active", "Lag", "Error")
	row := func(name, kind string, src *api.StreamSourceInfo, filters string) {
		apiErr, prefix := "", ""
		if src.Error != nil {
			apiErr = src.Error.Error()
		}
		if src.External != nil {
			prefix = src.External.ApiPrefix
		}
		if s.raw {
			t.AddRow(name, kind, prefix, src.Name, filters, src.Active, src.Lag, apiErr)
			return
		}
		t.AddRow(name, kind, prefix, src.Name, filters, human(src.Active), human(src.Lag), apiErr)
	}
	for _, st := range stats {
		if st.mirror != nil {
			row(st.name, "Mirror", st.mirror, "")
		}
		for _, src := range st.sources {
			if src == nil {
				continue
			}
			var filters []string
			for _, tr := range src.SubjectTransforms {
				filters = append(filters, fmt.Sprintf("%s to %s", tr.Source, tr.Destination))
			}
			if len(filters) == 0 && src.FilterSubject != "" {
				filters = append(filters, fmt.Sprintf("%s untransformed", src.FilterSubject))
			}
			row(st.name, "Source", src, strings.Join(filters, ", "))
		}
	}
	return t.Render()
}
