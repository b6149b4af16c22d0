package lab

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"natslab/scenes/kit"
)

// fillPane puts realistic command output in the scrollback: stream info
// blocks, sub lines, tables.
func fillPane(h *harness) {
	h.run(`pub greet "Hello NATS!" --count 5`)
	h.run(`help`)
	w := h.m.sb.Writer(kindOut)
	for i := range 2000 {
		fmt.Fprintf(w, "[#%d] Received JetStream message: stream: EVENTS seq: %d / pending: %d / subject: events.page_loaded / time: 2026-12-02 15:04:05\n{\"page\":\"/home\"}\n\n\n", i+1, i+1, 2000-i)
	}
	w.Close()
	h.settle()
}

// BenchmarkView measures View at 160x50 (target: under 1 ms) when nothing
// changed, while typing, while output arrives, and scrolled back.
func BenchmarkView(b *testing.B) {
	h := newHarness(b, 160, 50)
	fillPane(h)
	b.Run("still", func(b *testing.B) {
		h.m.View()
		b.ReportAllocs()
		for b.Loop() {
			h.m.View()
		}
	})
	b.Run("typing", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			h.m.cmd.in.SetValue(strings.Repeat("x", i%40))
			h.m.View()
		}
		h.m.cmd.in.Reset()
	})
	b.Run("output", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h.m.sb.Append(kindOut, "[#1] Received on \"greet\" with a body that is fairly long, like most")
			h.m.View()
		}
	})
	b.Run("scrolled", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h.m.cmd.scroll(-3)
			if h.m.cmd.follow {
				h.m.cmd.scroll(-100)
			}
			h.m.View()
		}
		h.m.cmd.Follow()
	})
}

// BenchmarkPaneWriter measures the scrollback writer with sub's output in
// 64 KiB writes, as sub writes it.
func BenchmarkPaneWriter(b *testing.B) {
	var block strings.Builder
	lines := 0
	for i := 0; block.Len() < 64*1024-200; i++ {
		fmt.Fprintf(&block, "[#%d] Received JetStream message: stream: EVENTS seq: %d / pending: 0 / subject: events.x / time: 2026-12-02 15:04:05\n{\"n\":%d}\n\n\n", i, i, i)
		lines += 4
	}
	data := block.String()
	sb := NewScrollback(DefaultScrollback)
	w := sb.Writer(kindOut)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		io.WriteString(w, data)
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkLessonView measures View at 160x50 with a lesson open: still,
// and when a step's state changes (the checklist is drawn again, the
// lesson's Markdown is not rendered again).
func BenchmarkLessonView(b *testing.B) {
	h := newHarness(b, 160, 50)
	withScenes(h)
	h.run("lesson first-stream")
	h.waitScreen("lesson first-stream 0/4")
	b.Run("still", func(b *testing.B) {
		h.m.View()
		b.ReportAllocs()
		for b.Loop() {
			h.m.View()
		}
	})
	b.Run("step", func(b *testing.B) {
		steps := append([]Step(nil), h.m.lesson.steps...)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			s := append([]Step(nil), steps...)
			s[0].Why = strings.Repeat("x", i%3)
			h.m.lesson.SetSteps(s, "")
			h.m.View()
		}
	})
}

// BenchmarkViewAnimating measures View at 160x50 with the contrast scene
// open and messages in flight, as the lab draws it at every frame: the
// scene's clock moves before each (every frame differs), stepping back a
// second now and then so that what is in flight stays in flight.
func BenchmarkViewAnimating(b *testing.B) {
	clock := kit.NewManualClock(fixedClock{}.Now())
	h := newHarness(b, 160, 50, func(o *Options) { o.Clock = clock })
	h.run("scene contrast")
	h.run("pub events.bench tick --count 8")
	h.waitScreen("received 8")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		clock.Advance(time.Millisecond)
		if i%1000 == 0 {
			clock.Advance(-time.Second)
		}
		h.m.scene.Invalidate()
		h.m.View()
	}
}
