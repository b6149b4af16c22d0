// Package assets holds the text natslab carries inside its binary.
//
// It owns the lesson text (Markdown) and the episodes' step definitions
// (YAML), and imports nothing of natslab: every package may read it.
package assets

import _ "embed"

// Welcome is the lesson pane's text before any episode is open: what the
// lab is and the first commands to try. Markdown, rendered by the lab.
//
//go:embed welcome.md
var Welcome string
