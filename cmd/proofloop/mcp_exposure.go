package main

import (
	"maps"
	"slices"
	"strings"
)

// mcpExposure is the one place that says which commands are MCP tools and
// how they behave. Every command of the cobra tree is a tool unless it is
// hidden here or is a group of subcommands (such as debate, whose bare form
// only prints help), so a command added later is served without an edit; a
// reader must be listed in readOnly to get the hint. Admin and host
// operations are never tools: an agent must not migrate, import, repair,
// configure, or end another's lease (release --force).
var mcpExposure = struct {
	hidden     map[string]string   // command path -> why it is not a tool
	readOnly   map[string]bool     // changes nothing in the store
	idempotent map[string]bool     // a repeat has no further effect
	noFlags    map[string][]string // flags a tool does not offer
}{
	hidden: map[string]string{
		"mcp":           "the server itself",
		"run":           "long-running: it starts agent processes",
		"init":          "creates a store; the server serves one that exists",
		"completion":    "shell completion scripts",
		"gen":           "writes the agent CLIs' files outside the store",
		"gen-claude":    "writes files outside the store",
		"help":          "cobra's help; the tools carry their descriptions",
		"version":       "the server reports its version at initialize",
		"doctor":        "repairs the store: a person's job, not an agent's",
		"config":        "settings belong to the person who runs the project",
		"guide":         "guidance to the agents is a person's word",
		"report":        "writes an HTML file outside the store; a person reads it",
		"serve":         "long-running: an HTTP server",
		"export":        "writes a new store outside this one; a backup is a person's job",
		"db":            "database migrations: the database owner's job",
		"import":        "reads a store from the server's disk into this one: a person's job",
		"example-agent": "runs a shell script: run starts agents, tools do not",
		"eval":          "measures agents on labelled sets: a person's measurement, never an agent's",
		"eval-agent":    "a scripted agent: run starts agents, tools do not",
	},
	readOnly: map[string]bool{
		"status": true, "show": true, "list": true, "events": true,
		"skills": true, "transitions": true, "prime": true,
		"history": true, "graph": true,
		"debate show": true, "debate list": true, "debate transcript": true, "debate wait": true, "debate example": true,
	},
	// release: a second release of the same lease changes nothing more.
	// refresh is not idempotent: each call moves the expiry from now.
	idempotent: map[string]bool{"release": true},
	noFlags: map[string][]string{
		"events":  {"follow"}, // a tool call returns; --follow never would
		"release": {"force"},  // ends another's lease: a person's or run's job
	},
}

// neverTools names, for mcp's help, what the server never offers: each
// hidden command (but cobra's help) and each flag a tool leaves out
// ("release --force"), from mcpExposure, the list the server itself
// reads.
func neverTools() string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(mcpExposure.hidden)) {
		if name != "help" {
			out = append(out, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(mcpExposure.noFlags)) {
		for _, f := range mcpExposure.noFlags[name] {
			out = append(out, name+" --"+f)
		}
	}
	return strings.Join(out, ", ")
}
