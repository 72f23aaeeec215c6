package main

import (
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/eval"
	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// evalOptions are eval's flags.
type evalOptions struct {
	role     string
	set      string
	shipped  bool
	agents   []string
	jobs     int
	timeout  time.Duration
	noRecord bool
}

func (a *app) evalCommand() *cobra.Command {
	var o evalOptions
	c := &cobra.Command{
		Use:   "eval --role check|prove (--set FILE | --shipped) [--agent NAME ...] [-j N] [--no-record]",
		Short: "Measure a role's agents on a labelled set: catch rate, false rejects, located errors, with 95% intervals",
		Long: "eval runs each agent of --role that config.json names (the commands run starts) on every item of\n" +
			"a labelled set that measures the role: check on correct and flawed proofs, prove on false\n" +
			"claims. Each item is put up in a fresh scratch root of its own, as a person puts up a claim or a\n" +
			"proof to check, and the agent takes one turn on it, as in `proofloop run`; what it did is read\n" +
			"from the statement after. -j N runs N items at once. Progress goes to stderr, the table to\n" +
			"stdout (--json: one object). Each rate comes with its 95% Wilson interval.\n\n" +
			"check: accepted (correct proofs confirmed), rejected (correct proofs rejected: false rejects),\n" +
			"caught (flawed proofs rejected), missed (flawed proofs confirmed: false accepts), located (a\n" +
			"rejection that cites a flawed sentence). prove: proved (a proof submitted of a false claim),\n" +
			"shown false, changed (a proposed modification). No verdict: the agent did none of these.\n\n" +
			"The figures are recorded in the project (checkers.jsonl, an eval event) for `status --checkers`\n" +
			"and verify_min_reliability, unless --no-record. A labelled set is JSON Lines\n" +
			"(docs/eval.md); --shipped takes the one in the binary. eval is a person's command: it is refused\n" +
			"in a turn of `proofloop run` and under a lease, and it is no MCP tool.",
		Example: "  proofloop eval --role check --shipped -j 2\n" +
			"  proofloop eval --role check --set ~/canaries/flawed.jsonl --agent opus --json",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runEval(cmd, o)
		},
	}
	c.Flags().StringVar(&o.role, "role", "", "the role to measure: check or prove")
	c.Flags().StringVar(&o.set, "set", "", "the labelled set, a JSON Lines `FILE` (docs/eval.md)")
	c.Flags().BoolVar(&o.shipped, "shipped", false, "use the labelled set shipped in the binary (42 items of the project's own)")
	c.Flags().StringArrayVar(&o.agents, "agent", nil, "measure only the agent of config.json called `NAME` (repeat for several)")
	c.Flags().IntVarP(&o.jobs, "jobs", "j", 1, "items to run at once (at least 1)")
	c.Flags().DurationVar(&o.timeout, "turn-timeout", 10*time.Minute, "kill an agent that runs longer on one item (positive)")
	c.Flags().BoolVar(&o.noRecord, "no-record", false, "print the figures only: write nothing to the project")
	c.AddCommand(a.evalImportCommand())
	return c
}

func (a *app) runEval(cmd *cobra.Command, o evalOptions) error {
	if err := a.personOnly("eval"); err != nil {
		return err
	}
	role := model.Role(o.role)
	switch {
	case role != model.RoleCheck && role != model.RoleProve:
		return store.Errorf(store.CodeUsage, "--role must be check or prove, got %q", o.role).
			WithHint("check is measured on correct and flawed proofs, prove on false claims")
	case (o.set == "") == !o.shipped:
		return store.Errorf(store.CodeUsage, "give --set FILE or --shipped, one of them").
			WithHint("--shipped is the set in the binary; --set reads your own (docs/eval.md)")
	case o.jobs < 1:
		return store.Errorf(store.CodeUsage, "-j must be at least 1, got %d", o.jobs)
	case o.timeout <= 0:
		return store.Errorf(store.CodeUsage, "--turn-timeout must be positive, got %s", o.timeout)
	}
	return a.withStore(func(s *store.Store) error {
		cfg, err := s.Config()
		if err != nil {
			return err
		}
		agents, err := evalAgents(cfg, role, o.agents)
		if err != nil {
			return err
		}
		set := eval.Shipped()
		if !o.shipped {
			if set, err = eval.ReadSet(o.set, cfg.MaxInputBytes); err != nil {
				return err
			}
		}
		ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		self, _ := os.Executable()
		rep, err := eval.Run(ctx, set, eval.Options{Role: role, Agents: agents, Jobs: o.jobs, TurnTimeout: o.timeout, Self: self, Progress: a.stderr})
		if err == nil && ctx.Err() != nil {
			err = store.Errorf(loop.CodeInterrupted, "eval was interrupted: nothing was recorded")
		}
		if err != nil {
			return err
		}
		if !o.noRecord {
			if err := eval.Record(s, rep, a.actor); err != nil {
				return err
			}
		}
		if a.json {
			return a.writeJSON(map[string]any{"ok": true, "command": "eval", "recorded": !o.noRecord, "report": rep})
		}
		eval.WriteTable(a.stdout, rep)
		return nil
	})
}

// evalAgents are the agents of role that names pick (every one when none).
func evalAgents(cfg store.Config, role model.Role, names []string) (store.Agents, error) {
	all, _ := cfg.Agents.For("", string(role))
	if len(all) == 0 {
		return nil, store.Errorf(store.CodeInvalidInput, "config.json has no %s agent to measure", role).
			WithHint(fmt.Sprintf("give the role an agent: `proofloop config set agents.%s CMD`", role))
	}
	if len(names) == 0 {
		return all, nil
	}
	var out store.Agents
	var known []string
	for _, a := range all {
		known = append(known, a.Name)
	}
	for _, n := range names {
		i := slices.IndexFunc(all, func(a store.Agent) bool { return a.Name == n })
		if i < 0 {
			return nil, store.Errorf(store.CodeInvalidInput, "config.json has no %s agent called %q", role, n).
				WithHint("its " + string(role) + " agents are called " + strings.Join(known, ", "))
		}
		out = append(out, all[i])
	}
	return out, nil
}

func (a *app) evalImportCommand() *cobra.Command {
	var format string
	c := &cobra.Command{
		Use:   "import FILE --format opc",
		Short: "Convert an Open Proof Corpus problem file into a labelled set, on stdout",
		Long: "eval import reads an Open Proof Corpus problem file (problem_id, problem, attempts; one problem\n" +
			"or an array of them) and prints one labelled item per judged attempt, as JSON Lines: correct when\n" +
			"the judge found no issue, flawed at the sentences (numbered by proofloop's splitter) that its\n" +
			"issues' code-point spans overlap. The findings are a judge model's, not people's, and each item's\n" +
			"source says so. An issue without offsets, or whose span lies outside the proof's sentences, is\n" +
			"skipped with a warning on stderr, never guessed; an attempt with no located issue is skipped too.",
		Example: "  proofloop eval import --format opc 2016_10.json > opc.jsonl",
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if err := a.personOnly("eval import"); err != nil {
				return err
			}
			if format != "opc" {
				return store.Errorf(store.CodeUsage, "--format must be opc, got %q", format).
					WithHint("opc is the Open Proof Corpus's problem files, the one format eval import reads")
			}
			f, err := os.Open(args[0])
			if err != nil {
				return store.Errorf(store.CodeInvalidInput, "cannot read %s: %v", args[0], err)
			}
			defer f.Close()
			raw, err := skills.ReadCapped(f, 1<<30, args[0])
			if err != nil {
				return err
			}
			lines, warnings, err := eval.ImportOPCLines(raw)
			for _, w := range warnings {
				fmt.Fprintf(a.stderr, "warning: %s\n", w)
			}
			if err != nil {
				return err
			}
			_, err = a.stdout.Write(lines)
			return err
		},
	}
	c.Flags().StringVar(&format, "format", "", "the file's format: opc (the Open Proof Corpus)")
	return c
}
