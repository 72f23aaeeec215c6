package skills

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	if _, ok := files[AgentsMDPath]; !ok {
		t.Errorf("no %s", AgentsMDPath)
	}
	for _, d := range AllDebateDocs() {
		if _, ok := files[d.Path]; !ok {
			t.Errorf("no %s for protocol %s", d.Path, d.Protocol.Name)
		}
	}
	if want := len(Registry) + len(Roles()) + len(model.Protocols) + len(DebateRoleDocs) + 1; len(files) != want {
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

// TestClaudeSkillFileContents: each SKILL.md states what the skill does,
// when to use it, its statuses, parameters, example and its own refusals,
// taken from the registry and the table, and nothing that prime says once
// (the common refusals, the common flags).
func TestClaudeSkillFileContents(t *testing.T) {
	files := generated(t)
	for _, sk := range Registry {
		doc := files[".claude/skills/"+sk.Name+"/SKILL.md"]
		r := sk.Rule()
		must := []string{
			"name: " + sk.Name + "\n",
			"# " + sk.Name + "\n",
			sk.Purpose, sk.When, sk.WhenNot, sk.Output,
			"## Parameters", "## Example",
			"proofloop " + sk.Name + " " + sk.Example + " --json\n",
			"`proofloop prime`",
		}
		for _, ro := range r.Roles {
			must = append(must, string(ro))
		}
		for _, f := range r.From {
			for _, st := range f.Statuses {
				must = append(must, "`"+string(st)+"`")
			}
			if f.Source != "" {
				must = append(must, "`--source "+string(f.Source)+"`")
			}
		}
		for _, g := range r.Guards {
			must = append(must, "`guard_failed` `"+g.Name+"`")
		}
		for _, p := range sk.Params {
			must = append(must, "`--"+FlagName(p.Name)+"` (")
			for _, v := range p.Enum {
				if EnumExplainedIn[p.Name] != "" {
					must = append(must, "`"+v+"`", "(`"+EnumExplainedIn[p.Name]+"` explains each)")
				} else if !strings.Contains(p.Help, v+" (") {
					must = append(must, "- `"+v+"`: "+ValueMeanings[p.Name][v])
				}
			}
		}
		for _, rf := range sk.Refusals {
			must = append(must, rf.Do)
		}
		out, err := funcs["compact"].(func(string) (string, error))(sk.ExampleOutput)
		if err != nil {
			t.Fatal(err)
		}
		must = append(must, "```json\n"+out+"\n```")
		for _, s := range must {
			if !strings.Contains(doc, s) {
				t.Errorf("%s/SKILL.md lacks %q", sk.Name, s)
			}
		}
		for _, rf := range CommonRefusals {
			if strings.Contains(doc, rf.Do) {
				t.Errorf("%s/SKILL.md repeats the common refusal %s, which prime says once", sk.Name, rf.Code)
			}
		}
		for _, s := range []string{"proofloop init", "--expect-revision N", "```sh"} {
			if strings.Contains(doc, s) {
				t.Errorf("%s/SKILL.md has %q: its example must not run on the reader's store, and prime says the common flags", sk.Name, s)
			}
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
			"name: agent-" + string(r) + "\n", "tools: " + AgentTools(skillNames(ForRole(r))) + "\n",
			"proofloop next --role " + string(r) + " --claim --holder NAME --json",
			"PROOFLOOP_LEASE", "proofloop show ID --sentences", "proofloop prime --role " + string(r) + " --id $PROOFLOOP_ID",
			"proofloop release ID --lease TOKEN", "## Ending your turn", `"item":null`,
		}
		// The skills are listed once, by name: prime --id gives each
		// allowed now its line.
		_, after, _ := strings.Cut(doc, "## Your skills\n\n")
		list, _, _ := strings.Cut(after, ": subcommands of `proofloop`")
		mine := map[string]bool{}
		for _, sk := range ForRole(r) {
			mine[sk.Name] = true
			if !strings.Contains(list, "`"+sk.Name+"`") {
				t.Errorf("agent-%s.md does not list its skill %s under Your skills (%q)", r, sk.Name, list)
			}
		}
		for _, s := range must {
			if !strings.Contains(doc, s) {
				t.Errorf("agent-%s.md lacks %q", r, s)
			}
		}
		for _, sk := range Registry {
			if !mine[sk.Name] && strings.Contains(list, "`"+sk.Name+"`") {
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
	sk.Purpose = strings.Repeat("long ", 250)
	e, err := CatalogEntry(&sk)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := skillFile(&sk, e); err == nil || !strings.Contains(err.Error(), "description") {
		t.Errorf("skillFile with a %d-character description: %v; want a description error", len(sk.Purpose), err)
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

// TestClaudeWrite: WriteClaude writes every generated file, leaves other
// files under .claude alone, merges into settings.json, and writes over an
// AGENTS.md only when it wrote it.
func TestClaudeWrite(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, ".claude", "commands", "mine.md")
	os.MkdirAll(filepath.Dir(other), 0o755)
	os.WriteFile(other, []byte("mine"), 0o644)
	settings := filepath.Join(dir, ".claude", "settings.json")
	os.WriteFile(settings, []byte(`{"model": "x"}`), 0o644)
	rep, err := WriteClaude(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := generated(t)
	if len(rep.Written) != len(files) || len(rep.Kept) != 0 {
		t.Errorf("WriteClaude wrote %d files and kept %v; want %d and none", len(rep.Written), rep.Kept, len(files))
	}
	for p, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil || string(got) != want {
			t.Errorf("%s on disk differs from ClaudeFiles (%v)", p, err)
		}
	}
	if b, err := os.ReadFile(other); err != nil || string(b) != "mine" {
		t.Errorf("WriteClaude touched .claude/commands/mine.md: %q, %v", b, err)
	}
	b, _ := os.ReadFile(settings)
	if !rep.SettingsChanged || !strings.Contains(string(b), `"model": "x"`) || !strings.Contains(string(b), "Bash(proofloop:*)") {
		t.Errorf("settings.json after WriteClaude (changed %v):\n%s\nwant model kept and proofloop's entries added", rep.SettingsChanged, b)
	}

	// Again: the generated AGENTS.md is written over, settings.json is
	// left as it is.
	rep, err = WriteClaude(dir)
	if err != nil || rep.SettingsChanged || len(rep.Kept) != 0 {
		t.Errorf("WriteClaude again: %+v, %v; want settings unchanged and nothing kept", rep, err)
	}
	if b2, _ := os.ReadFile(settings); string(b2) != string(b) {
		t.Errorf("a second WriteClaude changed settings.json:\n%s", b2)
	}

	// An AGENTS.md someone wrote is kept.
	agents := filepath.Join(dir, AgentsMDPath)
	os.WriteFile(agents, []byte("# our own rules\n"), 0o644)
	rep, err = WriteClaude(dir)
	if err != nil || len(rep.Kept) != 1 || rep.Kept[0] != agents || len(rep.Written) != len(files)-1 {
		t.Errorf("WriteClaude over a hand-written AGENTS.md: %+v, %v; want it kept and the rest written", rep, err)
	}
	if b, _ := os.ReadFile(agents); string(b) != "# our own rules\n" {
		t.Errorf("WriteClaude changed a hand-written AGENTS.md: %q", b)
	}

	// A settings file it cannot merge into: refused before anything is
	// written.
	bad := t.TempDir()
	os.MkdirAll(filepath.Join(bad, ".claude"), 0o755)
	os.WriteFile(filepath.Join(bad, SettingsPath), []byte(`{"permissions": []}`), 0o644)
	if _, err := WriteClaude(bad); err == nil || !strings.Contains(err.Error(), "permissions is an array, not an object") {
		t.Errorf("WriteClaude with permissions: [] = %v; want a refusal naming permissions", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(bad, ".claude")); len(entries) != 1 {
		t.Errorf("the refused WriteClaude left %d entries in .claude; want only settings.json", len(entries))
	}
}

// TestMergeSettings: proofloop's permissions and hook are added once,
// after what is there, and nothing else changes.
func TestMergeSettings(t *testing.T) {
	type settings struct {
		Model       string `json:"model"`
		Permissions struct {
			Allow []string `json:"allow"`
			Deny  []string `json:"deny"`
		} `json:"permissions"`
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct{ Type, Command string }
		} `json:"hooks"`
	}
	parse := func(b []byte) settings {
		var s settings
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("merged settings are not JSON: %v\n%s", err, b)
		}
		return s
	}
	// None yet.
	out, changed, err := MergeSettings(nil)
	if err != nil || !changed {
		t.Fatalf("MergeSettings(nil) = %v, %v", changed, err)
	}
	s := parse(out)
	if !slices.Equal(s.Permissions.Allow, SettingsAllow) || len(s.Hooks["SessionStart"]) != 1 ||
		s.Hooks["SessionStart"][0].Hooks[0].Command != PrimeHook || s.Hooks["SessionStart"][0].Hooks[0].Type != "command" {
		t.Errorf("MergeSettings(nil) =\n%s\nwant the two rules and the prime hook", out)
	}

	// A file with its own keys, permissions and hooks, one of our rules
	// already among them.
	old := []byte(`{"model": "opus", "permissions": {"allow": ["Read", "Bash(proofloop:*)"], "deny": ["Bash(rm:*)"]},
 "hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "echo bye"}]}]}}`)
	out, changed, err = MergeSettings(old)
	if err != nil || !changed {
		t.Fatalf("MergeSettings(existing) = %v, %v", changed, err)
	}
	s = parse(out)
	if want := []string{"Read", "Bash(proofloop:*)", "Bash(bin/proofloop:*)", "mcp__proofloop"}; s.Model != "opus" || !slices.Equal(s.Permissions.Allow, want) ||
		!slices.Equal(s.Permissions.Deny, []string{"Bash(rm:*)"}) {
		t.Errorf("merged model %q allow %v deny %v; want opus, %v, [Bash(rm:*)]", s.Model, s.Permissions.Allow, s.Permissions.Deny, want)
	}
	ss := s.Hooks["SessionStart"]
	if len(ss) != 2 || ss[0].Matcher != "startup" || ss[0].Hooks[0].Command != "echo hi" || ss[1].Hooks[0].Command != PrimeHook {
		t.Errorf("merged SessionStart = %+v; want the old group, then the prime hook", ss)
	}
	if st := s.Hooks["Stop"]; len(st) != 1 || st[0].Hooks[0].Command != "echo bye" {
		t.Errorf("merged Stop hooks = %+v; want them kept", st)
	}

	// Again: nothing to add, the content is returned as it was.
	again, changed, err := MergeSettings(out)
	if err != nil || changed || string(again) != string(out) {
		t.Errorf("MergeSettings(merged) changed %v, %v:\n%s", changed, err, again)
	}

	for _, bad := range []string{`[]`, `not json`, `{"permissions": "all"}`, `{"permissions": {"allow": "Bash"}}`,
		`{"hooks": []}`, `{"hooks": {"SessionStart": {}}}`} {
		if out, _, err := MergeSettings([]byte(bad)); err == nil {
			t.Errorf("MergeSettings(%s) = %s; want a refusal", bad, out)
		}
	}
}

// TestAgentsMDSkillSentences: AGENTS.md's role table lists each role's
// skills from the registry, with --source exactly where the transition
// table gives the skill a source for that role.
func TestAgentsMDSkillSentences(t *testing.T) {
	doc := generated(t)[AgentsMDPath]
	if !strings.HasPrefix(doc, AgentsMDMarker+"\n") {
		t.Errorf("AGENTS.md does not start with the generated marker")
	}
	if !strings.Contains(doc, "(or `bin/proofloop` in a\nproofloop checkout") {
		t.Errorf("AGENTS.md does not say once that bin/proofloop works in a checkout")
	}
	for _, r := range Roles() {
		var row string
		for _, l := range strings.Split(doc, "\n") {
			if strings.HasPrefix(l, "| "+string(r)+" | `agent-"+string(r)+"` |") {
				row = l
			}
		}
		if row == "" {
			t.Errorf("AGENTS.md has no row for role %s", r)
			continue
		}
		for _, sk := range ForRole(r) {
			withSource := false
			for _, f := range sk.Rule().From {
				withSource = withSource || string(f.Source) == string(r)
			}
			want := "`" + sk.Name + "`"
			if withSource {
				want += " with `--source " + string(r) + "`"
			} else if strings.Contains(row, want+" with `--source") {
				t.Errorf("AGENTS.md's %s row gives %s a --source it does not take: %s", r, sk.Name, row)
			}
			if !strings.Contains(row, want) {
				t.Errorf("AGENTS.md's %s row lacks %s: %s", r, want, row)
			}
		}
	}
	if strings.Contains(doc, "`state-setup-substatement` with `--source") || strings.Contains(doc, "state-setup-substatement`, `state-mark-false`, `state-propose-modification` with `--source fix`") {
		t.Errorf("AGENTS.md gives state-setup-substatement a --source, which it does not take")
	}
	for _, c := range ExitCodes {
		if !strings.Contains(doc, fmt.Sprintf("| %d | `%s` |", c.Exit, c.Code)) {
			t.Errorf("AGENTS.md's exit table lacks %s (exit %d)", c.Code, c.Exit)
		}
	}
}

func skillNames(sks []*Skill) []string {
	var out []string
	for _, sk := range sks {
		out = append(out, sk.Name)
	}
	return out
}
