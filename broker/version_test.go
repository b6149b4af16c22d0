package broker

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
)

func TestVersionNamesWhatTheLabCarries(t *testing.T) {
	info := &debug.BuildInfo{
		Main: debug.Module{Path: "natslab", Version: "v0.3.0"},
		Deps: []*debug.Module{
			{Path: "github.com/nats-io/nats.go", Version: "v1.56.0"},
			{Path: "github.com/nats-io/natscli", Version: "v0.5.0", Replace: &debug.Module{Path: "github.com/nats-io/natscli", Version: "v0.5.9"}},
		},
	}
	got := versionFrom(info, true)
	for _, want := range []string{"natslab v0.3.0 (", "nats-server v" + server.VERSION, "natscli v0.5.9", "nats.go v1.56.0", "go1."} {
		if !strings.Contains(got, want) {
			t.Errorf("version %q lacks %q", got, want)
		}
	}
}

func TestVersionOfABuildWithoutAVersionSaysSo(t *testing.T) {
	for _, info := range []*debug.BuildInfo{{Main: debug.Module{Path: "natslab", Version: "(devel)"}}, nil} {
		got := versionFrom(info, info != nil)
		if !strings.HasPrefix(got, "natslab built from source (nats-server v"+server.VERSION+", go1.") {
			t.Errorf("version %q", got)
		}
		if strings.Contains(got, "natscli") {
			t.Errorf("version %q names a natscli the build info does not have", got)
		}
	}
}
