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
