package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// TestClaudeDebateFields checks that `prime --role R` gives every field of
// each protocol to a role that writes it, marked required exactly when the
// protocol requires it, with every allowed value; and that each generated
// file gives every outcome and the limit.
func TestClaudeDebateFields(t *testing.T) {
	if len(skills.DebateDocs) != len(model.Protocols) {
		t.Fatalf("%d debate files for %d protocols; want one each", len(skills.DebateDocs), len(model.Protocols))
	}
	for _, p := range model.Protocols {
		c := emptyFolder(t)
		c.must("", "", "init")
		roles := slices.Compact(slices.Clone(p.Roles))
		if len(roles) == 0 { // agora: a position's role exists once a debate names it
			for _, st := range p.Doc.Example.Steps {
				if strings.HasPrefix(st.Args, "debate start ") {
					c.must("", "", shellWords(t, st.Args)...)
					for _, m := range regexp.MustCompile(`--position '([^=]+)=`).FindAllStringSubmatch(st.Args, -1) {
						roles = append(roles, m[1])
					}
				}
			}
			roles = append(roles, model.RoleMediator)
		}
		seen := map[string]bool{}
		for _, r := range roles {
			out := c.must("", "", "prime", "--role", r)
			_, format, ok := strings.Cut(out, "\nProtocol "+p.Name+": ")
			if !ok {
				t.Errorf("prime --role %s says nothing of %s:\n%s", r, p.Name, out)
				continue
			}
			for _, f := range p.FieldsOf(r) {
				seen[f.Name+"/"+f.In] = true
				line := regexp.MustCompile("(?m)^  " + regexp.QuoteMeta(f.Name) + "[: (].*$").FindString(format)
				if line == "" {
					t.Errorf("prime --role %s: field %s of %s has no line", r, f.Name, p.Name)
					continue
				}
				if got := strings.Contains(line, "(required)"); got != f.Required {
					t.Errorf("prime --role %s: %q; want required=%v", r, line, f.Required)
				}
				for _, v := range f.Enum {
					if !strings.Contains(line, v) {
						t.Errorf("prime --role %s: field %s line %q lacks value %s", r, f.Name, line, v)
					}
				}
			}
		}
		for _, f := range p.Fields {
			if !seen[f.Name+"/"+f.In] {
				t.Errorf("%s: no role's prime gives field %s", p.Name, f.Name)
			}
		}
		d := skills.DebateDocOf(p.Name)
		outcomes := section(readDebateDoc(t, *d), "## How it ends")
		for _, o := range p.Outcomes {
			if !regexp.MustCompile("(?m)^\\| (`[^`]+`, )*`" + regexp.QuoteMeta(o) + "`(, `[^`]+`)* \\|").MatchString(outcomes) {
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

// TestClaudeDebateExamples runs each protocol's example, as `debate example
// P` prints it, in an empty folder: every command must succeed, and the
// last one must print what the example shows, the debate closed with the
// stated outcome.
func TestClaudeDebateExamples(t *testing.T) {
	for _, d := range skills.DebateDocs {
		t.Run(d.Name, func(t *testing.T) {
			t.Parallel()
			code, text, errOut := runCLI(t, "", "debate", "example", d.Protocol.Name)
			if code != 0 {
				t.Fatalf("debate example %s: exit %d: %s", d.Protocol.Name, code, errOut)
			}
			if !strings.Contains(readDebateDoc(t, d), "`proofloop debate example "+d.Protocol.Name+"`") {
				t.Errorf("%s does not point at `proofloop debate example %s`", d.Path, d.Protocol.Name)
			}
			steps, want, err := parseDebateExample("\n" + text)
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
