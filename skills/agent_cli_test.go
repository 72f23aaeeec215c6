package skills

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/loop"
)

// TestAgentCLICommands (issue 35, item 1): each CLI's command per role
// hands the turn to the CLI with least privilege and names what run reads
// back: Claude Code's Read scoped to the project, never blanket; Codex in
// its read-only sandbox, no login shell, no web search, JSON Lines out;
// Gemini in approval mode default under the policy file, its JSON stream
// out; Codex and Gemini told to run prime first and given the role's file.
// run reads the command's program and model as the CLI's (AgentIdentity),
// so that its output parser and its model are the right ones.
func TestAgentCLICommands(t *testing.T) {
	want := map[string][]string{
		"claude": {"claude -p", "--output-format=json", "--agent agent-ROLE", `--allowedTools="Bash(proofloop:*),Read(./**)"`},
		"codex": {"codex exec", "--json", "--sandbox read-only", "-c allow_login_shell=false", "-c web_search=disabled",
			"-c project_doc_max_bytes=0", "--trust", "First run: proofloop prime --role ROLE --id $PROOFLOOP_ID", "< .codex/proofloop/agent-ROLE.md"},
		"gemini": {"gemini ", "--approval-mode default", "--policy .gemini/policies/proofloop.toml", "-o stream-json", "-p ",
			"First run: proofloop prime --role ROLE --id $PROOFLOOP_ID", "< .gemini/proofloop/agent-ROLE.md"},
	}
	for _, c := range AgentCLIs {
		if !loop.KnownCLI(c.Harness) {
			t.Errorf("%s: run has no output parser for %q", c.Name, c.Harness)
		}
		for _, r := range ClaudeRoles {
			cmd := c.Command(r, "")
			for _, w := range want[c.Name] {
				if w = strings.ReplaceAll(w, "ROLE", string(r)); !strings.Contains(cmd, w) {
					t.Errorf("%s %s: %s\nlacks %q", c.Name, r, cmd, w)
				}
			}
			for _, bad := range []string{"workspace-write", "danger-full-access", "yolo", `Read"`, "Read,", "--allowedTools=Bash\""} {
				if strings.Contains(cmd, bad) {
					t.Errorf("%s %s: %s\nhas %q: more than least privilege", c.Name, r, cmd, bad)
				}
			}
			if h, m := loop.AgentIdentity(cmd); h != c.Harness || m != "" {
				t.Errorf("AgentIdentity(%s's command) = %q, %q; want %q and no model", c.Name, h, m, c.Harness)
			}
			if h, m := loop.AgentIdentity(c.Command(r, "m-1.5")); h != c.Harness || m != "m-1.5" {
				t.Errorf("AgentIdentity(%s's command with its model) = %q, %q; want %q, m-1.5", c.Name, h, m, c.Harness)
			}
		}
	}
}

// TestRoleTextIsTheAgentFile: the role's instructions that Codex and
// Gemini read are the body of its Claude Code agent file, one text; and
// they stay small, since every turn's first request carries them (with
// prime's output, the bytes a check turn hands a model stay within the
// 10 KB a Claude Code check turn may read: 3,671 and 1,657 in
// e2e/harness's TestRealCLIsCheckOneProof).
func TestRoleTextIsTheAgentFile(t *testing.T) {
	files, err := ClaudeFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range ClaudeRoles {
		text, err := RoleText(r)
		if err != nil {
			t.Fatal(err)
		}
		var agent []byte
		for _, f := range files {
			if f.Path == ".claude/agents/agent-"+string(r)+".md" {
				agent = f.Data
			}
		}
		if !bytes.HasSuffix(agent, text) || bytes.HasPrefix(text, []byte("---")) || len(text) < 1000 {
			t.Errorf("RoleText(%s) is not the body of agent-%s.md:\n%s", r, r, text)
		}
		if len(text) > 5000 {
			t.Errorf("RoleText(%s) is %d bytes; want at most 5000 (every turn's first request carries it)", r, len(text))
		}
	}
}

// TestCLIPermissionFiles: Codex's rules allow the proofloop prefix and
// nothing else; Gemini's policy allows run_shell_command for the proofloop
// prefix and no other tool, and denies the web and subagents.
func TestCLIPermissionFiles(t *testing.T) {
	var rules []string
	for _, l := range strings.Split(codexRules, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			rules = append(rules, l)
		}
	}
	if len(rules) != 1 || rules[0] != `prefix_rule(pattern = ["proofloop"], decision = "allow")` {
		t.Errorf("codex rules %q; want the one allow rule of the proofloop prefix", rules)
	}
	allows, denies := 0, []string{}
	for _, rule := range strings.Split(geminiPolicy, "[[rule]]")[1:] {
		switch {
		case strings.Contains(rule, `decision = "allow"`):
			allows++
			if !strings.Contains(rule, `toolName = "run_shell_command"`) || !strings.Contains(rule, `commandPrefix = "proofloop"`) {
				t.Errorf("gemini allows %q; want only run_shell_command with the proofloop prefix", rule)
			}
		case strings.Contains(rule, `decision = "deny"`):
			denies = append(denies, strings.TrimSpace(strings.Split(rule, "\n")[1]))
		}
	}
	if allows != 1 || strings.Join(denies, " ") != `toolName = "google_web_search" toolName = "web_fetch" toolName = "invoke_agent"` {
		t.Errorf("gemini policy: %d allows, denies %q", allows, denies)
	}
	for _, name := range []string{"codex", "gemini"} {
		c, _ := AgentCLIByName(name)
		files, err := c.Files()
		if err != nil || len(files) != len(ClaudeRoles)+1 {
			t.Errorf("%s files %v, %v; want a role file per proof role and its permission file", name, files, err)
		}
	}
}

// TestAgentCLIDocs: the command each CLI's page shows is the one gen
// prints (one source: a page that drifts fails here).
func TestAgentCLIDocs(t *testing.T) {
	for name, model := range map[string]string{"codex": "gpt-5", "gemini": "gemini-2.5-pro"} {
		c, _ := AgentCLIByName(name)
		doc, err := os.ReadFile(filepath.Join("..", c.Doc))
		if err != nil {
			t.Fatal(err)
		}
		if cmd := c.Command("check", model); !strings.Contains(string(doc), "\n"+cmd+"\n") {
			t.Errorf("%s does not show the check command gen prints:\n%s", c.Doc, cmd)
		}
	}
}
