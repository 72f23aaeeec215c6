package main

import (
	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

func (a *app) initCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create a contents root with problem/, statement/ and config.json",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			made, err := store.Init(a.root)
			if err != nil {
				return err
			}
			r := &skills.Result{Text: "Created the contents root " + a.root + "."}
			if !made {
				r.Text = a.root + " already is a contents root; nothing changed."
			}
			r.Extra = map[string]any{"root": a.root, "initialized": made}
			return a.ok(r)
		},
	}
}

// noArgs refuses positional arguments with a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return store.Errorf(store.CodeUsage, "%s takes no arguments, got %q", cmd.Name(), args)
	}
	return nil
}

// oneID asks for exactly one document id.
func oneID(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return store.Errorf(store.CodeUsage, "%s takes one document id, got %d arguments", cmd.Name(), len(args)).
			WithHint("e.g. proofloop " + cmd.Name() + " stmt_example_wrap")
	}
	return nil
}
