package command

import (
	"slices"
	"strings"

	"natslab/broker"
)

// secretFlags are the real CLI's connection flags whose values are secrets
// or name where one is kept (natscli's --user takes a user name or a token),
// the plainest secret first: a line with --user and --password is said to
// carry its --password.
var secretFlags = []string{"password", "token", "seed", "nkey", "jwt", "creds", "user"}

// CarriesSecret says whether a command line holds a secret: one of the
// connection flags that take one, or a URL with user info anywhere in it.
// what names it for a one-line remark ("--password", "a URL with user
// info"); the secret itself is never part of it. The line need not be
// valid: a refused line is checked the same way.
func CarriesSecret(line string) (what string, ok bool) {
	words, err := SplitWords(line)
	if err != nil {
		words = strings.Fields(line)
	}
	flag := len(secretFlags) // the plainest secret flag on the line, by its index
	for i, w := range words {
		name, isFlag := strings.CutPrefix(w, "--")
		if !isFlag {
			if w == "-s" && i+1 < len(words) && strings.Contains(words[i+1], "@") {
				return "a server URL with user info", true
			}
			continue
		}
		name, value, hasValue := strings.Cut(name, "=")
		for j, f := range secretFlags {
			if name == f && j < flag {
				flag = j
			}
		}
		if name == "server" {
			if !hasValue && i+1 < len(words) {
				value = words[i+1]
			}
			if strings.Contains(value, "@") {
				return "a server URL with user info", true
			}
		}
	}
	if flag < len(secretFlags) {
		return "--" + secretFlags[flag], true
	}
	if broker.HasUserInfo(line) {
		return "a URL with user info", true
	}
	return "", false
}

// maskedFlags are the flags whose value RedactLine masks: secrets, and
// --user, which takes a token too (masked unless the line has a
// --password: then it is a user name).
var maskedFlags = []string{"password", "token", "seed", "jwt", "user"}

// RedactLine is line as the lab shows it wherever it repeats what was
// typed (the pane's echo, the jobs list, a job's stop): the value of each
// secret flag and the user info of each URL masked (broker.Masked), the
// rest as typed. A line with no secret comes back as it was.
func RedactLine(line string) string {
	if _, secret := CarriesSecret(line); !secret {
		return line
	}
	line = broker.Redact(line)
	spans := wordSpans(line)
	hasPassword := false
	for _, sp := range spans {
		w := line[sp[0]:sp[1]]
		if w == "--password" || strings.HasPrefix(w, "--password=") {
			hasPassword = true
		}
	}
	var b strings.Builder
	prev := 0
	masking := false // this word is a masked flag's value
	server := false  // this word is --server's value
	for _, sp := range spans {
		b.WriteString(line[prev:sp[0]])
		prev = sp[1]
		word := line[sp[0]:sp[1]]
		if masking {
			b.WriteString(broker.Masked)
			masking = false
			continue
		}
		if server {
			// user:password@host, without a scheme: the server's URL
			// all the same.
			if at := strings.LastIndex(word, "@"); at >= 0 && !strings.Contains(word, broker.Masked+"@") {
				word = broker.Masked + word[at:]
			}
			server = false
		}
		if word == "--server" || word == "-s" {
			server = true
		}
		if v, ok := strings.CutPrefix(word, "--server="); ok {
			if at := strings.LastIndex(v, "@"); at >= 0 && !strings.Contains(v, broker.Masked+"@") {
				word = "--server=" + broker.Masked + v[at:]
			}
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(word, "--"), "=")
		if strings.HasPrefix(word, "--") && slices.Contains(maskedFlags, name) && (name != "user" || !hasPassword) {
			if !hasValue {
				masking = true
			} else if value != "" {
				word = "--" + name + "=" + broker.Masked
			}
		}
		b.WriteString(word)
	}
	b.WriteString(line[prev:])
	return b.String()
}

// wordSpans are where line's words start and end, as SplitWords reads
// them: runs of non-blanks, where quotes and a backslash keep blanks in.
func wordSpans(line string) [][2]int {
	var spans [][2]int
	start := -1
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' && i+1 < len(line) {
				i++
			}
			continue
		case c == ' ' || c == '\t' || c == '\n':
			if start >= 0 {
				spans = append(spans, [2]int{start, i})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
		switch c {
		case '\'', '"':
			quote = c
		case '\\':
			i++
		}
	}
	if start >= 0 {
		spans = append(spans, [2]int{start, len(line)})
	}
	return spans
}

// Shown is the job's line as the lab shows it: RedactLine's.
func (j *Job) Shown() string { return RedactLine(j.Line) }
