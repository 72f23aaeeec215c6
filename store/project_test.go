package store_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/proofloop/proofloop/store"
)

// relativeRoot makes a project folder the working directory and a store in
// its folder contents, opened as the relative root "contents" (the CLI's
// default), with a symlink link -> contents beside it.
func relativeRoot(t *testing.T) (*store.Store, string) {
	t.Helper()
	project, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(project)
	if _, err := store.Init("contents"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("contents", "link"); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open("contents")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, project
}

// TestProjectPathRelativeRoot: with a relative contents root, a path inside
// it is refused (usage), however it is spelt; Rel of the relative root
// against an absolute path once failed and skipped the check, so
// --artifact contents/config.json replaced the config.
func TestProjectPathRelativeRoot(t *testing.T) {
	s, project := relativeRoot(t)
	for _, p := range []string{
		"contents/config.json",
		"contents/events.jsonl",
		"./contents/../contents/new.md",
		"link/config.json",
		filepath.Join(project, "contents", "config.json"),
	} {
		got, err := s.ProjectPath(p, project, "--artifact")
		if store.CodeOf(err) != store.CodeUsage {
			t.Errorf("ProjectPath(%q) = %q, %v; want a usage error", p, got, err)
		}
	}
	for p, want := range map[string]string{"review.md": "review.md", "reviews/lock.md": "reviews/lock.md", filepath.Join(project, "r.md"): "r.md"} {
		if got, err := s.ProjectPath(p, project, "--artifact"); err != nil || got != want {
			t.Errorf("ProjectPath(%q) = %q, %v; want %q", p, got, err, want)
		}
	}
}

// TestInsideRelativeRoot: report -o and export --to judge a target against
// a relative root as against its absolute form, symlinks followed.
func TestInsideRelativeRoot(t *testing.T) {
	_, project := relativeRoot(t)
	for target, want := range map[string]bool{
		"contents/events.jsonl":            true,
		"contents":                         true,
		"contents/new/dir":                 true,
		"link/config.json":                 true,
		filepath.Join(project, "contents"): true,
		"report.html":                      false,
		"contents2/x":                      false,
		"../elsewhere":                     false,
	} {
		if got, err := store.Inside("contents", target); err != nil || got != want {
			t.Errorf("Inside(%q, %q) = %v, %v; want %v", "contents", target, got, err, want)
		}
	}
}
