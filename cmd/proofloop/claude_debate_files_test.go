package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

// The debate files (.claude/skills/debate, code-debate, agents/agent-socratic
// and agent-agora) are generated from the protocol data. These tests read
// the committed files: every turn field is documented, every command they
// give exists with its flags, and every worked example runs through the
// real CLI and ends as the file says.

func readDebateDoc(t *testing.T, d skills.DebateDoc) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoTop, filepath.FromSlash(d.Path)))
	if err != nil {
		t.Fatalf("%v; run `go run ./cmd/proofloop gen-claude`", err)
	}
	return string(data)
}

// TestClaudeDebateFields checks that every field of each protocol has a
// row in its file's turn format table, marked required exactly when the
// protocol requires it, with every allowed value: a field added to a
// protocol without regenerating the files fails here.
func TestClaudeDebateFields(t *testing.T) {
	if len(skills.DebateDocs) != len(model.Protocols) {
		t.Fatalf("%d debate files for %d protocols; want one each", len(skills.DebateDocs), len(model.Protocols))
	}
	for _, p := range model.Protocols {
		d := skills.DebateDocOf(p.Name)
		if d == nil {
			t.Errorf("protocol %s has no generated file", p.Name)
			continue
		}
		text := readDebateDoc(t, *d)
		table := section(text, "## Turn format")
		for _, f := range p.Fields {
			name := "`" + f.Name + "`"
			if f.In != "" {
				name += " (inside " + f.In + ", not a key of the turn)"
			}
			row := regexp.MustCompile("(?m)^\\| " + regexp.QuoteMeta(name) + " \\|.*$").FindString(table)
			if row == "" {
				t.Errorf("%s: field %s of %s has no row in ## Turn format", d.Path, f.Name, p.Name)
				continue
			}
			cells := strings.Split(row, " | ")
			if len(cells) != 6 {
				t.Errorf("%s: row %q has %d cells; want 6", d.Path, row, len(cells))
				continue
			}
			if got, want := cells[3] == "yes", f.Required; got != want {
				t.Errorf("%s: field %s required cell %q; want required=%v", d.Path, f.Name, cells[3], want)
			}
			for _, v := range f.Enum {
				if !strings.Contains(cells[4], "`"+v+"`") {
					t.Errorf("%s: field %s values %q lack %s", d.Path, f.Name, cells[4], v)
				}
			}
		}
		outcomes := section(text, "## How it ends")
		for _, o := range p.Outcomes {
			if !strings.Contains(outcomes, "| `"+o+"` |") {
				t.Errorf("%s: outcome %s of %s is not in ## How it ends", d.Path, o, p.Name)
			}
		}
		if !strings.Contains(outcomes, p.LimitText()) {
			t.Errorf("%s: ## How it ends does not give the limit %q", d.Path, p.LimitText())
		}
	}
}

// flagRe finds the flags of a command line: --name, --name=value.
var flagRe = regexp.MustCompile(`--([a-z][a-z-]*)`)

// TestClaudeDebateCommands checks every command line the debate files and
// `prime` give a role (skills.DebateCommands) against the real command
// tree: the subcommand exists and takes every flag named.
func TestClaudeDebateCommands(t *testing.T) {
	root := (&app{}).rootCommand()
	seen := 0
	for _, p := range model.Protocols {
		roles := p.Roles
		if roles == nil {
			roles = []string{"a-position", model.RoleMediator}
		}
		for _, r := range roles {
			for _, c := range skills.DebateCommands(p, r) {
				seen++
				if err := checkCommandLine(root, c.Run); err != nil {
					t.Errorf("%s/%s: %q: %v", p.Name, r, c.Run, err)
				}
			}
		}
	}
	if seen == 0 {
		t.Fatal("no debate commands")
	}
	// The check itself refuses a flag that does not exist.
	if err := checkCommandLine(root, "proofloop debate turn ID --participant-id P --no-such-flag"); err == nil {
		t.Error("checkCommandLine accepts --no-such-flag")
	}
}

func checkCommandLine(root *cobra.Command, line string) error {
	words := strings.Fields(line)
	if len(words) < 2 || words[0] != "proofloop" {
		return fmt.Errorf("does not start with proofloop")
	}
	var path []string
	for _, w := range words[1:] {
		if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "[") || strings.ToUpper(w) == w {
			break
		}
		path = append(path, w)
	}
	cmd, _, err := root.Find(path)
	if err != nil || cmd.Name() != path[len(path)-1] {
		return fmt.Errorf("no command %v", path)
	}
	for _, m := range flagRe.FindAllStringSubmatch(line, -1) {
		if cmd.Flags().Lookup(m[1]) == nil && cmd.InheritedFlags().Lookup(m[1]) == nil && root.PersistentFlags().Lookup(m[1]) == nil {
			return fmt.Errorf("%s has no flag --%s", cmd.CommandPath(), m[1])
		}
	}
	return nil
}

// exampleStep is one command of a debate file's example as a shell would
// run it: its words, and the body of its quoted heredoc, if any.
type exampleStep struct {
	line  string
	stdin string
}

// parseDebateExample reads the ## Example section of a debate file: one sh
// block that first points PROOFLOOP_ROOT at a scratch root (so that a
// reader who runs it never writes to a store of theirs), then proofloop
// command lines (comments and heredocs allowed), and one text block, the
// output of the last command.
func parseDebateExample(text string) ([]exampleStep, string, error) {
	ex := section(text, "## Example")
	blocks, outs := fenced(ex, "sh"), fenced(ex, "text")
	if len(blocks) != 1 || len(outs) != 1 {
		return nil, "", fmt.Errorf("## Example has %d sh and %d text blocks; want 1 and 1", len(blocks), len(outs))
	}
	var steps []exampleStep
	lines := strings.Split(blocks[0], "\n")
	if lines[0] != `export PROOFLOOP_ROOT="$(mktemp -d)/contents"` {
		return nil, "", fmt.Errorf("the example starts %q; want it to export a scratch PROOFLOOP_ROOT first", lines[0])
	}
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if i == 0 && l == `export PROOFLOOP_ROOT="$(mktemp -d)/contents"` {
			continue // the scratch root the test gives every example anyway
		}
		if !strings.HasPrefix(l, "proofloop ") {
			return nil, "", fmt.Errorf("line %q is not a proofloop command", l)
		}
		st := exampleStep{line: l}
		if cmd, ok := strings.CutSuffix(l, " <<'EOF'"); ok {
			st.line = cmd
			var body []string
			for i++; i < len(lines) && lines[i] != "EOF"; i++ {
				body = append(body, lines[i])
			}
			if i == len(lines) {
				return nil, "", fmt.Errorf("the heredoc of %q has no EOF line", l)
			}
			st.stdin = strings.Join(body, "\n")
		}
		steps = append(steps, st)
	}
	return steps, outs[0], nil
}

// TestClaudeDebateExamples runs each debate file's example, as printed, in
// an empty folder: every command must succeed, and the last one must print
// what the file shows, the debate closed with the stated outcome.
func TestClaudeDebateExamples(t *testing.T) {
	for _, d := range skills.DebateDocs {
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			steps, want, err := parseDebateExample(readDebateDoc(t, d))
			if err != nil {
				t.Fatalf("%s: %v", d.Path, err)
			}
			if len(steps) < 3 || steps[0].line != "proofloop init" {
				t.Fatalf("%s: the example starts %v; want `proofloop init` and a debate", d.Path, steps)
			}
			if !strings.Contains(want, " "+d.Protocol.Name+" ") || !strings.HasSuffix(strings.TrimSpace(want), " "+d.Example.Outcome) {
				t.Errorf("%s: the example ends with %q; want a %s debate with outcome %s", d.Path, want, d.Protocol.Name, d.Example.Outcome)
			}
			c := emptyFolder(t)
			var out string
			for _, st := range steps {
				words := shellWords(t, st.line)
				code, o, errOut := c.do(st.stdin, "example", words[1:]...)
				if code != 0 {
					t.Fatalf("%s: `%s` exits %d\nstdout: %s\nstderr: %s", d.Path, st.line, code, o, errOut)
				}
				out = o
			}
			if strings.TrimSpace(out) != strings.TrimSpace(want) {
				t.Errorf("%s: the last command printed\n%s\nthe file shows\n%s", d.Path, out, want)
			}
			// The engine closed the debate itself, with the stated outcome.
			show := c.must("", "example", "--json", "debate", "show", d.Example.ID)
			if !strings.Contains(show, `"outcome":"`+d.Example.Outcome+`"`) || !strings.Contains(show, `"status":"completed"`) {
				t.Errorf("%s: debate show after the example: %s; want completed with outcome %s", d.Path, show, d.Example.Outcome)
			}
		})
	}
}
