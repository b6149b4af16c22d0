package command

import (
	"fmt"
	"io"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"
	"github.com/nats-io/natscli/columns"
)

// The real CLI's formats, shared by every command.

// human formats a value as natscli's f does: thousands separators, humanized
// durations, local times.
func human(v any) string { return columns.F(v) }

// size formats bytes in IEC units, as natscli does ("427 B", "1.2 KiB").
func size[T ~int | ~int64 | ~uint64 | ~int32 | ~uint32 | ~uint](n T) string {
	return humanize.IBytes(uint64(n))
}

// timestamp formats a time as natscli's tables and blocks do.
func timestamp(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") }

// humanDuration is natscli's duration format ("1.86s", "2m0s", "1d2h3m4s").
func humanDuration(d time.Duration) string { return columns.HumanizeDuration(d) }

// newColumns starts a block of "Label: value" rows as natscli prints them.
func newColumns(heading string, a ...any) *columns.Writer {
	return columns.Newf(heading, a...)
}

// renderColumns writes a block.
func renderColumns(w io.Writer, cols *columns.Writer) error {
	return cols.Frender(w)
}

// tableWriter is natscli's table: rounded borders, a centred title, headers
// as typed, no trailing spaces.
type tableWriter struct{ t table.Writer }

func newTable(title string, a ...any) *tableWriter {
	t := table.NewWriter()
	t.SuppressTrailingSpaces()
	t.SetStyle(table.StyleRounded)
	t.Style().Title.Align = text.AlignCenter
	t.Style().Format.Header = text.FormatDefault
	t.Style().Format.Footer = text.FormatDefault
	if title != "" {
		t.SetTitle(fmt.Sprintf(title, a...))
	}
	return &tableWriter{t: t}
}

func (t *tableWriter) AddHeaders(items ...any) { t.t.AppendHeader(items) }
func (t *tableWriter) AddRow(items ...any)     { t.t.AppendRow(items) }
func (t *tableWriter) AddSeparator()           { t.t.AppendSeparator() }

// Render returns the table followed by a newline, as natscli prints it.
func (t *tableWriter) Render() string { return fmt.Sprintln(t.t.Render()) }
