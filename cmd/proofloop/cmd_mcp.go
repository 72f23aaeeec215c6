package main

import (
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/skills"
)

// The MCP server: `proofloop mcp` serves the commands of this very binary
// as tools over stdio (mcp_server.go, mcp_tools.go), with one prompt per
// role and the documents as resources (mcp_resources.go). A tool call runs
// the CLI's own command line in-process, so it gets the same transaction,
// validation and refusals as a shell call, without the process start-up.
// It is a command of the full binary only (lean.go).
func (a *app) mcpCommand() *cobra.Command {
	var watch bool
	var role string
	c := &cobra.Command{
		Use:   "mcp [--role R] [--watch]",
		Short: "Serve the skills and loop commands as MCP tools over stdio, for agent clients",
		Long: "mcp runs a Model Context Protocol server on standard input and output. Each skill and loop\n" +
			"command is a tool whose input schema comes from the skill registry and the command's flags; a\n" +
			"call runs the same code as the CLI with --json, and a refusal is a tool result with isError\n" +
			"and the CLI's error code. --role R (default $PROOFLOOP_ROLE) offers only that role's tools:\n" +
			"its skills and " + strings.Join(skills.MCPLoopTools, ", ") + " (a debate role gets the\n" +
			"debate tools instead of skills). Admin and host commands, and a person's, are never tools:\n" +
			neverTools() + ".\nOver MCP every text argument is literal (no @FILE), and every path (a debate's source, an artifact) must lie inside the project\n" +
			"folder, the folder that holds the root. --root and --actor set the store and the default\n" +
			"actor of every call; a call may name its own actor. Prompts give each role's `prime`;\n" +
			"resources give the skill catalog, the transition table and every document as\n" +
			"proofloop://statement/<id> or proofloop://problem/<id>. With --watch, subscribed clients get\n" +
			"resources/updated notifications as the event log records changes. A malformed or oversized\n" +
			"line is answered with a JSON-RPC error and the server goes on. It ends when standard input\n" +
			"closes, after answering every request it read.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runMCP(role, watch) },
	}
	c.Flags().BoolVar(&watch, "watch", false, "send resources/updated notifications for the documents each new event changes")
	c.Flags().StringVar(&role, "role", os.Getenv("PROOFLOOP_ROLE"), "offer only the tools of role `R` (default $PROOFLOOP_ROLE; none: every tool)")
	c.Flags().Lookup("role").DefValue = ""
	return c
}
