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
		Short: "Write the Claude Code skill and agent files (.claude/) generated from the skill registry",
		Long:  "gen-claude writes DIR/.claude/skills/<skill>/SKILL.md for each skill and\nDIR/.claude/agents/agent-<role>.md for each role, from the skill registry and the transition\ntable, so that they never drift from the CLI. It overwrites those files and leaves any other\nfile under DIR/.claude alone.",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			paths, err := skills.WriteClaude(dir)
			if err != nil {
				return err
			}
			files := make([]string, len(paths))
			for i, p := range paths {
				files[i] = filepath.ToSlash(p)
			}
			if a.json {
				return a.writeJSON(map[string]any{"ok": true, "command": "gen-claude", "dir": dir, "files": files})
			}
			fmt.Fprintf(a.stdout, "Wrote %d files under %s.\n", len(files), filepath.Join(dir, ".claude"))
			return nil
		},
	}
	c.Flags().StringVar(&dir, "dir", ".", "write DIR/.claude/... (default: the current directory)")
	return c
}
