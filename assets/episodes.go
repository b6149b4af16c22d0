package assets

import "embed"

// Episodes holds the lessons: for each episode NN-ID.yaml (its title, starting
// state and steps with their checks) and NN-ID.md (the lesson text). Package
// lab/episode reads them.
//
//go:embed episodes
var Episodes embed.FS
