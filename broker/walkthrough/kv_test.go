package walkthrough

import (
	"testing"

	"natslab/broker/brokertest"
)

// The key-value walkthrough (docs.nats.io, JetStream › Key/Value Store ›
// Key/Value Store Walkthrough). nats kv watch runs until interrupted, so
// the watch is left out; the bucket is removed with --force.
func TestKeyValueWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "key-value walkthrough",
		Lines: []string{
			"nats kv add my-kv",
			"nats kv put my-kv Key1 Value1",
			"nats kv get my-kv Key1",
			"nats kv del my-kv Key1 --force",
			"nats kv get my-kv Key1",
			"nats kv put my-kv Key1 Value2",
			"nats kv put my-kv Key1 Value3",
			"nats kv history my-kv Key1",
			"nats kv ls",
			"nats kv ls my-kv",
			"nats kv purge my-kv Key1 --force",
			"nats kv history my-kv Key1",
			"nats kv info my-kv",
			"nats kv rm my-kv --force",
			"nats kv ls",
		},
	})
}

// What a learner gets wrong with keys: missing, deleted and purged keys,
// revisions gone, compare-and-set on a stale revision, create on a key
// that exists, delete of a key that never was, a bucket that is not
// there, names the library refuses, a put without a value (the real CLI reads an empty standard
// input), values larger than the bucket takes. The real CLI's error lines, as the library
// reports them.
func TestKeyValueMistakes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "key-value mistakes",
		Lines: []string{
			"nats kv add C",
			"nats kv get C nokey",
			"nats kv put C k v1",
			"nats kv get C other",
			"nats kv del C k -f",
			"nats kv get C k",
			"nats kv get C k --revision 2",
			"nats kv get C k --revision 7",
			"nats kv update C k v2 5",
			"nats kv update C zz v2 5",
			"nats kv create C k v3",
			"nats kv put C k v4",
			"nats kv create C k v5",
			"nats kv purge C k -f",
			"nats kv get C k",
			"nats kv get C k --revision 4",
			"nats kv history C nokey",
			"nats kv del C nokey -f",
			"nats kv get C nope",
			"nats kv get NOPE k",
			"nats kv put NOPE k v",
			"nats kv ls NOPE",
			"nats kv add bad.name",
			"nats kv put C bad..key v",
			"nats kv put C novalue",
			"nats kv get C novalue",
			"nats kv rm NOPE -f",
			"nats kv rm NOPE",
			"nats kv info NOPE",
			// Values larger than the bucket allows: the server's refusal,
			// also where the value fits and its headers do not.
			"nats kv add SMALL --max-value-size 10",
			"nats kv put SMALL big 'this value is longer than ten bytes'",
			"nats kv put SMALL a x",
			"nats kv create SMALL b x",
		},
	})
}

// Key names a learner may try: patterns (which only watch and history
// take), empty names, dots at either end, spaces, characters a subject
// allows. An empty key in kv del is no key at all: the whole bucket goes.
func TestKeyValueNames(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "key-value names",
		Lines: []string{
			"nats kv add C",
			"nats kv put C a.* v",
			"nats kv put C a.> v",
			"nats kv get C a.*",
			"nats kv get C '>'",
			"nats kv del C a.* -f",
			"nats kv purge C a.* -f",
			"nats kv history C a.*",
			"nats kv put C .a v",
			"nats kv put C a. v",
			"nats kv put C 'a b' v",
			"nats kv put C a/b=c v",
			"nats kv get C a/b=c --raw",
			"nats kv put C '' v",
			"nats kv get C ''",
			"nats kv purge C '' -f",
			"nats kv history C ''",
			"nats kv put '' k v",
			"nats kv info ''",
			"nats kv rm '' -f",
			"nats kv del C '' -f",
			"nats kv ls",
			"nats kv put '' k v",
			"nats kv get '' k",
			"nats kv info ''",
		},
	})
}

// Bucket settings the real CLI or the server refuses: history out of 1 to
// 64, replicas a single server cannot keep (or more than any cluster),
// a TTL under the server's least, sizes that do not parse, an existing
// bucket added again with other settings; replicas 0 is taken as 1. And
// key patterns kv ls takes or refuses.
func TestKeyValueBucketSettings(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "key-value bucket settings",
		Lines: []string{
			"nats kv add H --history 0",
			"nats kv add H --history 65",
			"nats kv add R --replicas 3",
			"nats kv add R --replicas 9",
			"nats kv add T --ttl 10ms",
			"nats kv add T --ttl=-5m",
			"nats kv add T --marker-ttl=-1s",
			"nats kv add P --republish-source 'p.>'",
			"nats kv edit P --republish-source 'q.>' --republish-headers",
			"nats kv ls -n",
			"nats kv add M --max-value-size 5XB",
			"nats kv add M --max-bucket-size abc",
			"nats kv add Z --replicas 0",
			"nats kv add Z --history 5",
			"nats kv edit Z --history 100",
			"nats kv edit Z --replicas 9",
			"nats kv ls Z 'a.>.b'",
			"nats kv ls Z 'sue*'",
		},
	})
}

// Per-key TTLs (kv create --ttl, kv purge --ttl): the server decides what
// it takes, and the real CLI sends what the line says: under a second is
// refused, a fraction of a second over it kept, a negative one no TTL at
// all, and a bucket without --marker-ttl refuses any.
func TestKeyValuePerKeyTTL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs natslab and the real nats CLI")
	}
	t.Parallel()
	brokertest.CompareScript(t, brokertest.Script{
		Name: "key-value per-key TTL",
		Lines: []string{
			"nats kv add KT --marker-ttl 1m",
			"nats kv add KP",
			"nats kv create KT a 1 --ttl 500ms",
			"nats kv create KT b 1 --ttl=-1s",
			"nats kv create KT c 1 --ttl 1500ms",
			"nats kv create KT d 1 --ttl 0s",
			"nats kv create KP a 1 --ttl 1h",
			"nats kv put KP b 1",
			"nats kv purge KP b --ttl 1h -f",
			"nats kv purge KT c --ttl 500ms -f",
			"nats kv purge KT c --ttl=-1s -f",
			"nats kv purge KT d --ttl 2s -f",
			"nats kv ls KT",
		},
	})
}
