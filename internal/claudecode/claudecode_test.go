package claudecode

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestDirFollowsCacheEnv(t *testing.T) {
	t.Setenv(CacheEnv, "/x/y")
	got, err := Dir()
	if want := filepath.Join("/x/y", Version); err != nil || got != want {
		t.Errorf("Dir() = %q, %v; want %q", got, err, want)
	}
	t.Setenv(CacheEnv, "")
	t.Setenv("XDG_CACHE_HOME", "/c")
	got, err = Dir()
	if want := filepath.Join("/c/proofloop/claude-code", Version); err != nil || got != want {
		t.Errorf("Dir() = %q, %v; want %q", got, err, want)
	}
}

func TestFindMissing(t *testing.T) {
	t.Setenv(CacheEnv, t.TempDir())
	if bin, err := Find(); err == nil {
		t.Errorf("Find() in an empty cache = %q; want an error", bin)
	}
}

// TestPinnedVersion runs the cached CLI: it is the version we pinned.
func TestPinnedVersion(t *testing.T) {
	bin := Require(t)
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), Version+" ") {
		t.Errorf("claude --version = %q, %v; want %s (Claude Code)", out, err, Version)
	}
}

// TestParsePluginDetails reads the figures of a `claude plugin details`
// output as Claude Code 2.1.197 prints them.
func TestParsePluginDetails(t *testing.T) {
	out := `proofloop 0.2.0
Component inventory
  Skills (2)  check-reject-proof, debate
  Agents (1)  agent-check
  Hooks (1)  SessionStart  (harness-only — no model context cost)
  MCP servers (0)

Projected token cost
  Always-on:   ~1,710 tok   added to every session

Per-component (rounded)
  component                   always-on  on-invoke
  check-reject-proof               < 20       ~660
  debate                            ~30      ~1.7k
  agent-check                       ~20        ~1k
`
	pc, err := ParsePluginDetails(out)
	if err != nil {
		t.Fatal(err)
	}
	if pc.AlwaysOn != 1710 || pc.Hooks != 1 || len(pc.Skills) != 2 || pc.Skills[1] != "debate" || len(pc.Agents) != 1 {
		t.Errorf("parsed %+v", pc)
	}
	want := map[string]Cost{"check-reject-proof": {20, 660}, "debate": {30, 1700}, "agent-check": {20, 1000}}
	for k, v := range want {
		if pc.Components[k] != v {
			t.Errorf("%s: %+v; want %+v", k, pc.Components[k], v)
		}
	}
	if _, err := ParsePluginDetails("nothing"); err == nil {
		t.Error("an output without figures parsed")
	}
}
