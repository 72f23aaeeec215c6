package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/skills"
)

// TestRunExitCodesInREADME checks that the exit-code table of docs/cli.md
// (moved there from the README) gives
// every error code of skills.ExitCodes (run's outcomes included) the exit
// code the CLI maps it to, and names no other: the table is copied by hand,
// so this keeps it from drifting.
func TestRunExitCodesInREADME(t *testing.T) {
	data, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	start := strings.Index(text, "| exit | JSON `error.code` | meaning |")
	if start < 0 {
		t.Fatal("docs/cli.md has no exit-code table")
	}
	row := regexp.MustCompile("^\\| ([0-9]+) \\|([^|]*)\\|")
	code := regexp.MustCompile("`([a-z_]+)`")
	got := map[string]int{}
	for _, line := range strings.Split(text[start:], "\n")[2:] {
		if !strings.HasPrefix(line, "|") {
			break
		}
		m := row.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("docs/cli.md exit-code row %q does not parse", line)
		}
		exit, _ := strconv.Atoi(m[1])
		for _, c := range code.FindAllStringSubmatch(m[2], -1) {
			got[c[1]] = exit
		}
	}
	for _, e := range skills.ExitCodes {
		if exit, ok := got[string(e.Code)]; !ok || exit != e.Exit {
			t.Errorf("docs/cli.md exit-code table gives %s exit %d (listed: %v); want %d", e.Code, exit, ok, e.Exit)
		}
		delete(got, string(e.Code))
	}
	if len(got) != 0 {
		t.Errorf("docs/cli.md exit-code table names codes that skills.ExitCodes does not: %v", got)
	}
}
