package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"natslab/broker/brokertest"
)

// natslab run on a file that is no script of text lines (a binary, a
// script saved in Latin-1) says so in one line naming the line, runs
// nothing of it from there, and fails.
func TestRunRefusesAFileThatIsNotText(t *testing.T) {
	for _, tc := range []struct {
		name, script, want string
	}{
		// An executable's start: the ELF magic, then NUL bytes, a quote
		// and a line break further on.
		{name: "binary", script: "\x7fELF\x02\x01\x01\x00\x00\x00'\x00\x03\x00\npub x 'y\n", want: "natslab: line 1 holds binary data (a NUL byte), not a command: natslab run reads a text file of nats commands, one a line\n"},
		{name: "latin-1", script: "pub greet hello\npub greet caf\xe9\n", want: "TIME Published 5 bytes to \"greet\"\nnatslab: line 2 is not UTF-8 text: save the script as UTF-8 and run it again\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "script.nats")
			if err := os.WriteFile(file, []byte(tc.script), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errb strings.Builder
			code := run([]string{"run", "--store", t.TempDir(), "--listen", "none", file}, strings.NewReader(""), &out, &errb)
			if code != 1 {
				t.Errorf("exit status %d, want 1", code)
			}
			if got := brokertest.Normalize(errb.String()); got != tc.want {
				t.Errorf("stderr\n%q\nwant\n%q", got, tc.want)
			}
			if out.String() != "" {
				t.Errorf("stdout %q, want nothing", out.String())
			}
		})
	}
}

// A script saved by a Windows editor (a byte order mark, CRLF line ends)
// runs as it reads.
func TestRunReadsAScriptSavedOnWindows(t *testing.T) {
	file := filepath.Join(t.TempDir(), "script.nats")
	if err := os.WriteFile(file, []byte("\ufeffpub greet hello\r\npub greet again\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	code := run([]string{"run", "--store", t.TempDir(), "--listen", "none", file}, strings.NewReader(""), &out, &errb)
	if want := "TIME Published 5 bytes to \"greet\"\nTIME Published 5 bytes to \"greet\"\n"; code != 0 || brokertest.Normalize(errb.String()) != want {
		t.Errorf("exit status %d, stderr\n%s\nwant\n%s", code, errb.String(), want)
	}
}

// A directory named as the script is said to be one, not a line's error.
func TestRunOnADirectorySaysSo(t *testing.T) {
	dir := t.TempDir()
	var out, errb strings.Builder
	code := run([]string{"run", "--store", t.TempDir(), "--listen", "none", dir}, strings.NewReader(""), &out, &errb)
	if want := "natslab: cannot read the script " + dir + ": is a directory\n"; code != 1 || errb.String() != want {
		t.Errorf("exit status %d, stderr %q, want %q", code, errb.String(), want)
	}
}
