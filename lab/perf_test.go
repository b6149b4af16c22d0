package lab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/nats-io/nats.go/jetstream"

	"natslab/broker"
	"natslab/broker/brokertest"
	"natslab/broker/command"
)

// startProgram runs the lab in a real Bubble Tea program (renderer and all)
// writing to a buffer, as teatest does.
func startProgram(t testing.TB, srv *broker.Server, store string, filter func(tea.Model, tea.Msg) tea.Msg, opts ...func(*Options)) *teatest.TestModel {
	t.Helper()
	popts := []tea.ProgramOption{tea.WithFPS(renderFPS), tea.WithColorProfile(colorprofile.Ascii)}
	if filter != nil {
		popts = append(popts, tea.WithFilter(filter))
	}
	return teatest.NewTestModel(t, newTestModel(t, srv, store, opts...), teatest.WithInitialTermSize(120, 40), teatest.WithProgramOptions(popts...))
}

type pingMsg struct{ sent time.Time }

// BenchmarkPaneReplayVsRealCLI replays a 200,000-message stream with
// sub --all -T in the pane of a running program (renderer and all), and
// with the real CLI to /dev/null against the same server, in the same run.
// It reports the ratio (the goal: at most 1), the heap's peak (goal: under
// 150 MB) and how slowly the UI answered at worst during the flood; it
// fails only if the replay is wrong or the UI stops answering.
func BenchmarkPaneReplayVsRealCLI(b *testing.B) {
	for b.Loop() {
		paneReplay(b)
	}
}

func paneReplay(t *testing.B) {
	const n = 200_000
	srv, store := newTestServer(t)
	fillEvents(t, srv, n)
	url := srv.ClientURL()

	// The real CLI, writing to /dev/null.
	bin := brokertest.RealCLI(t)
	null, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	defer null.Close()
	cmd := exec.Command(bin, "--server", url, "--no-context", "sub", "events.>", "--all", "-T")
	home := t.TempDir()
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")}
	cmd.Stdout, cmd.Stderr = null, null
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("real CLI: %v", err)
	}
	real := time.Since(start)

	// The lab, in a running program; the UI is pinged while it replays.
	ended := make(chan command.Event, 8)
	var worst atomic.Int64
	var pings atomic.Int64
	filter := func(_ tea.Model, msg tea.Msg) tea.Msg {
		if p, ok := msg.(pingMsg); ok {
			d := int64(time.Since(p.sent))
			pings.Add(1)
			for {
				w := worst.Load()
				if d <= w || worst.CompareAndSwap(w, d) {
					break
				}
			}
			return nil
		}
		return msg
	}
	observe := func(o *Options) {
		o.SessionOptions = append(o.SessionOptions, command.WithObserver(func(e command.Event) {
			if e.Kind == command.JobEnded {
				ended <- e
			}
		}))
	}
	tm := startProgram(t, srv, store, filter, observe)
	// The program is up once it has drawn its greeting.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return strings.Contains(ansi.Strip(string(b)), "Type help for the commands") },
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			tm.Send(pingMsg{sent: time.Now()})
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	start = time.Now()
	tm.Type(`sub "events.>" --all -T`)
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	var e command.Event
	select {
	case e = <-ended:
	case <-time.After(2 * time.Minute):
		t.Fatal("the replay did not end")
	}
	lab := time.Since(start)
	close(stop)
	wg.Wait()
	if e.Err != nil {
		t.Fatalf("replay: %v", e.Err)
	}
	// The UI still answers afterwards: a command runs and ends.
	tm.Type("pub greet after")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	select {
	case e = <-ended:
		if e.Line != "pub greet after" || e.Err != nil {
			t.Errorf("after the replay: %+v", e)
		}
	case <-time.After(10 * time.Second):
		t.Error("the UI did not run a command after the replay")
	}
	tm.Quit()
	m := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	lines := m.sb.Lines()
	last := ""
	for i := len(lines) - 1; i >= 0 && last == ""; i-- {
		if len(lines[i]) > 4 && lines[i][:2] == "[#" {
			last = lines[i]
		}
	}
	if want := fmt.Sprintf("[#%d] ", n); len(last) < len(want) || last[:len(want)] != want {
		t.Errorf("the pane's last message is not #%d: %q", n, last)
	}
	if pings.Load() == 0 {
		t.Error("the UI never answered during the replay")
	}
	t.ReportMetric(lab.Seconds()/real.Seconds(), "lab/real")
	t.ReportMetric(lab.Seconds(), "lab-s")
	t.ReportMetric(real.Seconds(), "real-cli-s")
	t.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
	t.ReportMetric(float64(time.Duration(worst.Load()).Milliseconds()), "worst-ui-ms")
}

// fillEvents makes stream EVENTS (events.>) with n small messages.
func fillEvents(t testing.TB, srv *broker.Server, n int) {
	t.Helper()
	nc, err := srv.Connect("fill")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(256))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "EVENTS", Subjects: []string{"events.>"}}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := js.PublishAsync(fmt.Sprintf("events.%d", i%10), []byte(`{"page":"/home"}`)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-ctx.Done():
		t.Fatal("filling the stream timed out")
	}
}
