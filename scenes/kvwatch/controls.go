package kvwatch

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"natslab/scenes"
	"natslab/scenes/kit"
)

// Controls implements kit.Driver.
func (d *driver) Controls() []kit.Control {
	return []kit.Control{
		{Control: scenes.Control{Name: "watch", Usage: "watch [BUCKET]", Summary: "show a key-value bucket; watch alone follows the bucket in use"}, Run: d.watch},
	}
}

// watch shows a bucket; its name is checked with the broker.
func (d *driver) watch(args []string) (string, error) {
	switch len(args) {
	case 0:
		d.setChoice("")
		return "watching the bucket in use: the one last added, or last written to", nil
	case 1:
	default:
		return "", fmt.Errorf("watch takes one bucket, got %q (for example: watch profiles)", strings.Join(args, " "))
	}
	bucket := args[0]
	ctx, cancel := context.WithTimeout(d.Ctx, 3*time.Second)
	defer cancel()
	var names []string
	l := d.js.StreamNames(ctx)
	for n := range l.Name() {
		if strings.HasPrefix(n, "KV_") {
			names = append(names, strings.TrimPrefix(n, "KV_"))
		}
	}
	if err := l.Err(); err != nil {
		return "", fmt.Errorf("cannot list the buckets: %v", err)
	}
	sort.Strings(names)
	for _, n := range names {
		if n == bucket {
			d.setChoice(bucket)
			return "watching bucket " + bucket + " (stream KV_" + bucket + ")", nil
		}
	}
	if len(names) == 0 {
		return "", fmt.Errorf("there is no bucket %s, nor any other yet: kv add %s makes one", bucket, bucket)
	}
	return "", fmt.Errorf("there is no bucket %s: the buckets are %s (for example: watch %s)", bucket, strings.Join(names, ", "), names[0])
}

func (d *driver) setChoice(bucket string) {
	d.mu.Lock()
	d.choice = bucket
	d.rewatch = true
	d.mu.Unlock()
	d.poke()
}
