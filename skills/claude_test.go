package skills

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
)

func generated(t *testing.T) map[string]string {
	t.Helper()
	files, err := ClaudeFiles()
	if err != nil {
		t.Fatalf("ClaudeFiles: %v", err)
	}
	out := map[string]string{}
	for _, f := range files {
		if _, dup := out[f.Path]; dup {
			t.Errorf("ClaudeFiles generates %s twice", f.Path)
		}
		out[f.Path] = string(f.Data)
	}
	return out
}

func TestClaudeFilesPaths(t *testing.T) {
	files := generated(t)
	for _, sk := range Registry {
		if _, ok := files[".claude/skills/"+sk.Name+"/SKILL.md"]; !ok {
			t.Errorf("no SKILL.md for %s", sk.Name)
		}
	}
	for _, r := range []string{"solve", "prove", "check", "fix"} {
		if _, ok := files[".claude/agents/agent-"+r+".md"]; !ok {
			t.Errorf("no agent file for %s", r)
		}
	}
	if want := len(Registry) + 4; len(files) != want {
		t.Errorf("ClaudeFiles made %d files; want %d", len(files), want)
	}
}

func TestClaudeFilesDeterministic(t *testing.T) {
	a, b := generated(t), generated(t)
	for p := range a {
		if a[p] != b[p] {
			t.Errorf("%s differs between two runs of the generator", p)
		}
	}
}

// TestClaudeSkillFileContents: each SKILL.md states what the issue asks
// for, taken from the registry and the table.
func TestClaudeSkillFileContents(t *testing.T) {
	files := generated(t)
	for _, sk := range Registry {
		doc := files[".claude/skills/"+sk.Name+"/SKILL.md"]
		r := sk.Rule()
		must := []string{
			"name: " + sk.Name + "\n",
			"# " + sk.Name + "\n",
			sk.Purpose, sk.When, sk.WhenNot, sk.Output,
			"## When to use it", "## When not to use it", "## Statuses", "## Parameters", "## Example", "## Output", "## Refusals",
			"proofloop " + sk.Name + " " + sk.Example + "\n",
			"proofloop " + sk.Name + " --input - <<'EOF'\n",
		}
		for _, ro := range r.Roles {
			must = append(must, "`agent-"+string(ro)+"`")
		}
		for _, f := range r.From {
			for _, s := range f.Statuses {
				must = append(must, "`"+string(s)+"`")
			}
			if f.Source != "" {
				must = append(must, "`--source "+string(f.Source)+"`")
			}
		}
		for _, g := range r.Guards {
			must = append(must, "`"+g.Name+"`: "+g.Text)
		}
		for _, p := range sk.Params {
			must = append(must, "`--"+FlagName(p.Name)+"` | `"+p.Name+"`")
			for _, v := range p.Enum {
				must = append(must, "- `"+v+"`: "+ValueMeanings[p.Name][v])
			}
		}
		for _, rf := range append(sk.Refusals, CommonRefusals...) {
			must = append(must, "`"+string(rf.Code)+"`", cell(rf.Do))
		}
		in, _ := ExampleInput(sk)
		must = append(must, in)
		var out bytes.Buffer
		json.Compact(&out, []byte(sk.ExampleOutput))
		for _, s := range must {
			if !strings.Contains(doc, s) {
				t.Errorf("%s/SKILL.md lacks %q", sk.Name, s)
			}
		}
		if !strings.Contains(doc, "```json\n") {
			t.Errorf("%s/SKILL.md shows no JSON output", sk.Name)
		}
	}
}

// TestClaudeAgentFileContents: each agent file is a system prompt for its
// role that names its skills and not the others', and says how to find
// work, read, and end the turn.
func TestClaudeAgentFileContents(t *testing.T) {
	files := generated(t)
	for _, r := range Roles() {
		doc := files[".claude/agents/agent-"+string(r)+".md"]
		must := []string{
			"name: agent-" + string(r) + "\n", "tools: Bash, Read\n",
			"proofloop next --role " + string(r) + " --claim --holder NAME --json",
			"PROOFLOOP_LEASE", "proofloop show ID --sentences", "proofloop prime --role " + string(r),
			"proofloop release ID --lease TOKEN", "## Ending your turn", `"item":null`,
		}
		mine := map[string]bool{}
		for _, sk := range ForRole(r) {
			mine[sk.Name] = true
			must = append(must, "| `"+sk.Name+"` |")
		}
		for _, s := range must {
			if !strings.Contains(doc, s) {
				t.Errorf("agent-%s.md lacks %q", r, s)
			}
		}
		for _, sk := range Registry {
			if !mine[sk.Name] && strings.Contains(doc, "| `"+sk.Name+"` |") {
				t.Errorf("agent-%s.md lists %s, a skill of another role", r, sk.Name)
			}
		}
	}
	check := files[".claude/agents/agent-check.md"]
	for _, s := range []string{"sentence by sentence", "Stop at the first invalid step", "Quote the exact sentence text", "Classify the error type"} {
		if !strings.Contains(check, s) {
			t.Errorf("agent-check.md lacks the check discipline %q", s)
		}
	}
	for _, v := range model.ErrorTypes {
		if !strings.Contains(check, "`"+v+"`: ") {
			t.Errorf("agent-check.md does not explain error type %s", v)
		}
	}
	fix := files[".claude/agents/agent-fix.md"]
	for _, s := range []string{"Small gap", "patch it", "Large gap", "create a sub-statement"} {
		if !strings.Contains(fix, s) {
			t.Errorf("agent-fix.md lacks the fix discipline %q", s)
		}
	}
}

func TestClaudeCheckFrontMatter(t *testing.T) {
	long := strings.Repeat("x", MaxDescription)
	for _, tc := range []struct {
		name, desc string
		ok         bool
	}{
		{"check-reject-proof", "d", true},
		{"a", long, true},
		{strings.Repeat("a", 64), "d", true},
		{strings.Repeat("a", 65), "d", false},
		{"", "d", false},
		{"-a", "d", false},
		{"a-", "d", false},
		{"A", "d", false},
		{"a_b", "d", false},
		{"a", "", false},
		{"a", long + "x", false},
	} {
		if err := CheckFrontMatter(tc.name, tc.desc); (err == nil) != tc.ok {
			t.Errorf("CheckFrontMatter(%q, %d chars) = %v; want ok %v", tc.name, len(tc.desc), err, tc.ok)
		}
	}
}

// TestClaudeRefusesLongDescription: the generator fails rather than write a
// description the Agent Skills rules reject.
func TestClaudeRefusesLongDescription(t *testing.T) {
	sk := *probSetupSubgoal
	sk.When = strings.Repeat("long ", 250)
	e, err := CatalogEntry(&sk)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := skillFile(&sk, e); err == nil || !strings.Contains(err.Error(), "description") {
		t.Errorf("skillFile with a %d-character description: %v; want a description error", len(sk.Purpose)+len(sk.When), err)
	}
}

func TestClaudeYAMLString(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:         `"plain"`,
		`a: b # c`:      `"a: b # c"`,
		`say "hi" \ ok`: `"say \"hi\" \\ ok"`,
		"<&>":           `"<&>"`,
	} {
		if got := yamlString(in); got != want {
			t.Errorf("yamlString(%q) = %s; want %s", in, got, want)
		}
	}
}

func TestClaudeLeavesMarksStatuses(t *testing.T) {
	got := leaves("awaiting_verification when no issue is left open, else has_gap", model.KindStatement)
	want := "`awaiting_verification` when no issue is left open, else `has_gap`"
	if got != want {
		t.Errorf("leaves = %q; want %q", got, want)
	}
	if got := leaves("problem solved", model.KindProblem); got != "problem `solved`" {
		t.Errorf("leaves(problem solved) = %q", got)
	}
}

func TestClaudeWrite(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(keep), 0o755)
	os.WriteFile(keep, []byte("{}"), 0o644)
	paths, err := WriteClaude(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := generated(t)
	if len(paths) != len(files) {
		t.Errorf("WriteClaude wrote %d files; want %d", len(paths), len(files))
	}
	for p, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil || string(got) != want {
			t.Errorf("%s on disk differs from ClaudeFiles (%v)", p, err)
		}
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "{}" {
		t.Errorf("WriteClaude touched .claude/settings.json: %q, %v", b, err)
	}
}
