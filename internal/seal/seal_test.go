package seal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuard refuses a canary set (by its path, through a symlink, or by
// a hard link to it) and anything in the seal folder, and lets any other
// file through.
func TestGuard(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvDir, filepath.Join(dir, "seal"))
	set := filepath.Join(dir, "sets", "c.jsonl")
	for _, p := range []string{set, filepath.Join(dir, "seal", "k", "t.json"), filepath.Join(dir, "other.txt")} {
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte("x"), 0o600)
	}
	os.Symlink(set, filepath.Join(dir, "link"))
	os.Link(set, filepath.Join(dir, "hard"))
	for _, c := range []struct {
		path    string
		refused bool
	}{
		{set, true},
		{filepath.Join(dir, "sets", ".", "c.jsonl"), true},
		{filepath.Join(dir, "link"), true},
		{filepath.Join(dir, "hard"), true},
		{filepath.Join(dir, "seal", "k", "t.json"), true},
		{filepath.Join(dir, "seal", "k", "missing.json"), true},
		{filepath.Join(dir, "other.txt"), false},
		{filepath.Join(dir, "sealed.txt"), false}, // a sibling named like the folder is not in it
	} {
		err := Guard(c.path, []string{set})
		if (err != nil) != c.refused {
			t.Errorf("Guard(%s) = %v; refused want %v", c.path, err, c.refused)
		}
		if err != nil && !strings.Contains(err.Error(), "no command an agent may run reads") {
			t.Errorf("Guard(%s): %v", c.path, err)
		}
	}
}

// TestDir: $PROOFLOOP_SEAL_DIR, else the XDG state folder, else ~/.local/state.
func TestDir(t *testing.T) {
	t.Setenv(EnvDir, "")
	t.Setenv("XDG_STATE_HOME", "/state")
	if d, _ := Dir(); d != "/state/proofloop/seal" {
		t.Errorf("Dir() = %s with XDG_STATE_HOME", d)
	}
	t.Setenv("XDG_STATE_HOME", "relative") // not absolute: ignored, as the specification says
	t.Setenv("HOME", "/home/ada")
	if d, _ := Dir(); d != "/home/ada/.local/state/proofloop/seal" {
		t.Errorf("Dir() = %s with HOME", d)
	}
	t.Setenv(EnvDir, "/x/seal")
	if d, _ := Dir(); d != "/x/seal" {
		t.Errorf("Dir() = %s with %s", d, EnvDir)
	}
	if !Within("/x/seal/k/t.json", "/x/seal") || Within("/x/sealed", "/x/seal") || !Within("/x/seal", "/x/seal") {
		t.Error("Within")
	}
}
