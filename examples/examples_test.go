package examples

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
	"github.com/proofloop/proofloop/store/doctor"
)

// TestWriteProject: the copy is a consistent contents root holding the
// example, and it is written only into a new or empty folder.
func TestWriteProject(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	files, err := WriteProject(dir)
	if err != nil {
		t.Fatalf("WriteProject(new folder): %v", err)
	}
	if files[len(files)-1] != store.ConfigFile {
		t.Errorf("WriteProject wrote %v; want config.json last", files)
	}
	for _, want := range []string{"events.jsonl", "problem/prob_odd_squares.json"} {
		if !slices.Contains(files, want) {
			t.Errorf("WriteProject wrote %v; want %s among them", files, want)
		}
	}
	s, err := store.Open(dir)
	if err != nil {
		t.Fatalf("the copy is not a contents root: %v", err)
	}
	defer s.Close()
	// 1 new-problem, one config-set event per agent, require_lease's and
	// formal.policy's: doctor checks config.json against the log.
	b, err := fs.ReadFile(Project(), store.ConfigFile)
	var cfg store.Config
	if err == nil {
		cfg, err = store.ParseConfig(b)
	}
	if err != nil || cfg.Agents.Len() == 0 {
		t.Fatalf("the example's config.json: %v, %d agents", err, cfg.Agents.Len())
	}
	r, err := doctor.Full(s)
	// The agora positions moved below agents.agora: the two events that
	// set their old plain keys and the two that removed them are in the log
	// too.
	if want := 3 + cfg.Agents.Len() + 4; err != nil || len(r.Findings) > 0 || r.Problems != 1 || r.Events != want {
		t.Errorf("doctor on the copy: %+v, %v; want 1 problem, %d events, no findings", r, err, want)
	}
	for _, d := range []string{"problem", "statement", "leases"} {
		if fi, err := os.Stat(filepath.Join(dir, d)); err != nil || !fi.IsDir() {
			t.Errorf("the copy has no folder %s/ (%v)", d, err)
		}
	}

	// An empty folder is fine too.
	empty := t.TempDir()
	if _, err := WriteProject(empty); err != nil {
		t.Errorf("WriteProject(empty folder): %v", err)
	}

	// A folder holding only a README.md (a checkout's contents/) is fine,
	// and its README stays.
	readme := t.TempDir()
	os.WriteFile(filepath.Join(readme, "README.md"), []byte("mine"), 0o644)
	if _, err := WriteProject(readme); err != nil {
		t.Errorf("WriteProject(folder with a README.md): %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(readme, "README.md")); err != nil || string(b) != "mine" {
		t.Errorf("README.md after WriteProject = %q, %v; want it kept", b, err)
	}

	// A folder with anything else in it is refused, and left as it was.
	busy := t.TempDir()
	os.WriteFile(filepath.Join(busy, "notes.txt"), []byte("mine"), 0o644)
	_, err = WriteProject(busy)
	if store.CodeOf(err) != store.CodeGuardFailed {
		t.Errorf("WriteProject(non-empty folder) = %v; want guard_failed", err)
	}
	entries, _ := os.ReadDir(busy)
	if len(entries) != 1 {
		t.Errorf("the refused folder now holds %d entries; want only notes.txt", len(entries))
	}
}

// TestCheckoutIgnoresDerivedFiles checks that the checkout's contents/, the
// default root, tracks only its README: an example written there (`init
// --example contents`), the index any command builds, and the leases and run
// logs of a run leave nothing for git to show, so the example is kept once,
// in the binary.
func TestCheckoutIgnoresDerivedFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skipf("git is not installed: %v", err)
	}
	if err := exec.Command("git", "-C", "..", "rev-parse", "--git-dir").Run(); err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	for _, p := range []string{"contents/config.json", "contents/events.jsonl", "contents/problem/prob_odd_squares.json",
		"contents/.gitignore", "contents/index.db", "contents/leases/stmt_x.json", "contents/runs/r1/0001-prove-x.log", "contents/.journal"} {
		if err := exec.Command("git", "-C", "..", "check-ignore", "-q", p).Run(); err != nil {
			t.Errorf("git check-ignore %s: %v; want it ignored", p, err)
		}
	}
	if err := exec.Command("git", "-C", "..", "check-ignore", "-q", "contents/README.md").Run(); err == nil {
		t.Errorf("git check-ignore contents/README.md: ignored; want it tracked")
	}
}

// TestEveryDebateRoleHasAnExampleAgent: the example's config.json names an
// agent for every fixed debate role (agora's positions are named by the
// demo's start; its researcher writes the research stage of --research N),
// and each agent it names as `proofloop example-agent NAME` is a script
// that ships, so `proofloop run` on the example never stalls on a debate
// of a protocol it has no agent for. The mediator is left out: the
// example's agora agents never counter, so no debate of theirs asks for one.
func TestEveryDebateRoleHasAnExampleAgent(t *testing.T) {
	b, err := fs.ReadFile(Project(), store.ConfigFile)
	var cfg store.Config
	if err == nil {
		cfg, err = store.ParseConfig(b)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range model.Protocols {
		for _, role := range p.OwnRoles() {
			if a, _ := cfg.Agents.For(p.Name, role); role != model.RoleMediator && a.Command() == "" {
				t.Errorf("the example's config.json names no agent for %s of %s", role, p.Name)
			}
		}
	}
	for _, key := range cfg.Agents.Keys() {
		protocol, role, nested := strings.Cut(key, ".")
		if !nested {
			protocol, role = "", key
		}
		a, _ := cfg.Agents.For(protocol, role)
		name, ok := strings.CutPrefix(a.Command(), "proofloop example-agent ")
		if !ok || !slices.Contains(AgentNames(), name) {
			t.Errorf("agents.%s = %q; want `proofloop example-agent NAME` with NAME one of %v", key, a.Command(), AgentNames())
		}
	}
}
