package main

import (
	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
)

// The sections of `proofloop --help`. The skills come first, one section
// per role, from the registry; then the sections below, in order. A new
// command gets its section by adding its name to one line here; a test
// fails while a command has none.
var commandGroups = []struct {
	ID, Title string
	Commands  []string
}{
	{"loop", "The turn loop:", []string{"status", "next", "list", "claim", "refresh", "release", "run", "guide", "decide"}},
	{"debates", "Debates:", []string{"debate"}},
	{"audit", "Audit:", []string{"show", "events", "history", "graph", "report", "serve"}},
	{"setup", "Setup and agents:", []string{"init", "new-problem", "doctor", "export", "import", "db", "config", "gen-claude", "example-agent", "mcp", "skills", "prime", "transitions", "version", "completion", "help"}},
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
	for _, g := range commandGroups {
		root.AddGroup(&cobra.Group{ID: g.ID, Title: g.Title})
		for _, name := range g.Commands {
			groupOf[name] = g.ID
		}
	}
	for _, c := range root.Commands() {
		c.GroupID = groupOf[c.Name()]
	}
	// cobra adds help and completion only when the command line runs.
	root.SetHelpCommandGroupID(groupOf["help"])
	root.SetCompletionCommandGroupID(groupOf["completion"])
}
