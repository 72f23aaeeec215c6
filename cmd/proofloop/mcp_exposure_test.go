//go:build !lean

package main

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestNeverToolsOneList holds the never-tools to mcpExposure, the one list:
// each names a command of the tree (a renamed command leaves no stale
// entry), none is served, mcp --help prints them all from it, and
// docs/mcp.md names the same commands.
func TestNeverToolsOneList(t *testing.T) {
	root := (&app{}).rootCommand()
	served := map[string]bool{}
	for _, tl := range mcpTools(root, "") {
		served[commandName(tl.cmd)] = true
	}
	for name := range mcpExposure.hidden {
		// cobra adds its own help and completion when the root executes.
		if c, _, err := root.Find(strings.Fields(name)); name != "help" && name != "completion" && (err != nil || commandName(c) != name) {
			t.Errorf("mcpExposure.hidden names %q, which is no command of the tree", name)
		}
		if served[name] {
			t.Errorf("%s is hidden but served", name)
		}
	}
	help := (&app{}).mcpCommand().Long
	if !strings.Contains(strings.Join(strings.Fields(help), " "), neverTools()) {
		t.Errorf("mcp --help does not print neverTools() %q", neverTools())
	}
	doc, err := os.ReadFile("../../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`are never tools \(([^;]*);`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/mcp.md has no list of what is never a tool: want `are never tools (`mcp`, ...;`")
	}
	var got []string
	for _, b := range regexp.MustCompile("`([^`]+)`").FindAllSubmatch(m[1], -1) {
		got = append(got, string(b[1]))
	}
	slices.Sort(got)
	if want := slices.Sorted(maps.Keys(mcpExposure.hidden)); !slices.Equal(got, want) {
		t.Errorf("docs/mcp.md's never-tools = %v; want mcpExposure.hidden's %v", got, want)
	}
}
