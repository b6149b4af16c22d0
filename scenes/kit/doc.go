// Package kit is what every scene is built from: Scene, which joins a
// scene's picture and driver into a scenes.Scene (see scenes' "Adding a
// scene"); a feed that carries broker events into the Bubble Tea model;
// frames that come only while something moves; glyphs that travel between
// named waypoints, flashes and fades; a cell canvas that draws at any
// size; big digits for a projector; and the one palette scenes share (the
// host chooses colour or none: UseStyles).
//
// Everything that moves is computed from a scenes.Clock at View time, so a
// test that sets a ManualClock gets the same picture every run.
//
// A scene's heartbeat is Feed.Next: armed in Init and after every FeedMsg,
// it waits for broker events while nothing moves and delivers frames
// (with the events that came meanwhile) while something does, so a host
// redraws once per frame, never twice.
//
// It imports scenes and broker/text, never lab.
package kit
