package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

// The committed .claude/ files and AGENTS.md are generated from the skill
// registry. These tests check that they are up to date, that their front
// matter follows the Agent Skills rules, and that every example in every
// SKILL.md runs, pasted in order into an empty folder.

const (
	repoTop    = "../.."
	repoClaude = repoTop + "/.claude"
)

// generatedDirs are the folders of .claude/ the generator owns.
var generatedDirs = []string{"skills", "agents"}

// generatedFiles are the files outside those folders that it writes.
var generatedFiles = []string{"AGENTS.md", ".claude/settings.json"}

// TestClaudeFilesInSync generates the files through the real command into
// an empty directory and compares them, byte for byte, with the committed
// ones: the skills and agents, AGENTS.md and .claude/settings.json. Run
// `go run ./cmd/proofloop gen-claude` to refresh them.
func TestClaudeFilesInSync(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, "", "gen-claude", "--dir", dir, "--json")
	if code != 0 {
		t.Fatalf("gen-claude exit %d; stderr: %s", code, errOut)
	}
	var res struct {
		OK       bool     `json:"ok"`
		Files    []string `json:"files"`
		Kept     []string `json:"kept"`
		Settings struct {
			Path    string `json:"path"`
			Changed bool   `json:"changed"`
		} `json:"settings"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || !res.OK {
		t.Fatalf("gen-claude --json printed %q (%v); want {\"ok\":true,...}", out, err)
	}
	want := len(skills.Registry) + len(skills.Roles()) + len(skills.AllDebateDocs()) + 1
	if len(res.Files) != want {
		t.Errorf("gen-claude wrote %d files; want %d (one per skill, one per role, one per debate protocol, AGENTS.md)", len(res.Files), want)
	}
	if res.Kept == nil || len(res.Kept) != 0 || !res.Settings.Changed || res.Settings.Path != filepath.ToSlash(filepath.Join(dir, ".claude/settings.json")) {
		t.Errorf("gen-claude into an empty folder: kept %v, settings %+v; want kept [] and settings.json written", res.Kept, res.Settings)
	}
	gen := readTree(t, filepath.Join(dir, ".claude"))
	committed := readTree(t, repoClaude)
	for p, data := range gen {
		got, ok := committed[p]
		switch {
		case !ok:
			t.Errorf(".claude/%s is not committed; run `go run ./cmd/proofloop gen-claude`", p)
		case !bytes.Equal(got, data):
			t.Errorf(".claude/%s differs from what the generator writes now (%s); run `go run ./cmd/proofloop gen-claude`", p, firstDiff(got, data))
		}
	}
	for p := range committed {
		if _, ok := gen[p]; !ok {
			t.Errorf(".claude/%s is committed but not generated from the registry; remove it", p)
		}
	}
	for _, p := range generatedFiles {
		got, err1 := os.ReadFile(filepath.Join(repoTop, p))
		data, err2 := os.ReadFile(filepath.Join(dir, p))
		if err1 != nil || err2 != nil {
			t.Errorf("%s: committed %v, generated %v", p, err1, err2)
		} else if !bytes.Equal(got, data) {
			t.Errorf("%s differs from what the generator writes now (%s); run `go run ./cmd/proofloop gen-claude`", p, firstDiff(got, data))
		}
	}
}

// readTree reads every file under root's generated folders, by
// slash-separated path relative to root.
func readTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, d := range generatedDirs {
		err := filepath.WalkDir(filepath.Join(root, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			out[filepath.ToSlash(rel)] = data
			return nil
		})
		if err != nil {
			t.Fatalf("read %s: %v", root, err)
		}
	}
	return out
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: committed %q, generated %q", i+1, x, y)
		}
	}
	return "same lines"
}

// frontMatter parses the YAML front matter of a Markdown file: the
// "key: value" lines between a first line "---" and the next "---". A
// value in double quotes is a JSON string (a subset of YAML's
// double-quoted scalars); anything else is taken as it stands.
func frontMatter(data []byte) (map[string]string, string, error) {
	text := string(data)
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return nil, "", fmt.Errorf("does not start with a --- line")
	}
	head, body, ok := strings.Cut(rest, "\n---\n")
	if !ok {
		return nil, "", fmt.Errorf("front matter has no closing --- line")
	}
	fm := map[string]string{}
	for _, line := range strings.Split(head, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil, "", fmt.Errorf("front matter line %q is not key: value", line)
		}
		if _, dup := fm[k]; dup {
			return nil, "", fmt.Errorf("front matter key %q appears twice", k)
		}
		v = strings.TrimSpace(v)
		if strings.HasPrefix(v, `"`) {
			if err := json.Unmarshal([]byte(v), &v); err != nil {
				return nil, "", fmt.Errorf("front matter %s: bad quoted string %s: %v", k, v, err)
			}
		} else if strings.ContainsAny(v, "#\"'{}[]&*!|>%@`") || strings.Contains(v, ": ") {
			return nil, "", fmt.Errorf("front matter %s: plain value %q has YAML special characters; quote it", k, v)
		}
		fm[k] = v
	}
	return fm, body, nil
}

func TestClaudeFrontMatter(t *testing.T) {
	skillFiles, _ := filepath.Glob(filepath.Join(repoClaude, "skills", "*", "SKILL.md"))
	agentFiles, _ := filepath.Glob(filepath.Join(repoClaude, "agents", "*.md"))
	debateSkills, debateAgents := map[string]bool{}, map[string]bool{}
	for _, d := range skills.AllDebateDocs() {
		if d.Agent {
			debateAgents[d.Name] = true
		} else {
			debateSkills[d.Name] = true
		}
	}
	if len(skillFiles) != len(skills.Registry)+len(debateSkills) || len(agentFiles) != len(skills.Roles())+len(debateAgents) {
		t.Fatalf("found %d SKILL.md and %d agent files; want %d and %d", len(skillFiles), len(agentFiles),
			len(skills.Registry)+len(debateSkills), len(skills.Roles())+len(debateAgents))
	}
	for _, f := range append(skillFiles, agentFiles...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fm, body, err := frontMatter(data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		folder := filepath.Base(filepath.Dir(f))
		keys := []string{"description", "name"}
		if filepath.Base(filepath.Dir(f)) == "agents" {
			folder = strings.TrimSuffix(filepath.Base(f), ".md")
			keys = []string{"description", "name", "tools"}
			// A debate agent has no skills of the registry: Bash, Read
			// and the loop commands' tools.
			var mine []string
			for _, sk := range skills.ForRole(model.Role(strings.TrimPrefix(folder, "agent-"))) {
				mine = append(mine, sk.Name)
			}
			if debateAgents[folder] && len(mine) != 0 {
				t.Errorf("%s: debate agent %s has registry skills %v", f, folder, mine)
			}
			if want := skills.AgentTools(mine); fm["tools"] != want {
				t.Errorf("%s: tools = %q; want %q (Bash, Read, the loop commands' and the role's skills' MCP tools)", f, fm["tools"], want)
			}
		}
		var got []string
		for k := range fm {
			got = append(got, k)
		}
		slices.Sort(got)
		if !slices.Equal(got, keys) {
			t.Errorf("%s: front matter keys %v; want %v", f, got, keys)
		}
		if err := agentSkillsRules(fm["name"], fm["description"]); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if fm["name"] != folder {
			t.Errorf("%s: name %q differs from its folder %q", f, fm["name"], folder)
		}
		if strings.TrimSpace(body) == "" {
			t.Errorf("%s: empty body", f)
		}
	}
}

// agentSkillsRules checks name and description independently of the
// generator's own check, so that a bug there cannot hide here.
func agentSkillsRules(name, desc string) error {
	if n := len(name); n < 1 || n > 64 {
		return fmt.Errorf("name %q has %d characters; want 1-64", name, n)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return fmt.Errorf("name %q has %q; want only a-z, 0-9 and -", name, r)
		}
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		return fmt.Errorf("name %q starts or ends with a hyphen", name)
	}
	if n := len([]rune(desc)); n < 1 || n > 1024 {
		return fmt.Errorf("description has %d characters; want 1-1024", n)
	}
	return nil
}

func TestClaudeFrontMatterParser(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want map[string]string
		ok   bool
	}{
		{"---\nname: a-b\ndescription: \"x: y # z\"\n---\nbody\n", map[string]string{"name": "a-b", "description": "x: y # z"}, true},
		{"---\nname: a\n---\n", map[string]string{"name": "a"}, true},
		{"name: a\n---\n", nil, false},
		{"---\nname: a\n", nil, false},
		{"---\ndescription: x: y\n---\n", nil, false},
		{"---\ndescription: \"unclosed\n---\n", nil, false},
		{"---\nname: a\nname: b\n---\n", nil, false},
	} {
		got, _, err := frontMatter([]byte(tc.in))
		if (err == nil) != tc.ok || (tc.ok && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("frontMatter(%q) = %v, %v; want %v (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// skillDoc is what a SKILL.md says about its example.
type skillDoc struct {
	Name    string
	Command string // "proofloop <skill> ... --json", shown, not run by the reader
	Output  string // the --json output of the example
}

// parseSkillDoc reads the example of a SKILL.md: the one console block of
// "## Example" (shown, never to be run on the reader's store) and its json
// output block.
func parseSkillDoc(name string, data []byte) (*skillDoc, error) {
	d := &skillDoc{Name: name}
	ex := section(string(data), "## Example (not to run on your store)")
	if sh := fenced(ex, "sh"); len(sh) != 0 {
		return nil, fmt.Errorf("## Example has an sh block; a SKILL.md example is shown, not run on the reader's store")
	}
	blocks := fenced(ex, "console")
	if len(blocks) != 1 {
		return nil, fmt.Errorf("## Example has %d console blocks; want 1", len(blocks))
	}
	d.Command = strings.TrimSpace(blocks[0])
	if strings.Contains(d.Command, "\n") {
		return nil, fmt.Errorf("the example command spans lines: %q", d.Command)
	}
	outs := fenced(ex, "json")
	if len(outs) != 1 {
		return nil, fmt.Errorf("## Example has %d json blocks; want 1", len(outs))
	}
	d.Output = outs[0]
	return d, nil
}

// section returns the text from a heading to the next heading of the same
// level.
func section(text, heading string) string {
	_, after, ok := strings.Cut(text, "\n"+heading+"\n")
	if !ok {
		return ""
	}
	if i := strings.Index(after, "\n## "); i >= 0 {
		return after[:i]
	}
	return after
}

// fenced returns the bodies of the ```lang blocks of text.
func fenced(text, lang string) []string {
	var out []string
	for {
		_, after, ok := strings.Cut(text, "```"+lang+"\n")
		if !ok {
			return out
		}
		body, rest, ok := strings.Cut(after, "\n```")
		if !ok {
			return out
		}
		out = append(out, body)
		text = rest
	}
}

// shellWords splits a command line with sh itself, the way an agent's
// shell will, and checks that skills.SplitArgs agrees.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	got, err := skills.SplitArgs(line)
	if err != nil {
		t.Fatalf("SplitArgs(%q): %v", line, err)
	}
	if _, err := exec.LookPath("sh"); err != nil {
		return got
	}
	out, err := exec.Command("sh", "-c", "printf '%s\\0' "+line).Output()
	if err != nil {
		t.Fatalf("sh could not split %q: %v", line, err)
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if !slices.Equal(got, want) {
		t.Fatalf("SplitArgs(%q) = %q; sh splits it as %q", line, got, want)
	}
	return got
}

// runCLI runs the real CLI in-process and returns its exit code, stdout and
// stderr. It sets --lease and --actor explicitly so the environment of the
// test run does not leak in.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// cli is a contents root that starts as an empty folder's ./contents.
type cli struct {
	t    *testing.T
	root string
}

func emptyFolder(t *testing.T) *cli {
	return &cli{t, filepath.Join(t.TempDir(), "contents")}
}

// do runs one command as actor on the root. The command's own --actor, if
// it has one, comes later on the line and wins.
func (c *cli) do(stdin, actor string, args ...string) (int, string, string) {
	c.t.Helper()
	full := append([]string{"--root", c.root, "--lease=", "--actor", actor}, args...)
	return runCLI(c.t, stdin, full...)
}

func (c *cli) must(stdin, actor string, args ...string) string {
	c.t.Helper()
	code, out, errOut := c.do(stdin, actor, args...)
	if code != 0 {
		c.t.Fatalf("proofloop %s: exit %d; stdout %s stderr %s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// TestClaudeSkillExamples runs the example of every SKILL.md on a scratch
// root set up by the registry's example chain (skills.ExampleSetup, each
// earlier skill's example as its own SKILL.md shows it), in its flag form
// as printed and in its --input form (skills.ExampleInput), and compares
// the --json output with the one the file shows.
func TestClaudeSkillExamples(t *testing.T) {
	docs := map[string]*skillDoc{}
	for _, sk := range skills.Registry {
		data, err := os.ReadFile(filepath.Join(repoClaude, "skills", sk.Name, "SKILL.md"))
		if err != nil {
			t.Fatal(err)
		}
		d, err := parseSkillDoc(sk.Name, data)
		if err != nil {
			t.Fatalf("%s/SKILL.md: %v", sk.Name, err)
		}
		docs[sk.Name] = d
	}
	for _, sk := range skills.Registry {
		t.Run(sk.Name, func(t *testing.T) {
			t.Parallel()
			if sk.Prepare != nil {
				needCoq(t) // check-formal's example runs the kernel
			}
			d := docs[sk.Name]
			words := shellWords(t, d.Command)
			if len(words) < 3 || words[0] != "proofloop" || words[1] != sk.Name || words[len(words)-1] != "--json" {
				t.Fatalf("example %q is not `proofloop %s ... --json`", d.Command, sk.Name)
			}
			args := words[1 : len(words)-1]
			setupLines, err := skills.ExampleSetup(sk)
			if err != nil {
				t.Fatal(err)
			}
			// Each step of the chain is an earlier skill's example, as its
			// own SKILL.md shows it, run as an actor of that skill's role.
			chain, err := skills.ExampleChain(sk)
			if err != nil {
				t.Fatal(err)
			}
			for i, prev := range chain {
				shown := strings.TrimSuffix(docs[prev.Name].Command, " --json")
				if line := setupLines[2+i]; !strings.HasPrefix(line, shown+" --actor ") {
					t.Errorf("set-up line %q is not the example of %s/SKILL.md run --actor someone", line, prev.Name)
				}
			}
			setup := func() *cli {
				c := emptyFolder(t)
				for _, line := range setupLines {
					w := shellWords(t, line)
					c.must("", "setup-user", w[1:]...)
				}
				if sk.Prepare != nil {
					// The kernel's time on a loaded machine is no verdict
					// on the example: give it formal.timeout's range.
					c.must("", "setup-user", "config", "set", "formal.timeout", "1h")
				}
				return c
			}

			// The flag form without --json prints a sentence for a person.
			// The example runs as its role's example actor, as each step
			// of its chain does.
			actor := skills.ExampleActor(sk.Rule().Roles[0])
			if code, out, errOut := setup().do("", actor, args...); code != 0 {
				t.Errorf("`%s` exits %d; want 0\nstdout: %s\nstderr: %s", d.Command, code, out, errOut)
			} else if strings.TrimSpace(out) == "" || strings.HasPrefix(out, "{") {
				t.Errorf("`%s` printed %q; want a sentence for a person", d.Command, out)
			}
			input, err := skills.ExampleInput(sk)
			if err != nil {
				t.Fatal(err)
			}
			// The flag form and the --input form with --json: each prints
			// the output the file shows.
			for _, form := range []struct {
				name  string
				stdin string
				args  []string
			}{
				{"flags", "", args},
				{"--input", input, []string{sk.Name, "--input", "-"}},
			} {
				code, out, errOut := setup().do(form.stdin, actor, append(form.args, "--json")...)
				if code != 0 {
					t.Errorf("%s form exits %d; want 0\nstdout: %s\nstderr: %s", form.name, code, out, errOut)
					continue
				}
				if !sameJSON(t, out, d.Output) {
					t.Errorf("%s form with --json printed\n%s\nthe SKILL.md shows\n%s", form.name, out, d.Output)
				}
			}
		})
	}
}

func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Errorf("not JSON: %q: %v", a, err)
		return false
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Errorf("not JSON: %q: %v", b, err)
		return false
	}
	return reflect.DeepEqual(x, y)
}
