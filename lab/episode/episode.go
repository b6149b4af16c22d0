package episode

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
	"gopkg.in/yaml.v3"

	"natslab/assets"
	"natslab/broker/command"
	"natslab/broker/text"
)

// Episode is one lesson of the curriculum: its text, the state it starts
// from and the steps a learner works through.
type Episode struct {
	Number  int    `yaml:"-"` // from the file name: 06-first-stream.yaml is episode 6
	ID      string `yaml:"id"`
	Title   string `yaml:"title"`
	Part    string `yaml:"part"`    // e.g. "Streams (at least once)"
	Summary string `yaml:"summary"` // one line for the lessons list
	Scene   string `yaml:"scene"`   // the scene the lab shows beside it, maybe with a control to run ("contrast mode jetstream"); "" for none
	Needs   Needs  `yaml:"needs"`
	Start   Start  `yaml:"start"`
	Steps   []Step `yaml:"steps"`
	Text    string `yaml:"-"` // the lesson text, Markdown, from NN-ID.md
}

// Needs is what an episode needs beyond the single embedded server.
type Needs struct {
	// Cluster is the number of nodes the episode needs (3 for replicas), 0
	// for a single server.
	Cluster int `yaml:"cluster"`
	// Listener: the episode's commands run the real nats CLI (object,
	// service), which reaches the server over TCP, so the lab must listen
	// (not --listen none).
	Listener bool `yaml:"listener"`
	// Single: the episode runs on the single server only, never on the
	// lab's cluster: it changes the server's configuration (users,
	// accounts, mappings), which the cluster's nodes do not take, or joins
	// a leaf node to it.
	Single bool `yaml:"single"`
	// LocalFiles: the episode's steps put files of the lab's machine into
	// the server and write them back (object put, object get), which a
	// workshop's labs refuse: the machine is the instructor's.
	LocalFiles bool `yaml:"local_files"`
}

// RunsOn reports whether a lab of cluster nodes (0 or 1: a single server)
// runs e.
func (e *Episode) RunsOn(cluster int) bool {
	if e.Needs.Single {
		return cluster <= 1
	}
	return e.Needs.Cluster <= max(cluster, 1)
}

// Fix says how to start the lab for e, as the flag to add or leave out:
// "--cluster 3", or "without --cluster".
func (e *Episode) Fix() string {
	if e.Needs.Single {
		return "without --cluster"
	}
	return fmt.Sprintf("--cluster %d", e.Needs.Cluster)
}

// Need says what e needs that the lab it cannot run on lacks: "a 3-node
// cluster", or "the single server".
func (e *Episode) Need() string {
	if e.Needs.Single {
		return "the single server"
	}
	return fmt.Sprintf("a %d-node cluster", e.Needs.Cluster)
}

// Start is the known state an episode starts from, and returns to on
// `lesson reset`.
type Start struct {
	JetStream bool `yaml:"jetstream"`
	// Setup lines run through a command session in the lesson's fresh
	// store area, as a learner would type them; a trailing & leaves a job
	// running (a broken responder for troubleshooting, say).
	Setup []string `yaml:"setup"`
	// Files are written into the lesson's working directory, where the
	// real CLI's commands read and write files (object put report.txt).
	Files []File `yaml:"files"`
	// Config is the lab's server configuration for the lesson, in
	// nats-server's syntax (users, permissions, accounts, mappings):
	// applied before the setup lines, shown by config, and changed by the
	// learner as nats-server's is (edit, reload).
	Config string `yaml:"config"`
}

// File is a file a lesson starts with: Text, with {{Line}} replaced by the
// line's number, written as one line after another until the file holds
// at least Size bytes (once, when Size is 0).
type File struct {
	Name string `yaml:"name"`
	Text string `yaml:"text"`
	Size int    `yaml:"size"`
}

// Content is the file's bytes.
func (f File) Content() []byte {
	var b bytes.Buffer
	for n := 1; n == 1 || b.Len() < f.Size; n++ {
		b.WriteString(strings.ReplaceAll(f.Text, "{{Line}}", strconv.Itoa(n)))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Step is one thing to do in an episode.
type Step struct {
	Title string `yaml:"title"`
	// Try lists commands to type, in order. In an exercise where the
	// learner must find the fault, they are ways to look, not the fix.
	Try []string `yaml:"try"`
	// Hints say what to do when stuck, in stages: each hint the learner
	// asks for shows the next one (a nudge, then more, then the answer).
	// One plain string is a single stage.
	Hints Hints `yaml:"hint"`
	// NotYet, if set, is what the learner sees while the step is not done,
	// instead of the check's own words, which may name the very fault an
	// exercise asks them to find. The check's words come back once every
	// hint stage has been shown.
	NotYet string `yaml:"not_yet"`
	// Check is what the broker's state must show for the step to be done:
	// every entry must hold.
	Check []Check `yaml:"check"`
	// Scene, if set, is the scene the lab shows from this step on (as
	// Episode.Scene says one), until a later step names another: a lesson
	// that moves from a stream to a bucket to a service has the scene
	// follow it.
	Scene string `yaml:"scene"`
}

// Hints are a step's hint stages, first to last.
type Hints []string

// UnmarshalYAML reads one hint (a string) or several stages (a list).
func (h *Hints) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*h = Hints{n.Value}
		return nil
	case yaml.SequenceNode:
		var list []string
		if err := n.Decode(&list); err != nil {
			return err
		}
		*h = list
		return nil
	}
	return fmt.Errorf("line %d: a hint is a string, or a list of stages", n.Line)
}

// Catalog is every episode, in order.
type Catalog struct {
	Episodes []*Episode
	byID     map[string]*Episode
}

// Get finds an episode by ID, or by the number natslab lessons shows
// beside it (1 for the first), which is what a learner reading that list
// is likely to type.
func (c *Catalog) Get(id string) (*Episode, bool) {
	if e, ok := c.byID[id]; ok {
		return e, true
	}
	if n, err := strconv.Atoi(id); err == nil && n >= 1 && n <= len(c.Episodes) && id == strconv.Itoa(n) {
		return c.Episodes[n-1], true
	}
	return nil, false
}

// IDs lists the episode IDs in order.
func (c *Catalog) IDs() []string {
	ids := make([]string, len(c.Episodes))
	for i, e := range c.Episodes {
		ids[i] = e.ID
	}
	return ids
}

// Index is the position of an episode in the catalog, or -1.
func (c *Catalog) Index(id string) int {
	for i, e := range c.Episodes {
		if e.ID == id {
			return i
		}
	}
	return -1
}

// Unknown explains an episode ID that does not exist.
func (c *Catalog) Unknown(id string) error {
	if _, err := strconv.Atoi(id); err == nil {
		// A number is no typo of a name: say which numbers there are.
		return fmt.Errorf("there is no lesson %s: the lessons are numbered 1 to %d", id, len(c.Episodes))
	}
	best, bestD := "", 1<<30
	for _, e := range c.Episodes {
		if d := distance(id, e.ID); d < bestD {
			best, bestD = e.ID, d
		}
	}
	// A guess must be close for the word's length: zzz is not kv.
	if best != "" && bestD <= 3 && bestD <= len(id)/2 {
		return fmt.Errorf("there is no lesson %q: did you mean %s? (lessons lists them all)", id, best)
	}
	return fmt.Errorf("there is no lesson %q: the lessons are %s", id, strings.Join(c.IDs(), ", "))
}

// UnknownListed is Unknown with every ID named, guess or not: for the
// command line (natslab --lesson ID), where no lessons verb is at hand.
func (c *Catalog) UnknownListed(id string) error {
	err := c.Unknown(id)
	if strings.Contains(err.Error(), "did you mean") {
		return fmt.Errorf("%s (the lessons are %s)", strings.TrimSuffix(err.Error(), " (lessons lists them all)"), strings.Join(c.IDs(), ", "))
	}
	return err
}

var fileName = text.Pattern(`^(\d\d)-([a-z0-9-]+)\.yaml$`)

// Load reads the episodes embedded in the binary.
func Load() (*Catalog, error) {
	sub, err := fs.Sub(assets.Episodes, "episodes")
	if err != nil {
		return nil, err
	}
	return LoadFS(sub)
}

// MustLoad is Load for content that ships inside the binary: a broken
// episode file is a bug the tests catch, not a user's mistake.
func MustLoad() *Catalog {
	c, err := Load()
	if err != nil {
		panic(err)
	}
	return c
}

// LoadFS reads NN-ID.yaml and NN-ID.md pairs from fsys.
func LoadFS(fsys fs.FS) (*Catalog, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	c := &Catalog{byID: map[string]*Episode{}}
	for _, ent := range entries {
		m := fileName().FindStringSubmatch(ent.Name())
		if m == nil {
			continue
		}
		e, err := loadEpisode(fsys, ent.Name())
		if err != nil {
			return nil, fmt.Errorf("episode %s: %w", ent.Name(), err)
		}
		e.Number, _ = strconv.Atoi(m[1])
		if e.ID != m[2] {
			return nil, fmt.Errorf("episode %s: id is %q, but the file name says %q", ent.Name(), e.ID, m[2])
		}
		if c.byID[e.ID] != nil {
			return nil, fmt.Errorf("episode %s: id %q is used twice", ent.Name(), e.ID)
		}
		c.byID[e.ID] = e
		c.Episodes = append(c.Episodes, e)
	}
	sort.Slice(c.Episodes, func(i, j int) bool { return c.Episodes[i].Number < c.Episodes[j].Number })
	if len(c.Episodes) == 0 {
		return nil, fmt.Errorf("no episodes found")
	}
	return c, nil
}

func loadEpisode(fsys fs.FS, name string) (*Episode, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true) // a misspelt check field is an error, not a check that never runs
	e := &Episode{}
	if err := dec.Decode(e); err != nil {
		return nil, err
	}
	md := strings.TrimSuffix(name, path.Ext(name)) + ".md"
	text, err := fs.ReadFile(fsys, md)
	if err != nil {
		return nil, fmt.Errorf("lesson text: %w", err)
	}
	e.Text = string(text)
	return e, e.validate()
}

// SceneAt is the scene the lab shows while step i is the one to do (i
// past the last step: the lesson is complete, and the last step's scene
// stays): the nearest step at or before i that names one, else the
// episode's.
func (e *Episode) SceneAt(i int) string {
	for i = min(i, len(e.Steps)-1); i >= 0; i-- {
		if e.Steps[i].Scene != "" {
			return e.Steps[i].Scene
		}
	}
	return e.Scene
}

// StreamTry is what makes the stream the lesson works on and fills it, for
// a scene to offer while the server has none (scenes.Env's Try): where
// the lesson starts with streams, its setup's lines that make them, fill
// them and add their consumers; else the first stream add its steps say
// to type and the first pub after it that the stream stores (stream-log's
// come in two steps). nil for a lesson with no stream.
func (e *Episode) StreamTry() []string {
	var out []string
	for _, line := range e.Start.Setup {
		if _, bg := command.SplitBackground(line); !bg && hasAnyPrefix(line, "stream add ", "pub ", "consumer add ") {
			out = append(out, line)
		}
	}
	if slices.ContainsFunc(out, func(l string) bool { return strings.HasPrefix(l, "stream add ") }) {
		return out
	}
	out = nil
	for _, st := range e.Steps {
		for _, line := range st.Try {
			switch {
			case len(out) == 0 && strings.HasPrefix(line, "stream add "):
				out = append(out, line)
			case len(out) == 1 && strings.HasPrefix(line, "pub ") && captures(out[0], line):
				return append(out, line)
			}
		}
	}
	return out
}

// captures reports whether the stream a stream add line makes would store
// what a pub line publishes.
func captures(add, pub string) bool {
	a, err1 := command.SplitWords(add)
	p, err2 := command.SplitWords(pub)
	if err1 != nil || err2 != nil || len(p) < 2 {
		return false
	}
	for i, w := range a {
		subjects, ok := strings.CutPrefix(w, "--subjects=")
		if w == "--subjects" && i+1 < len(a) {
			subjects, ok = a[i+1], true
		}
		if !ok {
			continue
		}
		for _, f := range strings.Split(subjects, ",") {
			if server.SubjectMatchesFilter(p[1], strings.TrimSpace(f)) {
				return true
			}
		}
	}
	return false
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(s, p) })
}

// validate catches content mistakes when the catalog loads.
func (e *Episode) validate() error {
	switch {
	case e.ID == "" || e.Title == "":
		return fmt.Errorf("needs an id and a title")
	case len(e.Steps) == 0:
		return fmt.Errorf("has no steps")
	}
	for _, f := range e.Start.Files {
		if f.Name == "" || f.Name != filepath.Base(f.Name) || strings.HasPrefix(f.Name, ".") {
			return fmt.Errorf("start file %q needs a plain file name", f.Name)
		}
	}
	for i, s := range e.Steps {
		if s.Title == "" || len(s.Hints) == 0 || len(s.Try) == 0 {
			return fmt.Errorf("step %d needs a title, a hint and something to try", i+1)
		}
		for j, h := range s.Hints {
			if strings.TrimSpace(h) == "" {
				return fmt.Errorf("step %d (%s): hint stage %d is empty", i+1, s.Title, j+1)
			}
		}
		if len(s.Check) == 0 {
			return fmt.Errorf("step %d (%s) has no check", i+1, s.Title)
		}
		for _, c := range s.Check {
			if err := c.validate(); err != nil {
				return fmt.Errorf("step %d (%s): %w", i+1, s.Title, err)
			}
		}
	}
	return nil
}

// distance is the Levenshtein distance, for "did you mean".
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
