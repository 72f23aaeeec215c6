package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

func (a *app) genClaudeCommand() *cobra.Command {
	var dir string
	var withMCP, withPlugin bool
	c := &cobra.Command{
		Use:   "gen-claude [--dir DIR] [--mcp] [--plugin]",
		Short: "Write the Claude Code skill and agent files (.claude/), settings and AGENTS.md from the skill registry",
		Long: "gen-claude writes DIR/.claude/skills/<skill>/SKILL.md for each skill,\n" +
			"DIR/.claude/agents/agent-<role>.md for each role and DIR/AGENTS.md, from the skill registry and\n" +
			"the transition table, and one file per debate protocol from its data (" + debateFileNames() + "),\n" +
			"so that they never drift from the CLI. It overwrites those files, except an\n" +
			"AGENTS.md that it did not write, and leaves any other file under DIR/.claude alone.\n\n" +
			"It also merges into DIR/.claude/settings.json the permissions Bash(proofloop:*) and\n" +
			"Bash(bin/proofloop:*), so that agents call proofloop without asking, and a SessionStart hook that\n" +
			"runs `proofloop prime` for the role of a session `proofloop run` started. Every other key,\n" +
			"permission and hook there stays, and running it again adds nothing twice.\n\n" +
			"With --mcp it also sets the proofloop server (`proofloop mcp` over stdio) in DIR/.mcp.json,\n" +
			"Claude Code's project file of MCP servers, keeping every other server there. It is opt-in: a\n" +
			"server's tool schemas are loaded into every turn of every session, also the turns that work\n" +
			"through Bash. The server offers a session only its role's tools ($PROOFLOOP_ROLE).\n\n" +
			"It ends by printing, for each proof role, the agents.<role> command that hands `proofloop run`'s\n" +
			"turns to Claude Code in print mode, allowed to run proofloop and to read, nothing else\n" +
			"(--allowedTools=\"Bash(proofloop:*),Read(./**)\"; docs/claude-code.md says why it is on the command line;\n" +
			"`proofloop gen --cli codex|gemini|all` does the same for Codex and Gemini).\n\n" +
			"With --plugin it also writes DIR as a Claude Code plugin marketplace: DIR/.claude-plugin/marketplace.json\n" +
			"and the plugin in DIR/plugins/proofloop (the same skills and agents, and the SessionStart hook), so that\n" +
			"`claude plugin marketplace add DIR` then `claude plugin install proofloop@proofloop` installs it. A\n" +
			"marketplace it wrote is kept up to date by every later gen-claude in DIR.",
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := a.personOnly("gen-claude"); err != nil {
				return err // the files say what the agents may do
			}
			rep, err := skills.WriteClaude(dir)
			if err != nil {
				return err
			}
			mcpPath, mcpChanged := filepath.Join(dir, skills.MCPPath), false
			if withMCP {
				if mcpPath, mcpChanged, err = skills.WriteMCP(dir); err != nil {
					return err
				}
			}
			mcpOn := withMCP || skills.HasMCP(dir)
			var pluginFiles []string
			if withPlugin || skills.HasPlugin(dir) {
				if pluginFiles, err = skills.WritePlugin(dir); err != nil {
					return err
				}
			}
			slash := func(ps []string) []string {
				out := make([]string, len(ps))
				for i, p := range ps {
					out[i] = filepath.ToSlash(p)
				}
				return out
			}
			if a.json {
				return a.writeJSON(map[string]any{"ok": true, "command": "gen-claude", "dir": dir, "files": slash(rep.Written),
					"kept": slash(rep.Kept), "settings": map[string]any{"path": filepath.ToSlash(rep.Settings), "changed": rep.SettingsChanged},
					"mcp": map[string]any{"path": filepath.ToSlash(mcpPath), "changed": mcpChanged, "enabled": mcpOn}, "agents": claudeAgents(),
					"plugin": map[string]any{"written": pluginFiles != nil, "files": slash(pluginFiles)}})
			}
			where := dir
			if filepath.Clean(dir) == "." {
				where = "the current folder" // not "under .."
			}
			fmt.Fprintf(a.stdout, "Wrote %d files under %s.\n", len(rep.Written), where)
			for _, k := range rep.Kept {
				fmt.Fprintf(a.stdout, "Kept %s: proofloop did not write it, so it is left as it is.\n", k)
			}
			if rep.SettingsChanged {
				fmt.Fprintf(a.stdout, "Added proofloop's permissions and SessionStart hook to %s.\n", rep.Settings)
			} else {
				fmt.Fprintf(a.stdout, "%s already has proofloop's permissions and SessionStart hook.\n", rep.Settings)
			}
			switch {
			case mcpChanged:
				fmt.Fprintf(a.stdout, "Added the proofloop MCP server (`proofloop mcp`) to %s.\n", mcpPath)
			case withMCP:
				fmt.Fprintf(a.stdout, "%s already has the proofloop MCP server.\n", mcpPath)
			case mcpOn:
				fmt.Fprintf(a.stdout, "%s keeps the proofloop MCP server: its tool schemas load into every session; remove mcpServers.proofloop there if your agents use Bash only.\n", mcpPath)
			}
			if pluginFiles != nil {
				fmt.Fprintf(a.stdout, "Wrote the Claude Code plugin marketplace under %s (%d files): `claude plugin marketplace add %s`, then `claude plugin install %s@%s`.\n",
					dir, len(pluginFiles), dir, skills.PluginName, skills.PluginName)
			}
			fmt.Fprintln(a.stdout, "For `proofloop run` to hand each turn to Claude Code, allowed to run proofloop and to read, nothing else:")
			for _, r := range skills.ClaudeRoles {
				fmt.Fprintf(a.stdout, "  proofloop config set agents.%s '%s'\n", r, skills.ClaudeAgentCommand(r))
			}
			return nil
		},
	}
	c.Flags().StringVar(&dir, "dir", ".", "write `DIR`/.claude/... and DIR/AGENTS.md")
	c.Flags().BoolVar(&withPlugin, "plugin", false, "also write DIR as a Claude Code plugin marketplace (.claude-plugin/marketplace.json, plugins/proofloop)")
	c.Flags().BoolVar(&withMCP, "mcp", false, "also set the proofloop MCP server in DIR/.mcp.json (opt-in: its tool schemas load into every session)")
	return c
}

// claudeAgents are the agents.<role> commands that hand run's turns to
// Claude Code, for gen-claude's JSON output.
func claudeAgents() map[string]string {
	out := map[string]string{}
	for _, r := range skills.ClaudeRoles {
		out[string(r)] = skills.ClaudeAgentCommand(r)
	}
	return out
}

// debateFileNames names each protocol's generated file: "agent-socratic for
// socratic, code-debate for review, ...".
func debateFileNames() string {
	var out []string
	for _, p := range model.Protocols {
		out = append(out, p.Doc.Name+" for "+p.Name)
	}
	return strings.Join(out, ", ")
}
