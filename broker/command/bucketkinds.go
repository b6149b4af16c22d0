package command

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// A key-value bucket NAME is the stream KV_NAME, an object store NAME the
// stream OBJ_NAME, and a stream is a stream: the names live side by side,
// and a name given to the wrong kind of command is a common slip. The
// library says only "bucket not found"; the lab says what the name is.

const objStreamPrefix = "OBJ_"

// bucketKind says what name is when it is not what the command wants
// (want is kvStreamPrefix or objStreamPrefix): another kind of bucket, a
// plain stream, or the stream under a bucket. "" when it is none of those,
// or the streams cannot be listed.
func (c *Call) bucketKind(name, want string) string {
	streams, err := c.streamNames()
	if err != nil {
		return ""
	}
	has := func(s string) bool { return streamListed(streams, s) }
	for _, k := range []struct{ prefix, noun, cmd string }{
		{kvStreamPrefix, "key-value bucket", "kv"},
		{objStreamPrefix, "object store", "object"},
	} {
		if under, ok := strings.CutPrefix(name, k.prefix); ok && has(name) {
			return fmt.Sprintf("%s is the stream under %s %s; %s commands take its name: %s", name, k.noun, under, k.cmd, under)
		}
		if k.prefix != want && has(k.prefix+name) {
			return fmt.Sprintf("%s is %s, not %s: the %s commands work on it (%s ls %s)%s", name, withArticle(k.noun), kindName(want), k.cmd, k.cmd, name, makeOne(want, name))
		}
	}
	if has(name) {
		return fmt.Sprintf("%s is a stream, not %s: the stream commands work on it (stream info %s)%s", name, kindName(want), name, makeOne(want, name))
	}
	return ""
}

func kindName(prefix string) string {
	if prefix == objStreamPrefix {
		return "an object store"
	}
	return "a key-value bucket"
}

func withArticle(noun string) string {
	if strings.HasPrefix(noun, "o") {
		return "an " + noun
	}
	return "a " + noun
}

// makeOne says how to make a bucket of name beside what is there.
func makeOne(prefix, name string) string {
	if prefix == objStreamPrefix {
		return fmt.Sprintf(", and object add %s makes an object store of that name", name)
	}
	return fmt.Sprintf(", and kv add %s makes a bucket of that name", name)
}

func streamListed(names []string, name string) bool {
	i := sort.SearchStrings(names, name)
	return i < len(names) && names[i] == name
}

// objectStoreNote says why the real CLI found no object store name: what
// the name is instead, or which stores there are.
func (c *Call) objectStoreNote(name string) string {
	if name == "" {
		return ""
	}
	if kind := c.bucketKind(name, objStreamPrefix); kind != "" {
		return kind
	}
	streams, err := c.streamNames()
	if err != nil {
		return ""
	}
	var stores []string
	for _, s := range streams {
		if n, ok := strings.CutPrefix(s, objStreamPrefix); ok {
			stores = append(stores, n)
		}
	}
	if len(stores) == 0 {
		return fmt.Sprintf("there is no object store %s, nor any other yet: create it with object add %s", name, name)
	}
	return fmt.Sprintf("there is no object store %s%s (object stores: %s; create it with object add %s)", name, didYouMean(name, stores), kvShortList(stores, 10), name)
}

// objectNote says why the real CLI found no object name in store: which
// objects the store holds.
func (c *Call) objectNote(store, name string) string {
	if store == "" || name == "" {
		return ""
	}
	js, err := c.JS()
	if err != nil {
		return ""
	}
	ctx, cancel := c.Timeout()
	defer cancel()
	names, err := ObjectNames(ctx, js, store)
	if err != nil {
		return ""
	}
	if len(names) == 0 {
		return fmt.Sprintf("object store %s holds no objects yet: put a file in with object put %s FILE", store, store)
	}
	return fmt.Sprintf("there is no object %s in store %s%s (objects: %s; object ls %s lists them)", name, store, didYouMean(name, names), kvShortList(names, 10), store)
}

// ObjectNames lists the objects in store, sorted, without a consumer:
// the library's List makes one, which the status bar (and a count of the
// store's watchers) would count for a moment though the learner made
// none. Each object's latest description
// is the last message on its own subject under $O.STORE.M, so the
// stream's subjects there, and the last message of each, name them all
// (a deleted object's description says so).
func ObjectNames(ctx context.Context, js jetstream.JetStream, store string) ([]string, error) {
	st, err := js.Stream(ctx, objStreamPrefix+store)
	if err != nil {
		return nil, err
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter("$O."+store+".M.>"))
	if err != nil {
		return nil, err
	}
	names := []string{}
	for _, subj := range slices.Sorted(maps.Keys(info.State.Subjects)) {
		m, err := st.GetLastMsgForSubject(ctx, subj)
		if err != nil {
			return nil, err
		}
		var o jetstream.ObjectInfo
		if json.Unmarshal(m.Data, &o) != nil || o.Deleted {
			continue
		}
		names = append(names, o.Name)
	}
	sort.Strings(names)
	return names, nil
}
