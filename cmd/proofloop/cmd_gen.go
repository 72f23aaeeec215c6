package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// genOptions are gen's flags.
type genOptions struct {
	cli, dir, list   string
	models           []string
	withMCP, withPlu bool
}

func (a *app) genCommand() *cobra.Command {
	o := genOptions{}
	c := &cobra.Command{
		Use:   "gen --cli claude|codex|gemini|all [--dir DIR] [--model CLI=MODEL]... [--list ROLE]",
		Short: "Write each agent CLI's least-privilege files from the skill registry and print the commands for run",
		Long: "gen writes, for each agent CLI named by --cli (all: the three), what its turns of `proofloop run` need\n" +
			"in the project folder DIR, and prints, for each proof role, the agents.<role> command that hands a turn\n" +
			"to it, allowed to run proofloop commands and nothing else:\n\n" +
			"  claude  what gen-claude writes (.claude/, AGENTS.md); the command allows Bash(proofloop:*) and Read(./**)\n" +
			"  codex   " + skills.CodexRulesPath + " (proofloop commands run outside the read-only sandbox, anything\n" +
			"          else in it) and " + skills.CodexRolesDir + "/agent-<role>.md, the role's instructions on stdin\n" +
			"  gemini  " + skills.GeminiPolicyPath + " (run_shell_command for proofloop only; no web) and\n" +
			"          " + skills.GeminiRolesDir + "/agent-<role>.md, the role's instructions on stdin\n\n" +
			"Codex and Gemini have no SessionStart hook: each command's prompt says to run `proofloop prime --role R\n" +
			"--id $PROOFLOOP_ID` first. --model CLI=MODEL puts the model in that CLI's commands (-m, --model), so that\n" +
			"run records it and verify_distinct model can count it. --list ROLE prints, instead, the role's agents as\n" +
			"one JSON list, one agent per CLI named for it (with its model), for `proofloop config set agents.ROLE`,\n" +
			"and writes nothing. docs/claude-code.md, docs/codex.md and docs/gemini.md say why each flag is there.\n\n" +
			"The files say what the agents may do: writing them is a person's command, refused in a turn of\n" +
			"`proofloop run` and under a lease (gen-claude too).",
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error { return a.gen(o) },
	}
	c.Flags().StringVar(&o.cli, "cli", "", "the agent CLI: "+strings.Join(skills.AgentCLINames(), ", "))
	c.Flags().StringVar(&o.dir, "dir", ".", "the project folder `DIR` to write into (run starts the agents there)")
	c.Flags().StringArrayVar(&o.models, "model", nil, "`CLI=MODEL`: the model a CLI's commands name (repeat per CLI)")
	c.Flags().StringVar(&o.list, "list", "", "print `ROLE`'s agents, one per CLI, as the JSON list for config set agents.ROLE; write nothing")
	c.Flags().BoolVar(&o.withMCP, "mcp", false, "claude: also set the proofloop MCP server in DIR/.mcp.json (as gen-claude --mcp)")
	c.Flags().BoolVar(&o.withPlu, "plugin", false, "claude: also write DIR as a Claude Code plugin marketplace (as gen-claude --plugin)")
	return c
}

// gen is `proofloop gen`.
func (a *app) gen(o genOptions) error {
	clis, err := genCLIs(o.cli)
	if err != nil {
		return err
	}
	models := map[string]string{}
	for _, m := range o.models {
		name, modelName, ok := strings.Cut(m, "=")
		if _, known := skills.AgentCLIByName(name); !ok || !known || !modelPattern().MatchString(modelName) {
			return store.Errorf(store.CodeUsage, "--model takes CLI=MODEL, CLI one of %s and MODEL a model's name; got %q", strings.Join(skills.AgentCLINames()[:len(skills.AgentCLIs)], ", "), m).
				WithHint("e.g. --model codex=gpt-5 --model gemini=gemini-2.5-pro")
		}
		models[name] = modelName
	}
	if o.list != "" {
		role := model.Role(o.list)
		if !slices.Contains(skills.ClaudeRoles, role) {
			return store.Errorf(store.CodeUsage, "--list takes a proof role: %s; got %q", roleList(skills.ClaudeRoles), o.list)
		}
		list, err := skills.AgentList(role, clis, models)
		if err != nil {
			return err
		}
		if a.json {
			return a.writeJSON(map[string]any{"ok": true, "command": "gen", "role": role, "agents": jsonRaw(list)})
		}
		fmt.Fprintln(a.stdout, list)
		return nil
	}
	// The files say what the agents may do: an agent does not write them.
	if err := a.personOnly("gen"); err != nil {
		return err
	}
	out := map[string]any{}
	for _, c := range clis {
		files, err := a.genFiles(c, o)
		if err != nil {
			return err
		}
		agents := map[string]string{}
		for _, r := range skills.ClaudeRoles {
			agents[string(r)] = c.Command(r, models[c.Name])
		}
		out[c.Name] = map[string]any{"files": files, "agents": agents, "doc": c.Doc}
		if a.json {
			continue
		}
		fmt.Fprintf(a.stdout, "%s: wrote %d files under %s (%s says why each flag).\n", c.Name, len(files), o.dir, c.Doc)
		fmt.Fprintf(a.stdout, "  For `proofloop run` to hand each turn to %s, allowed to run proofloop and nothing else:\n", c.Name)
		for _, r := range skills.ClaudeRoles {
			fmt.Fprintf(a.stdout, "  proofloop config set agents.%s '%s'\n", r, c.Command(r, models[c.Name]))
		}
	}
	if a.json {
		return a.writeJSON(map[string]any{"ok": true, "command": "gen", "dir": o.dir, "clis": out})
	}
	return nil
}

// genFiles writes one CLI's files and returns their slash paths.
func (a *app) genFiles(c skills.AgentCLI, o genOptions) ([]string, error) {
	var paths []string
	if c.Name == "claude" {
		rep, err := skills.WriteClaude(o.dir)
		if err != nil {
			return nil, err
		}
		paths = append(rep.Written, rep.Settings)
		if o.withMCP {
			p, _, err := skills.WriteMCP(o.dir)
			if err != nil {
				return nil, err
			}
			paths = append(paths, p)
		}
		if o.withPlu || skills.HasPlugin(o.dir) {
			p, err := skills.WritePlugin(o.dir)
			if err != nil {
				return nil, err
			}
			paths = append(paths, p...)
		}
	} else {
		var err error
		if paths, err = skills.WriteCLIFiles(o.dir, c); err != nil {
			return nil, err
		}
	}
	for i, p := range paths {
		paths[i] = filepath.ToSlash(p)
	}
	return paths, nil
}

// genCLIs are the CLIs --cli names.
func genCLIs(name string) ([]skills.AgentCLI, error) {
	if name == "all" {
		return skills.AgentCLIs, nil
	}
	if c, ok := skills.AgentCLIByName(name); ok {
		return []skills.AgentCLI{c}, nil
	}
	return nil, store.Errorf(store.CodeUsage, "--cli takes %s; got %q", strings.Join(skills.AgentCLINames(), ", "), name).
		WithHint("e.g. `proofloop gen --cli all` writes the files of the three")
}

// modelPattern is a model's name as --model takes it: the pattern of
// config.json's prices keys, which no shell reads as anything but a word.
var modelPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,99}$`) })

func jsonRaw(s string) json.RawMessage { return json.RawMessage(s) }

func roleList(rs []model.Role) string {
	var s []string
	for _, r := range rs {
		s = append(s, string(r))
	}
	return strings.Join(s, ", ")
}
