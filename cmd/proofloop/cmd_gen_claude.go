package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/skills"
)

func (a *app) genClaudeCommand() *cobra.Command {
	var dir string
	c := &cobra.Command{
		Use:   "gen-claude [--dir DIR]",
		Short: "Write the Claude Code skill and agent files (.claude/), settings and AGENTS.md from the skill registry",
		Long: "gen-claude writes DIR/.claude/skills/<skill>/SKILL.md for each skill,\n" +
			"DIR/.claude/agents/agent-<role>.md for each role and DIR/AGENTS.md, from the skill registry and\n" +
			"the transition table, and one file per debate protocol from its data (the /debate skill for\n" +
			"dialectic, code-debate for review, agent-socratic and agent-agora), so that they never drift from\n" +
			"the CLI. It overwrites those files, except an\n" +
			"AGENTS.md that it did not write, and leaves any other file under DIR/.claude alone.\n\n" +
			"It also merges into DIR/.claude/settings.json the permissions Bash(proofloop:*) and\n" +
			"Bash(bin/proofloop:*), so that agents call proofloop without asking, and a SessionStart hook that\n" +
			"runs `proofloop prime` for the role of a session `proofloop run` started. Every other key,\n" +
			"permission and hook there stays, and running it again adds nothing twice.\n\n" +
			"It also sets the proofloop server (`proofloop mcp` over stdio) in DIR/.mcp.json, Claude Code's\n" +
			"project file of MCP servers, keeping every other server there.",
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			rep, err := skills.WriteClaude(dir)
			if err != nil {
				return err
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
					"mcp": map[string]any{"path": filepath.ToSlash(rep.MCP), "changed": rep.MCPChanged}})
			}
			fmt.Fprintf(a.stdout, "Wrote %d files under %s.\n", len(rep.Written), dir)
			for _, k := range rep.Kept {
				fmt.Fprintf(a.stdout, "Kept %s: proofloop did not write it, so it is left as it is.\n", k)
			}
			if rep.SettingsChanged {
				fmt.Fprintf(a.stdout, "Added proofloop's permissions and SessionStart hook to %s.\n", rep.Settings)
			} else {
				fmt.Fprintf(a.stdout, "%s already has proofloop's permissions and SessionStart hook.\n", rep.Settings)
			}
			if rep.MCPChanged {
				fmt.Fprintf(a.stdout, "Added the proofloop MCP server (`proofloop mcp`) to %s.\n", rep.MCP)
			} else {
				fmt.Fprintf(a.stdout, "%s already has the proofloop MCP server.\n", rep.MCP)
			}
			return nil
		},
	}
	c.Flags().StringVar(&dir, "dir", ".", "write `DIR`/.claude/... and DIR/AGENTS.md")
	return c
}
