package kit

import (
	"fmt"
	"strconv"
	"strings"

	"natslab/scenes"
)

// The errors a scene's controls give for typing mistakes, worded alike in
// every scene: each says what to type instead.

// UnknownControl says the scene has no such control, and which it has.
func UnknownControl(scene, control string, controls []scenes.Control) error {
	names := make([]string, len(controls))
	for i, c := range controls {
		names[i] = c.Name
	}
	return fmt.Errorf("the %s scene has no control %q: it knows %s", scene, control, strings.Join(names, ", "))
}

// NoArgs refuses arguments to a control that takes none.
func NoArgs(control string, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("%s takes no arguments, got %q", control, strings.Join(args, " "))
	}
	return nil
}

// Count reads the arguments of `publish [N]`: 1 when there is none, else a
// whole number from 1 to max. example is a publish to suggest ("publish 5").
func Count(args []string, max int, example string) (int, error) {
	switch len(args) {
	case 0:
		return 1, nil
	case 1:
	default:
		return 0, fmt.Errorf("publish takes one count, got %q (for example: %s)", strings.Join(args, " "), example)
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 || n > max {
		return 0, fmt.Errorf("publish %s: the count is a whole number from 1 to %d (for example: %s)", args[0], max, example)
	}
	return n, nil
}
