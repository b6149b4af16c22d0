package command

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/jsm.go/api"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/natscli/columns"
)

// addDesiredState is natscli's Cluster Migration Status block (its
// RenderDesiredState, in an internal package the lab cannot import): the
// server reports a desired peer set while a stream or consumer moves to new
// replicas or placement, and for as long as a peer it needs is offline.
// replicas, placement and retention are the configuration's now; ts is the
// server's time of the answer.
func addDesiredState(cols *columns.Writer, desired *api.DesiredClusterInfo, replicas int, placement *api.Placement, retention *api.RetentionPolicy, clusterName string, ts time.Time) {
	cols.Indent(3)
	defer cols.Indent(0)

	cols.AddSectionTitle("Cluster Migration Status")
	if desired.Status != nil {
		cols.AddRowIfNotEmpty("Status", desired.Status.Description)
		cols.AddRowIfNotEmpty("Type", human(desired.Status.Type))
		cols.AddRowIfNotEmpty("Error", desired.Status.Err)
	}
	cols.AddRowf("Created", "%s (%s)", human(desired.Created), human(streamSince(ts, desired.Created)))
	cols.Println()
	if desired.Name != clusterName {
		cols.AddRowf("Cluster", "%s -> %s", clusterName, desired.Name)
	}
	if o := desired.Origin; o != nil {
		if o.Replicas != replicas {
			cols.AddRowf("Replicas", "%d -> %d", o.Replicas, replicas)
		}
		ot, op := placementValues(o.Placement)
		nt, np := placementValues(placement)
		addChangedRow(cols, "Placement Tags", ot, nt)
		addChangedRow(cols, "Preferred", op, np)
		if o.Retention != nil && retention != nil && *retention != *o.Retention {
			cols.AddRowf("Retention Policy", "%s -> %s", o.Retention.String(), retention.String())
		}
	}
	var peers []string
	for _, r := range desired.Replicas {
		if r.Offline {
			peers = append(peers, fmt.Sprintf("%s (offline)", r.Name))
		} else {
			peers = append(peers, r.Name)
		}
	}
	if len(peers) > 0 {
		cols.AddStringsAsValue("Desired Peers", peers)
	}
}

// placementValues is a placement's tags and preferred server, "" for none.
func placementValues(p *api.Placement) (tags, preferred string) {
	if p == nil {
		return "", ""
	}
	if len(p.Tags) > 0 {
		tags = human(p.Tags)
	}
	return tags, p.Preferred
}

// addChangedRow adds "from -> to" where the two differ, "none" for empty.
func addChangedRow(cols *columns.Writer, title, from, to string) {
	if from == to {
		return
	}
	if from == "" {
		from = "none"
	}
	if to == "" {
		to = "none"
	}
	cols.AddRowf(title, "%s -> %s", from, to)
}

// consumerDesired is a consumer's desired state in jsm.go's types, which
// the real CLI renders (nats.go's have the same JSON).
func consumerDesired(d *jetstream.DesiredClusterInfo) (*api.DesiredClusterInfo, error) {
	j, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	var out api.DesiredClusterInfo
	if err := json.Unmarshal(j, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
