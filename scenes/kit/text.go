package kit

import "natslab/broker/text"

// Clip shortens s to at most n cells, marking a cut with "…": text.Clip,
// under the name scene code reads beside the canvas.
func Clip(s string, n int) string { return text.Clip(s, n) }
