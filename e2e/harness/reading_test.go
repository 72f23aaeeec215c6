package harness

import (
	"os"
	"strings"
	"testing"
)

// What the test reads back from the requests Claude Code sent.

// texts are all the texts of a request's messages, system-role messages
// included (Claude Code sends its listings and hook output as those).
func texts(r *request) []string {
	var out []string
	for _, m := range r.Messages {
		for _, b := range m.blocks() {
			if b.Type == "text" {
				out = append(out, b.Text)
			}
		}
	}
	return out
}

// sessionStart is the output of the SessionStart hook as the model got it,
// up to the listing that follows it.
func sessionStart(r *request) string {
	for _, s := range texts(r) {
		i := strings.Index(s, "SessionStart")
		if i < 0 {
			continue
		}
		s = s[i:]
		if j := strings.Index(s, "\nAvailable agent types"); j >= 0 {
			s = s[:j]
		}
		return s
	}
	return ""
}

// agentBody is the first line of an agent file's body, after its front
// matter.
func agentBody(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.SplitN(string(data), "\n---\n", 2)
	if len(parts) != 2 {
		t.Fatalf("%s has no front matter", path)
	}
	for _, l := range strings.Split(parts[1], "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	t.Fatalf("%s has an empty body", path)
	return ""
}

// finalCalls are all tool calls of all conversations, once each, in the
// order they were made, each with its result.
func finalCalls(reqs []*request) []call {
	var out []call
	at := map[string]int{}
	for _, r := range reqs {
		for _, c := range read(r).Calls {
			i, ok := at[c.ID]
			if !ok {
				at[c.ID] = len(out)
				out = append(out, c)
				continue
			}
			if c.Done {
				out[i] = c
			}
		}
	}
	return out
}

// session is one Claude Code session of a turn: its role and item, what
// the SessionStart hook put in it, and every tool call it made, each with
// its result.
type session struct {
	Role, ID, Prime string
	Calls           []call
}

// sessions groups the requests by session, in the order they started. A
// session's requests share its hook output (prime's lease line makes each
// one unique), and its last request carries all its calls.
func sessions(reqs []*request) []session {
	var out []session
	at := map[string]int{}
	for _, r := range reqs {
		c := read(r)
		if c.ID == "" || len(r.Tools) == 0 {
			continue
		}
		key := c.Role + " " + c.ID + "\n" + c.Prime
		i, ok := at[key]
		if !ok {
			i, at[key] = len(out), len(out)
			out = append(out, session{Role: c.Role, ID: c.ID, Prime: c.Prime})
		}
		if len(c.Calls) >= len(out[i].Calls) {
			out[i].Calls = c.Calls
		}
	}
	return out
}

// hintNamed reports whether cmd is what the refusal of prev told the model
// to run (with --json added, to read its result).
func hintNamed(prev call, cmd string) bool {
	res := prev.result()
	if res == nil || res["ok"] != false {
		return false
	}
	e, _ := res["error"].(map[string]any)
	hint, _ := e["hint"].(string)
	m := hintCommand.FindStringSubmatch(hint)
	return m != nil && (cmd == m[1] || cmd == m[1]+" --json")
}
