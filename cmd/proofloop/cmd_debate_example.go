package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// debateExampleCommand prints a protocol's worked example: the generated
// debate files point at it rather than carry it, so that an agent pays for
// it only when it asks (issue 22 item 4).
func (a *app) debateExampleCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "example PROTOCOL",
		Short: "Print a protocol's worked example: a whole debate to run on a scratch root",
		Long: "example prints a whole debate of PROTOCOL (" + strings.Join(model.ProtocolNames(), ", ") + "), every turn as the engine\n" +
			"takes it, as shell lines that first point PROOFLOOP_ROOT at a scratch root, and what the last one prints.\n" +
			"It reads and writes nothing.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return store.Errorf(store.CodeUsage, "debate example takes one protocol, got %s", model.Count(len(args), "argument")).
					WithHint("e.g. proofloop debate example socratic; protocols: " + strings.Join(model.ProtocolNames(), ", "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := model.LookupProtocol(args[0])
			if err != nil {
				return store.Errorf(store.CodeInvalidInput, "%v", err).WithHint("protocols: " + strings.Join(model.ProtocolNames(), ", "))
			}
			text, err := skills.DebateExampleText(p)
			if err != nil {
				return err
			}
			if a.json {
				return a.writeJSON(map[string]any{"ok": true, "command": a.command, "protocol": p.Name,
					"id": p.Doc.Example.ID, "outcome": p.Doc.Example.Outcome, "example": string(text)})
			}
			_, err = a.stdout.Write(text)
			return err
		},
	}
}
