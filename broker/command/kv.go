package command

import (
	"time"

	"github.com/choria-io/fisk"
)

// The kv command family: JetStream's key-value store, with the real CLI's
// sub-commands, arguments, flags and output. Each sub-command lives in its
// own file (kv_add.go, kv_values.go, kv_ls.go, kv_watch.go); the shared
// lookups and error explanations are in kv_bucket.go and kv_keys.go.

func init() {
	register(&natsCommand{name: "kv", summary: "Key-value buckets: add, put, get, watch, history", build: buildKV})
	examples["kv"] = "kv add profiles"
	examples["kv add"] = "kv add profiles --history 5"
	examples["kv edit"] = "kv edit profiles --history 10"
	examples["kv put"] = "kv put profiles sue.color blue"
	examples["kv get"] = "kv get profiles sue.color"
	examples["kv create"] = "kv create profiles sue.color blue"
	examples["kv update"] = "kv update profiles sue.color green 3"
	examples["kv del"] = "kv del profiles sue.color --force"
	examples["kv purge"] = "kv purge profiles sue.color --force"
	examples["kv history"] = "kv history profiles sue.color"
	examples["kv revert"] = "kv revert profiles sue.color 2 --force"
	examples["kv info"] = "kv info profiles"
	examples["kv watch"] = "kv watch profiles 'sue.>'"
	examples["kv ls"] = "kv ls profiles"
	examples["kv compact"] = "kv compact profiles --force"
}

// kvCmd holds the arguments and flags of every kv sub-command; only one
// sub-command runs per line, so they can share it, as in the real CLI.
type kvCmd struct {
	bucket string
	key    string
	val    string
	valSet bool

	// bucket configuration (add, edit)
	description   string
	history       int64
	storage       string
	ttl           time.Duration
	markerTTL     time.Duration
	replicas      uint
	maxValueSize  string
	maxBucketSize string
	tags          []string
	cluster       string
	compress      bool
	metadata      map[string]string
	repubSource   string
	repubDest     string
	repubHeaders  bool
	mirror        string
	mirrorDomain  string
	sources       []string
	noMirror      bool
	set           map[string]*bool // which configuration flags were typed, for edit

	// values
	raw         bool
	revision    uint64 // get --revision, watch --revision
	revisionArg string // update's and revert's positional revision
	keyTTL      time.Duration
	force       bool

	// ls
	names        bool
	verbose      bool
	displayValue bool

	// watch
	includeHistory bool
	includeDeletes bool
	updatesOnly    bool
}

// written runs a command that writes to a bucket, then waits until the
// bucket's consumers count what it wrote (see awaitStored): the server
// acknowledges the write before it tells them.
func written(run func(*Call) error) func(*Call) error {
	return func(c *Call) error {
		defer c.awaitStored()
		return run(c)
	}
}

func buildKV(app *fisk.Application, c *Call) {
	k := &kvCmd{metadata: map[string]string{}, set: map[string]*bool{}}
	kv := app.Command("kv", "Stores values under keys in JetStream buckets, keeps their history, and watches them change")

	add := kv.Command("add", "Creates a bucket (a stream named KV_<bucket> underneath)").Alias("new").Action(act(c, k.addRun))
	k.configFlags(add, false)

	edit := kv.Command("edit", "Changes the configuration of a bucket").Action(act(c, k.editRun))
	k.configFlags(edit, true)

	put := kv.Command("put", "Stores a value under a key, whatever was there before").Action(act(c, written(k.putRun)))
	k.bucketKeyArgs(put)
	put.Arg("value", "The value to store").IsSetByUser(&k.valSet).StringVar(&k.val)

	get := kv.Command("get", "Shows the value of a key").Action(act(c, k.getRun))
	k.bucketKeyArgs(get)
	get.Flag("revision", "Shows this revision of the key instead of the latest").PlaceHolder("REVISION").Uint64Var(&k.revision)
	get.Flag("raw", "Prints only the value, with no header or newline").UnNegatableBoolVar(&k.raw)

	create := kv.Command("create", "Stores a value only if the key does not exist yet (or was deleted)").Action(act(c, written(k.createRun)))
	k.bucketKeyArgs(create)
	create.Arg("value", "The value to store").IsSetByUser(&k.valSet).StringVar(&k.val)
	create.Flag("ttl", "Removes the key after this long (the bucket needs --marker-ttl)").PlaceHolder("DURATION").DurationVar(&k.keyTTL)

	update := kv.Command("update", "Stores a value only if the key is still at the revision you read (compare-and-set)").Action(act(c, written(k.updateRun)))
	k.bucketKeyArgs(update)
	update.Arg("value", "The new value").Required().StringVar(&k.val)
	update.Arg("revision", "The revision you read, as kv get shows it").Required().StringVar(&k.revisionArg)

	del := kv.Command("del", "Deletes a key (keeping its history), or with no key the whole bucket").Alias("rm").Action(act(c, written(k.delRun)))
	del.Arg("bucket", "The bucket").Required().StringVar(&k.bucket)
	del.Arg("key", "The key; leave it out to delete the bucket").StringVar(&k.key)
	del.Flag("force", "Delete without asking").Short('f').UnNegatableBoolVar(&k.force)

	purge := kv.Command("purge", "Deletes a key and every earlier revision of it").Action(act(c, written(k.purgeRun)))
	k.bucketKeyArgs(purge)
	purge.Flag("force", "Purge without asking").Short('f').UnNegatableBoolVar(&k.force)
	purge.Flag("ttl", "Removes the purge marker itself after this long (the bucket needs --marker-ttl)").PlaceHolder("DURATION").DurationVar(&k.keyTTL)

	history := kv.Command("history", "Lists every revision the bucket keeps for a key").Action(act(c, k.historyRun))
	k.bucketKeyArgs(history)

	revert := kv.Command("revert", "Puts an earlier revision's value back as the newest").Action(act(c, written(k.revertRun)))
	k.bucketKeyArgs(revert)
	revert.Arg("revision", "The revision whose value to restore").Required().StringVar(&k.revisionArg)
	revert.Flag("force", "Revert without asking").BoolVar(&k.force)

	info := kv.Command("info", "Shows a bucket's configuration and size").Alias("view").Alias("status").Action(act(c, k.infoRun))
	info.Arg("bucket", "The bucket").StringVar(&k.bucket)

	watch := kv.Command("watch", "Prints the keys' current values, then every change, until stopped").Action(act(c, k.watchRun))
	watch.Arg("bucket", "The bucket").Required().StringVar(&k.bucket)
	watch.Arg("key", "The key, or a pattern like 'sue.>'").Default(">").StringVar(&k.key)
	watch.Flag("history", "Starts with every kept revision, not only the latest").UnNegatableBoolVar(&k.includeHistory)
	watch.Flag("deletes", "Shows deletes and purges").Default("true").BoolVar(&k.includeDeletes)
	watch.Flag("updates", "Shows only changes made from now on").UnNegatableBoolVar(&k.updatesOnly)
	watch.Flag("revision", "Starts from this revision").PlaceHolder("REVISION").Uint64Var(&k.revision)

	ls := kv.Command("ls", "Lists the buckets, or the keys in one bucket").Alias("list").Action(act(c, k.lsRun))
	ls.Arg("bucket", "The bucket whose keys to list").StringVar(&k.bucket)
	ls.Arg("key", "Lists only keys matching this pattern, like 'sue.>'").StringVar(&k.key)
	ls.Flag("names", "Lists only the bucket names").Short('n').UnNegatableBoolVar(&k.names)
	ls.Flag("verbose", "Shows a table with each key's revision and time").Short('v').UnNegatableBoolVar(&k.verbose)
	ls.Flag("display-value", "Adds the values to the --verbose table").UnNegatableBoolVar(&k.displayValue)

	compact := kv.Command("compact", "Removes deleted keys' markers and history to reclaim space").Action(act(c, k.compactRun))
	compact.Arg("bucket", "The bucket").Required().StringVar(&k.bucket)
	compact.Flag("force", "Compact without asking").Short('f').UnNegatableBoolVar(&k.force)
}

func (k *kvCmd) bucketKeyArgs(cmd *fisk.CmdClause) {
	cmd.Arg("bucket", "The bucket").Required().StringVar(&k.bucket)
	cmd.Arg("key", "The key, like sue.color").Required().StringVar(&k.key)
}

// configFlags declares the bucket configuration flags of add and edit,
// recording which were typed so edit changes only those.
func (k *kvCmd) configFlags(cmd *fisk.CmdClause, edit bool) {
	isSet := func(name string) *bool {
		b := new(bool)
		k.set[name] = b
		return b
	}
	cmd.Arg("bucket", "The bucket's name, like profiles").Required().StringVar(&k.bucket)
	cmd.Flag("description", "A description of the bucket").IsSetByUser(isSet("description")).StringVar(&k.description)
	cmd.Flag("history", "How many values to keep per key, 1 to 64").IsSetByUser(isSet("history")).Default("1").Int64Var(&k.history)
	if !edit {
		cmd.Flag("storage", "Where to keep the data: file or memory").PlaceHolder("STORAGE").EnumVar(&k.storage, "file", "f", "memory", "m")
	}
	cmd.Flag("ttl", "Removes values this long after they were written").IsSetByUser(isSet("ttl")).PlaceHolder("DURATION").DurationVar(&k.ttl)
	cmd.Flag("marker-ttl", "Allows per-key TTLs, and keeps markers of removed keys this long").IsSetByUser(isSet("marker-ttl")).PlaceHolder("DURATION").DurationVar(&k.markerTTL)
	cmd.Flag("replicas", "How many servers keep a copy").IsSetByUser(isSet("replicas")).Default("1").UintVar(&k.replicas)
	cmd.Flag("max-value-size", "Largest value allowed, like 1024 or 64KB").IsSetByUser(isSet("max-value-size")).PlaceHolder("BYTES").StringVar(&k.maxValueSize)
	cmd.Flag("max-bucket-size", "Largest total size of the bucket, like 10MB").IsSetByUser(isSet("max-bucket-size")).PlaceHolder("BYTES").StringVar(&k.maxBucketSize)
	cmd.Flag("tags", "Places the bucket on servers with these tags").IsSetByUser(isSet("tags")).StringsVar(&k.tags)
	cmd.Flag("cluster", "Places the bucket in this cluster").IsSetByUser(isSet("cluster")).StringVar(&k.cluster)
	cmd.Flag("compress", "Compresses the stored data").IsSetByUser(isSet("compress")).BoolVar(&k.compress)
	cmd.Flag("metadata", "Adds metadata to the bucket's stream, as key=value").PlaceHolder("META").IsSetByUser(isSet("metadata")).StringMapVar(&k.metadata)
	cmd.Flag("republish-source", "Republishes changes to keys matching this to --republish-destination").IsSetByUser(isSet("republish-source")).PlaceHolder("SRC").StringVar(&k.repubSource)
	cmd.Flag("republish-destination", "Where --republish-source changes are republished").IsSetByUser(isSet("republish-destination")).PlaceHolder("DEST").StringVar(&k.repubDest)
	cmd.Flag("republish-headers", "Republishes headers only, without values").IsSetByUser(isSet("republish-headers")).UnNegatableBoolVar(&k.repubHeaders)
	if edit {
		cmd.Flag("no-mirror", "Stops mirroring, making the bucket a bucket of its own").BoolVar(&k.noMirror)
	} else {
		cmd.Flag("mirror", "Makes the bucket a read-only copy of another bucket").StringVar(&k.mirror)
		cmd.Flag("mirror-domain", "The JetStream domain of the --mirror bucket").StringVar(&k.mirrorDomain)
	}
	cmd.Flag("source", "Copies the keys of another bucket into this one").IsSetByUser(isSet("source")).PlaceHolder("BUCKET").StringsVar(&k.sources)
}

// wasSet reports whether a configuration flag was typed.
func (k *kvCmd) wasSet(name string) bool {
	b, ok := k.set[name]
	return ok && *b
}
