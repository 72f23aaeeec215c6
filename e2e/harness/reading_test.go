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
