package main

import (
	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

// The sections of `proofloop --help` and the commands in each: with the
// skill registry, the one list of the root's commands. The skills come
// first, one section per role, from the registry; then the sections below,
// in order. A new command is its name and constructor on one line here; a
// test fails while a command of the tree has none. A function, not a var:
// the constructors reach back to the tree (mcp lists its tools from it),
// which a package-level var's initializer may not.
func commandGroups() []commandGroup {
	return []commandGroup{
		{"loop", "The turn loop:", []command{
			{"status", (*app).statusCommand}, {"next", (*app).nextCommand}, {"list", (*app).listCommand},
			{"claim", (*app).claimCommand}, {"refresh", (*app).refreshCommand},
			{"release", (*app).releaseCommand}, {"run", (*app).runCommand}, {"guide", (*app).guideCommand},
			{"decide", (*app).decideCommand},
		}},
		{"debates", "Debates:", []command{
			{"debate", (*app).debateCommand},
		}},
		{"audit", "Audit:", []command{
			{"show", (*app).showCommand}, {"events", (*app).eventsCommand},
			{"history", (*app).historyCommand}, {"graph", (*app).graphCommand},
			{"report", (*app).reportCommand}, {"serve", (*app).serveCommand},
		}},
		{"setup", "Setup and agents:", []command{
			{"init", (*app).initCommand}, {"new-problem", (*app).newProblemCommand},
			{"doctor", (*app).doctorCommand}, {"export", (*app).exportCommand},
			{"import", (*app).importCommand}, {"db", (*app).dbCommand}, {"config", (*app).configCommand},
			{"gen-claude", (*app).genClaudeCommand}, {"example-agent", (*app).exampleAgentCommand},
			{"eval", (*app).evalCommand}, {"eval-agent", (*app).evalAgentCommand},
			{"mcp", (*app).mcpCommand}, {"skills", (*app).skillsCommand}, {"prime", (*app).primeCommand},
			{"transitions", (*app).transitionsCommand}, {"version", (*app).versionCommand},
			{"completion", nil}, {"help", nil},
		}},
	}
}

// commandGroup is one section of `proofloop --help`.
type commandGroup struct {
	ID, Title string
	Commands  []command
}

// command is a subcommand of the root, built only when a command line
// needs it (app.newRoot).
type command struct {
	name  string
	build func(*app) *cobra.Command // nil for cobra's own help and completion
}

// skillGroup is the help section of the skills whose first role is r.
func skillGroup(r model.Role) string { return "skills-" + string(r) }

// groupCommands puts every command of root into its help section.
func groupCommands(root *cobra.Command) {
	groupOf := map[string]string{}
	for _, r := range skills.Roles() {
		root.AddGroup(&cobra.Group{ID: skillGroup(r), Title: "Skills of the " + string(r) + " role:"})
	}
	for _, sk := range skills.Registry {
		if rule := sk.Rule(); rule != nil && len(rule.Roles) > 0 {
			groupOf[sk.Name] = skillGroup(rule.Roles[0])
		}
	}
	for _, g := range commandGroups() {
		root.AddGroup(&cobra.Group{ID: g.ID, Title: g.Title})
		for _, c := range g.Commands {
			groupOf[c.name] = g.ID
		}
	}
	for _, c := range root.Commands() {
		c.GroupID = groupOf[c.Name()]
	}
	// cobra adds help and completion only when the command line runs.
	root.SetHelpCommandGroupID(groupOf["help"])
	root.SetCompletionCommandGroupID(groupOf["completion"])
}
