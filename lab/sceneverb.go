package lab

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"natslab/broker/command"
	"natslab/broker/text"
	"natslab/scenes"
)

// The scene verb and the open scene's controls, as command-pane verbs. Verbs
// run on job goroutines: opening a scene is handed to the UI loop (where a
// scene's Init, Update, View and SetSize must run); a control calls the
// scene's Do, which is safe from any goroutine.

// paneWords are handled by the command pane itself; no control may take them.
var paneWords = map[string]bool{"clear": true, "quit": true, "exit": true, "scene": true}

func (m *Model) addSceneVerb() {
	m.sess.AddVerb(command.Verb{
		Name:     "scene",
		Usage:    "scene [NAME | off | CONTROL …]",
		Summary:  "List the scenes, open one in the scene pane, close it (off), or run one of its controls",
		Run:      m.runScene,
		Complete: m.completeScene,
	})
}

func (m *Model) activeScene() scenes.Scene {
	m.activeMu.Lock()
	defer m.activeMu.Unlock()
	return m.active
}

func (m *Model) runScene(c *command.Call, args []string) error {
	if len(args) == 0 {
		return m.listScenes(c)
	}
	name, rest := args[0], args[1:]
	if name == "off" || name == "close" {
		if m.activeScene() == nil {
			fmt.Fprintln(c.Out, "No scene is open")
			return nil
		}
		if !m.call(func(m *Model) tea.Cmd { return m.openScene(nil) }) {
			return errors.New("the lab is closing")
		}
		fmt.Fprintln(c.Out, "The scene is closed")
		return nil
	}
	if f, ok := m.sceneLookup(name); ok {
		if len(rest) > 0 {
			return fmt.Errorf("scene %s takes no arguments; its controls run as their own commands (scene lists them)", name)
		}
		// Opened by hand beside a lesson, it offers the lesson's stream too.
		var try []string
		if m.tutor != nil {
			if l := m.tutor.tutor.Lesson(); l != nil {
				try = l.Episode().StreamTry()
			}
		}
		sc, err := f.New(scenes.Env{Deployment: m.dep, Clock: m.clock, Try: try})
		if err != nil {
			return fmt.Errorf("cannot open scene %s: %w", name, err)
		}
		if !m.call(func(m *Model) tea.Cmd { return m.openScene(sc) }) {
			sc.Close()
			return errors.New("the lab is closing")
		}
		fmt.Fprintf(c.Out, "Scene %s: %s\n", sc.Name(), sc.Title())
		m.describeControls(c, sc)
		return nil
	}
	if sc := m.activeScene(); sc != nil && hasControl(sc, name) {
		return doControl(c, sc, name, rest)
	}
	names := m.sceneNames()
	if len(names) == 0 {
		return fmt.Errorf("there is no scene %q: no scenes are installed in this build", name)
	}
	return fmt.Errorf("there is no scene %q: scenes are %s (scene lists them)", name, strings.Join(names, ", "))
}

func (m *Model) listScenes(c *command.Call) error {
	list := m.sceneList()
	if len(list) == 0 {
		fmt.Fprintln(c.Out, "No scenes are installed in this build yet")
		return nil
	}
	open := ""
	if sc := m.activeScene(); sc != nil {
		open = sc.Name()
	}
	for _, f := range list {
		mark := " "
		if f.Name == open {
			mark = "*"
		}
		fmt.Fprintf(c.Out, "%s %-12s %s\n", mark, f.Name, f.Summary)
	}
	fmt.Fprintln(c.Out, "\nscene NAME opens one; scene off closes it")
	return nil
}

// describeControls lists the open scene's controls and how to type them.
func (m *Model) describeControls(c *command.Call, sc scenes.Scene) {
	ctls := sc.Controls()
	if len(ctls) == 0 {
		return
	}
	fmt.Fprintln(c.Out, "Controls:")
	usages := make([]string, len(ctls))
	width := 0
	for i, ctl := range ctls {
		usages[i] = ctl.Usage
		if usages[i] == "" {
			usages[i] = ctl.Name
		}
		if m.sess.IsCommand(ctl.Name) || paneWords[ctl.Name] {
			usages[i] = "scene " + usages[i]
		}
		width = max(width, len(usages[i]))
	}
	for i, ctl := range ctls {
		// Wrapped in its own column at the pane's width: the pane would
		// fold a longer line back to its first column.
		for _, l := range text.Hanging(usages[i], ctl.Summary, 2+width+2, m.sess.HelpWidth()) {
			fmt.Fprintln(c.Out, l)
		}
	}
	if k, ok := sc.(scenes.Keyed); ok && len(k.Keys()) > 0 {
		fmt.Fprintln(c.Out, "F4 (or a click on the scene) gives the scene its keys; esc gives them back")
	}
}

// openScene replaces the open scene (nil closes it) on the UI loop, and
// makes its controls verbs of the session. A control named like a nats
// command or a lab verb (publish, reset) stays reachable as `scene NAME …`
// and never takes the command over.
func (m *Model) openScene(sc scenes.Scene) tea.Cmd {
	m.activeMu.Lock()
	m.active = sc
	m.activeMu.Unlock()
	cmd := m.scene.Open(sc)
	if sc != nil {
		m.showLog = false
	}
	// A scene gets the split it is drawn for; its introduction gives the
	// lesson pane the room.
	m.resize(m.w, m.h)
	if sc == nil {
		return cmd
	}
	owner := sc.Name()
	for _, ctl := range sc.Controls() {
		if m.sess.IsCommand(ctl.Name) || paneWords[ctl.Name] {
			continue
		}
		name := ctl.Name
		m.sess.AddVerb(command.Verb{
			Name:    name,
			Usage:   ctl.Usage,
			Summary: ctl.Summary + " (scene " + owner + ")",
			Run: func(c *command.Call, args []string) error {
				cur := m.activeScene()
				if cur == nil || !hasControl(cur, name) {
					return fmt.Errorf("%s is a control of the %s scene, which is not open: scene %s opens it", name, owner, owner)
				}
				return doControl(c, cur, name, args)
			},
		})
	}
	return tea.Batch(cmd, m.maybeFrame())
}

func doControl(c *command.Call, sc scenes.Scene, name string, args []string) error {
	out, err := sc.Do(name, args)
	if err != nil {
		return err
	}
	if out != "" {
		fmt.Fprintln(c.Out, strings.TrimRight(out, "\n"))
	}
	return nil
}

func hasControl(sc scenes.Scene, name string) bool {
	for _, ctl := range sc.Controls() {
		if ctl.Name == name {
			return true
		}
	}
	return false
}

func (m *Model) sceneNames() []string {
	var names []string
	for _, f := range m.sceneList() {
		names = append(names, f.Name)
	}
	sort.Strings(names)
	return names
}

// completeScene offers scene names, off, and the open scene's controls.
func (m *Model) completeScene(args []string) []string {
	if len(args) > 0 {
		return nil
	}
	out := append(m.sceneNames(), "off")
	if sc := m.activeScene(); sc != nil {
		for _, ctl := range sc.Controls() {
			out = append(out, ctl.Name)
		}
	}
	return out
}
