package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/examples"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
	"github.com/proofloop/proofloop/store/doctor"
	"github.com/proofloop/proofloop/store/pgstore"
)

func (a *app) initCommand() *cobra.Command {
	var example string
	c := &cobra.Command{
		Use:   "init [--example DIR]",
		Short: "Create a contents root with problem/, statement/ and config.json, or a copy of the example project",
		Long: "init creates an empty contents root at --root; on an existing root it changes nothing.\n\n" +
			"init --example DIR writes a fresh copy of the example project into DIR, which must be new or\n" +
			"empty: the problem prob_odd_squares, and a config.json whose agents are the scripted agents\n" +
			"inside the binary (`proofloop example-agent ROLE`), so that `proofloop run --root DIR` drives\n" +
			"it to solved from any folder. The copy comes from the binary, so it is the same every time.",
		Example: "  proofloop init\n  proofloop init --example /tmp/odd-squares",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if example != "" {
				return a.initExample(cmd, example)
			}
			if a.storeURL != "" {
				return a.initBackend()
			}
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
	c.Flags().StringVar(&example, "example", "", "write a fresh copy of the example project into `DIR` (new, empty, or holding only a README.md) instead")
	return c
}

func (a *app) initExample(cmd *cobra.Command, dir string) error {
	if cmd.Flags().Changed("root") && a.root != dir {
		return store.Errorf(store.CodeUsage, "init --example %s with --root %s: give the folder once", dir, a.root).
			WithHint("init --example DIR writes the example into DIR")
	}
	if a.storeURL != "" {
		return a.initExampleBackend(dir)
	}
	files, err := examples.WriteProject(dir)
	if err != nil {
		return err
	}
	// Build the derived index now, so the first command on the copy does
	// not announce that it is missing.
	s, err := store.Open(dir)
	if err != nil {
		return err
	}
	_, err = s.Reindex()
	s.Close()
	if err != nil {
		return err
	}
	r := &skills.Result{Created: []skills.Created{}}
	for _, f := range files {
		if kind, file, ok := strings.Cut(f, "/"); ok && (kind == "problem" || kind == "statement") {
			r.Created = append(r.Created, skills.Created{ID: strings.TrimSuffix(file, ".json"), Path: f})
		}
	}
	var ids []string
	for _, c := range r.Created {
		ids = append(ids, c.ID)
	}
	r.Text = fmt.Sprintf("Wrote the example project to %s (%s). `proofloop run --root %s` drives it to solved with the scripted agents inside the binary (`proofloop example-agent ROLE`).",
		dir, strings.Join(ids, ", "), dir)
	r.Extra = map[string]any{"root": dir, "initialized": true, "example": true, "files": files}
	return a.ok(r)
}

// initBackend makes an empty store in the PostgreSQL database of --store.
func (a *app) initBackend() error {
	b, err := pgstore.Open(a.storeURL)
	if err != nil {
		return err
	}
	defer b.Close()
	made, err := store.InitBackend(b)
	if err != nil {
		return err
	}
	s, err := store.OpenBackend(a.root, b)
	if err != nil {
		return err
	}
	if _, err := s.Reindex(); err != nil {
		return err
	}
	r := &skills.Result{Text: fmt.Sprintf("Created an empty store in %s; %s is this machine's folder for run logs.", b, a.root)}
	if !made {
		r.Text = fmt.Sprintf("%s already holds a store; nothing changed.", b)
	}
	r.Extra = map[string]any{"root": a.root, "store": b.String(), "initialized": made}
	return a.ok(r)
}

// initExampleBackend loads the example project into the empty PostgreSQL
// store of --store: it is written to a temporary file store and imported.
func (a *app) initExampleBackend(dir string) error {
	tmp, err := os.MkdirTemp("", "proofloop-example-")
	if err != nil {
		return store.Errorf(store.CodeInternal, "init --example").Wrap(err)
	}
	defer os.RemoveAll(tmp)
	if _, err := examples.WriteProject(filepath.Join(tmp, "contents")); err != nil {
		return err
	}
	b, err := pgstore.Open(a.storeURL)
	if err != nil {
		return err
	}
	defer b.Close()
	ir, err := store.Import(b, filepath.Join(tmp, "contents"), doctor.Passes)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return store.Errorf(store.CodeInvalidInput, "cannot create %s", dir).Wrap(err)
	}
	return a.ok(&skills.Result{
		Text: fmt.Sprintf("Loaded the example project (%s) into %s; %s is this machine's folder for run logs. `proofloop run --root %s` drives it to solved with the scripted agents inside the binary (`proofloop example-agent ROLE`).",
			plural(ir.Documents, "document", "documents"), b, dir, dir),
		Extra: map[string]any{"root": dir, "store": b.String(), "initialized": true, "example": true},
	})
}

// noArgs refuses positional arguments with a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return store.Errorf(store.CodeUsage, "%s takes no arguments, got %q", cmd.Name(), args).WithHint(usageHint(cmd, fmt.Errorf("unknown command %q", args[0])))
	}
	return nil
}

// oneID asks for exactly one document id.
func oneID(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return store.Errorf(store.CodeUsage, "%s takes one document id, got %s", cmd.Name(), model.Count(len(args), "argument")).
			WithHint("e.g. proofloop " + cmd.Name() + " stmt_example_wrap")
	}
	return nil
}
