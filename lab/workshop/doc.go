// Package workshop is `natslab workshop`: every attendee their own lab over
// SSH, and the instructor's view of the room.
//
// Each attendee is an SSH user name. Their lab is the whole natslab lab
// (package lab) on their own embedded server, with their own store,
// history and progress under the workshop's store; a reconnect under the
// same name finds it again, and a lab whose attendee left is parked (its
// server stopped) until they return. Nothing but the lab is served: no
// shell, no command, no file transfer, no forwarding, and no command in
// the lab that touches the machine's files. A room code, asked by
// keyboard-interactive authentication, keeps strangers out; wrong codes
// are rate-limited per address. Each lab's server listens nowhere unless
// Options.AttendeeURLs gives it a loopback port with a token of its own.
//
// The instructor's view (instructor.go) runs in the terminal that started
// the workshop: a live table of attendees, broadcasts, opening a lesson
// for the room, a read-only mirror of one attendee's screen, a CSV export.
//
// It imports lab and broker; nothing imports it but main.
package workshop
