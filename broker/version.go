package broker

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
)

// Version says which natslab this is and what it carries: the embedded
// nats-server, the natscli whose commands it speaks, its client library and
// Go. A learner comparing the lab with a nats-server or nats they installed
// needs to know which versions the lab's answers come from.
func Version() string {
	return versionFrom(debug.ReadBuildInfo())
}

func versionFrom(info *debug.BuildInfo, ok bool) string {
	self := "built from source"
	parts := []string{"nats-server v" + server.VERSION}
	if ok {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			self = v
		}
		for _, path := range []string{"github.com/nats-io/natscli", "github.com/nats-io/nats.go"} {
			if v := depVersion(info, path); v != "" {
				parts = append(parts, path[strings.LastIndex(path, "/")+1:]+" "+v)
			}
		}
	}
	parts = append(parts, runtime.Version())
	return fmt.Sprintf("natslab %s (%s)", self, strings.Join(parts, ", "))
}

// depVersion is the version of the module at path the binary was built
// with, following a replace directive; "" when it was not built in.
func depVersion(info *debug.BuildInfo, path string) string {
	for _, d := range info.Deps {
		if d.Path != path {
			continue
		}
		if d.Replace != nil && d.Replace.Version != "" {
			return d.Replace.Version
		}
		return d.Version
	}
	return ""
}
