package skills

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/proofloop/proofloop/model"
)

// The agent CLIs `proofloop run` hands turns to, each with the command line
// per role and the least-privilege files that go with it, all from one
// source: the role's agent file (agentFile, from the registry) for the
// instructions, and the tables below for the permissions. `proofloop gen
// --cli NAME` writes a CLI's files and prints its commands; docs/<NAME>.md
// says why each flag is there.

// AgentCLI is one agent CLI.
type AgentCLI struct {
	Name    string // what `gen --cli` takes: claude, codex, gemini
	Harness string // what AgentIdentity names its program: claude-code, codex, gemini
	Doc     string // the page that explains its setup
	// command is the agents.<role> command line for role, with its model
	// when model is not "".
	command func(role model.Role, modelName string) string
	// files are the files it needs in the project, besides Claude Code's
	// .claude/ (WriteClaude).
	files func() ([]File, error)
}

// Command is the agents.<role> command line of config.json that hands a
// turn of `proofloop run` to the CLI, naming modelName when it is not "".
func (c AgentCLI) Command(role model.Role, modelName string) string {
	return c.command(role, modelName)
}

// Files are the project files the CLI's commands rely on.
func (c AgentCLI) Files() ([]File, error) {
	if c.files == nil {
		return nil, nil
	}
	return c.files()
}

// AgentCLIs are the agent CLIs, in the order `gen --cli all` writes them.
var AgentCLIs = []AgentCLI{
	{Name: "claude", Harness: "claude-code", Doc: "docs/claude-code.md", command: claudeCommand},
	{Name: "codex", Harness: "codex", Doc: "docs/codex.md", command: codexCommand, files: codexFiles},
	{Name: "gemini", Harness: "gemini", Doc: "docs/gemini.md", command: geminiCommand, files: geminiFiles},
}

// AgentCLINames are the names `gen --cli` takes: each CLI's, and all.
func AgentCLINames() []string {
	var out []string
	for _, c := range AgentCLIs {
		out = append(out, c.Name)
	}
	return append(out, "all")
}

// AgentCLIByName is the CLI of that name.
func AgentCLIByName(name string) (AgentCLI, bool) {
	for _, c := range AgentCLIs {
		if c.Name == name {
			return c, true
		}
	}
	return AgentCLI{}, false
}

// The project files of Codex and Gemini. The role files hold the body of
// the role's Claude Code agent file (its front matter stripped): one text
// per role, whichever CLI reads it.
const (
	CodexRulesPath    = ".codex/rules/proofloop.rules"
	CodexRolesDir     = ".codex/proofloop"
	GeminiPolicyPath  = ".gemini/policies/proofloop.toml"
	GeminiRolesDir    = ".gemini/proofloop"
	rolePromptPattern = "Take the %s turn on $PROOFLOOP_ID. First run: proofloop prime --role %s --id $PROOFLOOP_ID"
)

// codexRules lets commands that start with proofloop run outside Codex's
// read-only sandbox; anything else (a chained `proofloop ... && touch ...`
// included) runs inside it, read-only and without network.
const codexRules = `# Written by proofloop gen --cli codex: a command that starts with proofloop
# runs outside the read-only sandbox, so that it may write the store;
# anything else, a chained "proofloop ... && touch ..." included, runs in it.
prefix_rule(pattern = ["proofloop"], decision = "allow")
`

// geminiPolicy allows run_shell_command for proofloop commands only (in
// approval mode default, headless: anything that would ask is denied, a
// chained command whole), and denies web search, web fetch and subagents.
// Gemini's read tools stay allowed, inside its workspace.
const geminiPolicy = `# Written by proofloop gen --cli gemini: the agent may run proofloop
# commands, nothing else; no web, no subagents. Pass it with --policy.
[[rule]]
toolName = "run_shell_command"
commandPrefix = "proofloop"
decision = "allow"
priority = 100

[[rule]]
toolName = "google_web_search"
decision = "deny"
priority = 100

[[rule]]
toolName = "web_fetch"
decision = "deny"
priority = 100

[[rule]]
toolName = "invoke_agent"
decision = "deny"
priority = 100
`

// claudeCommand is ClaudeAgentCommand, with the model.
func claudeCommand(role model.Role, modelName string) string {
	if modelName == "" {
		return ClaudeAgentCommand(role)
	}
	return fmt.Sprintf(`claude -p --output-format=json --model %s --agent agent-%s --allowedTools="%s" "Take the %s turn on $PROOFLOOP_ID."`,
		modelName, role, ClaudeAllowedTools, role)
}

// codexCommand runs `codex exec` headless: JSON Lines on stdout (the
// turn's usage and its error), a read-only sandbox that the rules file
// lets proofloop out of (trusted, so that the project's rules load), no
// login shell (Debian's profile resets PATH, and proofloop is lost), no
// web search, no AGENTS.md (the whole guide, 12 KB, in every request), and
// the role's instructions on stdin, which codex adds to the prompt.
func codexCommand(role model.Role, modelName string) string {
	m := ""
	if modelName != "" {
		m = " -m " + modelName
	}
	return fmt.Sprintf(`codex exec --json --skip-git-repo-check --trust --sandbox read-only%s -c allow_login_shell=false -c web_search=disabled -c project_doc_max_bytes=0 "%s" < %s/agent-%s.md`,
		m, fmt.Sprintf(rolePromptPattern, role, role), CodexRolesDir, role)
}

// geminiCommand runs gemini headless (-p): its JSON stream on stdout, the
// workspace trusted for the session, approval mode default with the
// policy file (proofloop commands only), and the role's instructions on
// stdin, which gemini puts before the prompt.
func geminiCommand(role model.Role, modelName string) string {
	m := ""
	if modelName != "" {
		m = " -m " + modelName
	}
	return fmt.Sprintf(`gemini --skip-trust --approval-mode default --policy %s%s -o stream-json -p "%s" < %s/agent-%s.md`,
		GeminiPolicyPath, m, fmt.Sprintf(rolePromptPattern, role, role), GeminiRolesDir, role)
}

// RoleText is the role's instructions for a CLI without Claude Code's
// agent files: the agent file's body, its front matter stripped.
func RoleText(r model.Role) ([]byte, error) {
	entries, err := Catalog()
	if err != nil {
		return nil, err
	}
	data, err := agentFile(r, entries)
	if err != nil {
		return nil, err
	}
	if rest, ok := bytes.CutPrefix(data, []byte("---\n")); ok {
		if i := bytes.Index(rest, []byte("\n---\n")); i >= 0 {
			data = bytes.TrimLeft(rest[i+len("\n---\n"):], "\n")
		}
	}
	return data, nil
}

// roleFiles are the role texts under dir, one per proof role.
func roleFiles(dir string) ([]File, error) {
	var out []File
	for _, r := range ClaudeRoles {
		data, err := RoleText(r)
		if err != nil {
			return nil, fmt.Errorf("generate %s/agent-%s.md: %w", dir, r, err)
		}
		out = append(out, File{fmt.Sprintf("%s/agent-%s.md", dir, r), data})
	}
	return out, nil
}

func codexFiles() ([]File, error) {
	files, err := roleFiles(CodexRolesDir)
	return append(files, File{CodexRulesPath, []byte(codexRules)}), err
}

func geminiFiles() ([]File, error) {
	files, err := roleFiles(GeminiRolesDir)
	return append(files, File{GeminiPolicyPath, []byte(geminiPolicy)}), err
}

// WriteCLIFiles writes a CLI's files under dir and returns their paths.
func WriteCLIFiles(dir string, c AgentCLI) ([]string, error) {
	files, err := c.Files()
	if err != nil {
		return nil, err
	}
	return writeFiles(dir, files)
}

// writeFiles writes each file under dir and returns the paths written.
func writeFiles(dir string, files []File) ([]string, error) {
	var written []string
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := writeFile(p, f.Data); err != nil {
			return nil, err
		}
		written = append(written, p)
	}
	return written, nil
}

// AgentList is the JSON list of a role's agents, one per CLI, named for
// the CLI, with the model given for it (models, by CLI name): the value of
// `proofloop config set agents.ROLE '[...]'` that runs the role on every
// CLI side by side.
func AgentList(role model.Role, clis []AgentCLI, models map[string]string) (string, error) {
	type agent struct {
		Name    string `json:"name"`
		Model   string `json:"model,omitempty"`
		Command string `json:"command"`
	}
	var list []agent
	for _, c := range clis {
		list = append(list, agent{Name: c.Name, Model: models[c.Name], Command: c.Command(role, models[c.Name])})
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(list)
	return strings.TrimSpace(b.String()), err
}
