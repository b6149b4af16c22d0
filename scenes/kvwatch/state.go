package kvwatch

import (
	"slices"
	"time"
)

// Snapshot is what the scene draws: a bucket's keys with their values and
// revisions, the changes as they were stored (and writes the server
// refused), and the stream underneath. Every number is the broker's; times
// are on the scene clock.
type Snapshot struct {
	ServerUp bool
	Problem  string // why nothing can be shown, or ""

	Bucket   string // "" when there is none
	Auto     bool   // chosen by the scene (no watch BUCKET given)
	Buckets  []string
	Stream   string // KV_<bucket>
	Subjects []string
	History  int64 // values kept per key
	TTL      time.Duration
	Msgs     uint64
	FirstSeq uint64
	LastSeq  uint64
	Watchers int // consumers on the bucket's stream a client receives from: watches

	Keys    []Key
	Changes []Change // newest last
}

// Key is one key's latest entry.
type Key struct {
	Name  string
	Value string
	Rev   uint64 // the stream sequence of its latest entry
	Op    string // "put", "del", "purge"
	Kept  uint64 // entries the stream keeps for it (its history)
}

// Change is one write to the bucket the scene heard, and what became of it.
type Change struct {
	At       time.Time
	Key      string
	Op       string // "put", "update", "create", "del", "purge"
	Value    string
	Expected int64  // the revision a compare-and-set expected; -1 for none
	Rev      uint64 // the revision it was stored at (0 while unknown or when refused)
	Refused  bool
	Was      uint64 // the key's revision when the write arrived
	Why      string // why it was refused
	ID       int
	resolved bool
	wall     time.Time // when it was heard, on the wall clock (to give up waiting)
}

func (s *Snapshot) key(name string) *Key {
	for i := range s.Keys {
		if s.Keys[i].Name == name {
			return &s.Keys[i]
		}
	}
	return nil
}

func (s Snapshot) clone() Snapshot {
	out := s
	out.Buckets = slices.Clone(s.Buckets)
	out.Subjects = slices.Clone(s.Subjects)
	out.Keys = slices.Clone(s.Keys)
	out.Changes = slices.Clone(s.Changes)
	return out
}
