package command

import (
	"io"
	"time"

	"github.com/jedib0t/go-pretty/v6/progress"
	"github.com/jedib0t/go-pretty/v6/text"
)

// progressMin is how many messages make pub and request draw the real
// CLI's progress bar instead of a line per message.
const progressMin = 20

// progressBar is the real CLI's progress bar (natscli's NewProgress):
// go-pretty's blocks, speed shown, no ETA, redrawn every 250ms on the
// call's stdout, each redraw moving the cursor back up a line. Where the
// real CLI's stdout is no terminal its width is 80, so the bar is 40 wide.
type progressBar struct {
	w       progress.Writer
	tracker *progress.Tracker
	done    chan struct{}
}

func newProgressBar(out io.Writer, total int) *progressBar {
	w := progress.NewWriter()
	style := progress.StyleBlocks
	style.Visibility.ETA = false
	style.Visibility.Speed = true
	// natscli colours the tracker white where colours are on; the lab
	// leaves its lines uncoloured, for the pane to style.
	style.Colors.Tracker = text.Colors{}
	style.Options.Separator = " "
	style.Options.TimeInProgressPrecision = time.Millisecond
	w.SetStyle(style)
	w.SetAutoStop(true)
	w.SetTrackerLength(80 / 2)
	w.SetNumTrackersExpected(1)
	w.SetUpdateFrequency(250 * time.Millisecond)
	w.SetOutputWriter(out)
	p := &progressBar{w: w, tracker: &progress.Tracker{Total: int64(total)}, done: make(chan struct{})}
	w.AppendTracker(p.tracker)
	go func() {
		defer close(p.done)
		w.Render()
	}()
	return p
}

// Increment counts one message done.
func (p *progressBar) Increment() { p.tracker.Increment(1) }

// Stop draws the last frame, as it stands (a bar stopped early shows how
// far it got), and returns once it is written. A Stop that comes before
// the renderer has started is lost, so it is repeated until it ends.
func (p *progressBar) Stop() {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		p.w.Stop()
		select {
		case <-p.done:
			return
		case <-tick.C:
		}
	}
}
