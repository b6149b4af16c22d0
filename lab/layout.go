package lab

import (
	"fmt"

	"natslab/broker/text"
	"natslab/scenes"
)

// The lab's layouts, by terminal size:
//
//   - full, narrow (80x24 up to about 140 columns): the scene and the lesson
//     side by side on top, the command pane full width below (real CLI
//     output wants the width), the status bar last. From 30 rows the top
//     takes most of the height while the lesson pane is shown (a lesson, or
//     the sandbox's welcome, is read there); with it hidden (F2) the scene
//     takes the full width and the command pane most of the height; a
//     scene beside the welcome, in the sandbox, the rows the scenes are
//     drawn for at 100x30, the command pane (where the learner works) the
//     rest. While no scene is open (the scene pane shows only its
//     introduction, not the server log), the lesson pane reads wider, and
//     taller where the command pane can spare the rows: the welcome's
//     first steps whole from 80x24, the whole of it at 120x36;
//   - full, wide (140x30 and up): the lesson in a column on the right, the
//     scene above the command pane on the left. While no scene is open,
//     the column widens as far as its text needs to read whole (the
//     welcome at 140x30), as long as the command pane keeps the 80
//     columns the real CLI's output is drawn for. Narrower or shorter,
//     a text the narrow layout would cut, read with no scene open, gets
//     this layout where its column holds it whole (the welcome at
//     136x30, 126x33, 158x24), and the welcome where its column hides
//     half as many of its lines as the narrow layout or fewer (130x30,
//     140x24); elsewhere the narrow layout shows its start, and the
//     border the keys that page on;
//   - compact (below 80x24): the command pane and the status bar, under a
//     line saying what size brings the scene and the lesson back;
//   - too small (below 40x8): what size is needed, wrapped into the window.
//
// The server log, when shown, takes the scene's place.

const (
	minWidth, minHeight   = 40, 8  // below this: the size message
	fullWidth, fullHeight = 80, 24 // below this: the compact layout
	wideWidth, wideHeight = 140, 30

	// lessonFrame is what the lesson pane's border and padding take of
	// its width (a border and a blank each side) and of its height (the
	// borders).
	lessonFrameW, lessonFrameH = 4, 2

	// cliWidth is the command pane's narrowest width in the wide layout:
	// the real CLI's tables and lines read as they do at 80x24.
	cliWidth = fullWidth

	// introWidth is the scene pane's width that holds its introduction's
	// picture whole (publisher ──▶ ( NATS ) ──▶ subscriber).
	introWidth = 41

	// cmdRows is the least the narrow layout leaves the command pane
	// below the panes on top: its rule, nine lines and the prompt, what
	// it has beside a lesson at 100x30, where the scenes are drawn for
	// the rows above it (scenes.LessonPanes). Only a text read with no
	// scene beside it takes more, while the pane holds less (onScreen.cmd).
	cmdRows = 11
)

type rect struct{ x, y, w, h int }

type layout struct {
	w, h     int
	tooSmall bool
	compact  bool
	wide     bool
	notice   rect // compact: the line saying what size shows every pane
	top      rect // the scene (or log) pane
	lesson   rect // zero when collapsed
	cmd      rect
	status   rect
}

// onScreen is what the panes hold, as far as the layout cares.
type onScreen struct {
	lesson bool // the lesson pane (a lesson, or the sandbox's welcome) is shown
	scene  bool // the top pane draws a scene or the server log, not the scenes' introduction
	// welcome: the lesson pane shows the sandbox's welcome, not a lesson.
	welcome bool
	// text is how many lines the lesson pane's text takes at a text width
	// (the pane's, less its frame); nil where it is not known.
	text func(width int) int
	// cmd is how many rows the command pane's content has taken at the
	// window's width (its rule and prompt included), up to cmdRows, or
	// all the key help takes while it shows; 0 where it is not known. The
	// welcome takes the rows below that, while the pane holds little more
	// than its greeting, and gives the key help all it takes.
	cmd int
}

// cmdKeeps is how many rows the narrow layout leaves the command pane
// below a text read with nothing beside it: cmdRows, or for the welcome
// as many as the pane's content takes.
func (on onScreen) cmdKeeps() int {
	if on.welcome && on.cmd > 0 {
		return on.cmd
	}
	return cmdRows
}

// rowsAt is the lesson pane's height that shows its text whole at pane
// width w; 0 where the text is not known.
func (on onScreen) rowsAt(w int) int {
	if on.text == nil {
		return 0
	}
	return on.text(w-lessonFrameW) + lessonFrameH
}

// computeLayout places the panes for a w×h window.
func computeLayout(w, h int, on onScreen) layout {
	l := layout{w: w, h: h}
	if w < minWidth || h < minHeight {
		l.tooSmall = true
		return l
	}
	l.status = rect{0, h - 1, w, 1}
	if w < fullWidth || h < fullHeight {
		l.compact = true
		l.notice = rect{0, 0, w, 1}
		l.cmd = rect{0, 1, w, h - 2}
		return l
	}
	if w >= wideWidth && h >= wideHeight {
		return wideLayout(l, on, false)
	}
	// Which layout reads the text best is settled with the command pane
	// at its least (cmdRows): what the pane holds then only moves the
	// line between the panes, never the panes from side to side to a
	// column as the first commands' lines arrive.
	settled := on
	settled.cmd = 0
	n := narrowLayout(l, settled)
	if most := min(80, w-cliWidth); on.lesson && !on.scene && hidden(on, n) > 0 && most >= 40 {
		// The narrow layout cuts the text read with nothing beside it
		// (the welcome, at 136x30 or 200x24): the wide layout's column,
		// where the command pane keeps its 80 columns and the column
		// its 40, reads it whole over the full height where it can.
		if on.rowsAt(most) <= h-1 {
			return wideLayout(l, on, false)
		}
		// Where neither reads the welcome whole, the column at its
		// widest where it hides half as many of its lines or fewer
		// (2 of 21 at 130x30, where the narrow layout hides 5): one
		// that hides about as many reads worse, its commands wrapped
		// in a narrow column.
		if col := wideLayout(l, on, true); on.welcome && 2*hidden(on, col) <= hidden(on, n) {
			return col
		}
	}
	return narrowLayout(l, on)
}

// hidden is how many lines of the lesson pane's text l leaves out of view.
func hidden(on onScreen, l layout) int { return max(on.rowsAt(l.lesson.w)-l.lesson.h, 0) }

// wideLayout places the lesson in a column on the right, the scene above
// the command pane on the left; widest: the column as wide as the command
// pane leaves it, even where that does not read its text whole.
func wideLayout(l layout, on onScreen, widest bool) layout {
	w, h := l.w, l.h
	l.wide = true
	left := w
	if on.lesson {
		lw := clamp(w*32/100, 40, 80)
		if !on.scene {
			// Nothing animates beside it: the column takes the
			// width that reads its text whole in its height, where
			// there is one.
			lw = wholeWidth(on, lw, min(80, w-cliWidth), h-1)
		}
		if widest {
			lw = max(lw, min(80, w-cliWidth))
		}
		left = w - lw
		l.lesson = rect{left, 0, lw, h - 1}
	}
	th := clamp((h-1)*42/100, 8, 30)
	l.top = rect{0, 0, left, th}
	l.cmd = rect{0, th, left, h - 1 - th}
	return l
}

// narrowLayout places the scene and the lesson side by side on top, the
// command pane full width below.
func narrowLayout(l layout, on onScreen) layout {
	w, h := l.w, l.h
	reading := on.lesson && !on.scene
	base := clamp((h*36+50)/100, 7, 20)
	th := base
	switch {
	case on.lesson && h >= 30 && on.welcome && on.scene:
		// A scene beside the welcome: the learner works in the command
		// pane, and the scene shows what its commands do. The scene
		// gets the rows it is drawn for beside the lesson pane at
		// 100x30 (scenes.LessonPanes), more where typing's share is
		// more; the command pane the rest.
		th = max(th, scenes.LessonPanes[0].H+2)
	case on.lesson && h >= 30:
		// Room to read: the lesson pane gets over half the height, a
		// lesson's text a page of ten lines or more beside the step to do
		// next, the welcome its first steps whole. Hidden (F2), the pane's
		// rows go to the command pane for typing.
		th = clamp(h*60/100, 7, 30)
	}
	if r := on.rowsAt(lessonWidth(w, true)); reading && (on.welcome || r <= h-1-cmdRows) {
		// Nothing animates beside it: the text may take the command
		// pane's rows, as long as that pane keeps cmdRows (its first
		// lines and room to type). The welcome, read first beside a
		// command pane that holds only the greeting, takes them as far
		// as they go (its first steps whole from 80x24, the whole of it
		// at 120x36), and the rows the pane does not use yet too
		// (all but one line of it at 110x33), giving them back line by
		// line as the commands' output arrives; a lesson's text only
		// where it then reads whole: one that scrolls anyway leaves them
		// to the commands, where its steps are typed.
		th = max(th, min(r, h-1-on.cmdKeeps()))
		if on.welcome && r > 0 {
			// The welcome whole in fewer rows than a lesson's share:
			// the rest go to the command pane, not to blank rows.
			th = min(th, max(r, base))
		}
		if on.welcome {
			th = max(min(th, h-1-on.cmdKeeps()), 7)
		}
	}
	topW := w
	if on.lesson {
		lw := lessonWidth(w, reading)
		topW = w - lw
		l.lesson = rect{topW, 0, lw, th}
	}
	l.top = rect{0, 0, topW, th}
	l.cmd = rect{0, th, w, h - 1 - th}
	return l
}

// lessonWidth is the lesson pane's width in the narrow layout.
func lessonWidth(w int, reading bool) int {
	lw := clamp((w*42+50)/100, 30, 70)
	if reading {
		// The scene pane keeps its introduction's picture whole; the
		// lesson pane takes the rest, up to 80 columns (76 of text, as
		// wide as the wide layout's column).
		lw = clamp(w-introWidth, lw, 80)
	}
	return lw
}

// wholeWidth is the narrowest width from lw to most at which the lesson
// pane shows its text whole in h rows; lw where none does (the text is
// scrolled anyway: the room stays with the other panes).
func wholeWidth(on onScreen, lw, most, h int) int {
	for w := lw; w <= most; w++ {
		if r := on.rowsAt(w); r > 0 && r <= h {
			return w
		}
	}
	return lw
}

func clamp(v, lo, hi int) int { return min(max(v, lo), hi) }

// compactLine is the compact layout's notice: the longest of its wordings
// that fits.
func compactLine(w, h int) string {
	for _, s := range []string{
		fmt.Sprintf("The scene and lesson panes need %dx%d (this window is %dx%d): make it larger to see them", fullWidth, fullHeight, w, h),
		fmt.Sprintf("scene and lesson need %dx%d (now %dx%d): make it larger", fullWidth, fullHeight, w, h),
		fmt.Sprintf("scene, lesson need %dx%d+ (now %dx%d)", fullWidth, fullHeight, w, h),
	} {
		if len(s) <= w {
			return s
		}
	}
	return fmt.Sprintf("panes: %dx%d+", fullWidth, fullHeight)
}

// tooSmallLines is what the lab shows below its minimum size: the
// fullest of its wordings that wraps into the window, so that even a tiny
// one says what to do.
func tooSmallLines(w, h int) []string {
	return text.WrapIn(w, h,
		fmt.Sprintf("natslab needs a window of at least %dx%d (this one is %dx%d): make it larger", minWidth, minHeight, w, h),
		fmt.Sprintf("natslab needs at least %dx%d (now %dx%d): make it larger", minWidth, minHeight, w, h),
		fmt.Sprintf("natslab needs at least %dx%d (now %dx%d)", minWidth, minHeight, w, h),
		fmt.Sprintf("needs %dx%d+ (now %dx%d)", minWidth, minHeight, w, h),
		fmt.Sprintf("%dx%d+", minWidth, minHeight),
	)
}
