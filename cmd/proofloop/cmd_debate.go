package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

func (a *app) debateCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "debate start|join|turn|wait|close|show|list|transcript",
		Short: "Run a debate of one of the protocols (" + strings.Join(model.ProtocolNames(), ", ") + ") on the turn loop",
		Long: "A debate is a document of the store (debate/<id>.json) with a derived Markdown transcript\n" +
			"(.debates/YYYY-MM-DD-<slug>.md) rewritten in the same transaction as every change. The\n" +
			"protocols are data (`proofloop transitions` prints their turn fields); the engine validates\n" +
			"every turn before anything is written (exit 2 naming the field and the rule), refuses a turn out\n" +
			"of order or on a closed debate (exit 4) or under another's lease (exit 5), and decides the\n" +
			"outcome after every turn. --json results carry id, status, revision, protocol, artifact,\n" +
			"participant_id, role, participant_count, turn_number, whose_turn {closed, participant_id, role,\n" +
			"join_role, turn_number, require, advice}, candidate_convergence, mediator_needed and outcome\n" +
			"{outcome, reason, at, summary, actor} once closed.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(a.debateStartCommand(), a.debateJoinCommand(), a.debateTurnCommand(), a.debateWaitCommand(),
		a.debateCloseCommand(), a.debateShowCommand(), a.debateListCommand(), a.debateTranscriptCommand(),
		a.debateExampleCommand())
	return c
}

// debateOpts are a debate command's transaction options; its event is
// named debate-<subcommand>.
func (a *app) debateOpts(cmd *cobra.Command) store.TxOptions {
	o := a.txOptions(cmd, "")
	o.Command = "debate-" + cmd.Name()
	return o
}

// debateOK prints a debate result: its JSON keys next to ok and command, or
// one line per fact for a person.
func (a *app) debateOK(r *loop.DebateResult, text string) error {
	if a.text != nil { // the MCP server's one line
		next := "next: " + nextText(r.WhoseTurn)
		if r.Outcome != nil {
			next = "outcome: " + r.Outcome.Outcome
		}
		fmt.Fprintf(a.text, "%s %s: %s.\n", text, r.ID, next)
	}
	if a.json {
		out, err := a.okFields(r)
		if err != nil {
			return err
		}
		return a.writeJSON(out)
	}
	fmt.Fprintln(a.stdout, text)
	fmt.Fprintf(a.stdout, "%s: %s, %s, %s; transcript %s\n", r.ID, r.Status, model.Count(r.ParticipantCount, "participant"), model.Count(r.TurnNumber, "turn"), r.Artifact)
	if r.Outcome != nil {
		fmt.Fprintf(a.stdout, "outcome: %s (%s)\n", r.Outcome.Outcome, r.Outcome.Reason)
	} else {
		fmt.Fprintf(a.stdout, "next: %s\n", nextText(r.WhoseTurn))
	}
	if r.CandidateConvergence {
		fmt.Fprintln(a.stdout, "candidate convergence: both latest stances converge")
	}
	return nil
}

// okFields is a debate result's JSON keys beside ok and command: the
// object debate commands print with --json.
func (a *app) okFields(r *loop.DebateResult) (map[string]any, error) {
	raw, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	out["ok"], out["command"] = true, a.command
	return out, nil
}

func nextText(s model.TurnState) string {
	t := ""
	switch {
	case s.Closed:
		return "nobody: the debate is closed"
	case s.ParticipantID != "":
		t = fmt.Sprintf("%s (%s) writes turn %d", s.ParticipantID, s.Role, s.TurnNumber)
	default:
		t = fmt.Sprintf("%s must join (debate join)", model.A(s.JoinRole))
	}
	if s.Require != "" {
		t += "; the turn must carry " + s.Require
	}
	if s.Advice != "" {
		t += "; " + s.Advice
	}
	return t
}

func debateID(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return store.Errorf(store.CodeUsage, "debate %s takes one debate id, got %s", cmd.Name(), model.Count(len(args), "argument")).
			WithHint("e.g. proofloop debate " + cmd.Name() + " deb_example")
	}
	return nil
}

func (a *app) debateShowCommand() *cobra.Command {
	var transcript bool
	c := &cobra.Command{
		Use:   "show ID [--transcript]",
		Short: "Print a debate's state (--json: the result keys plus the document as debate), or its transcript",
		Args:  debateID,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withStore(func(s *store.Store) error {
				d, r, err := loop.ShowDebate(s, args[0])
				if err != nil {
					return err
				}
				if transcript && !a.json {
					_, err := a.stdout.Write(loop.RenderDebate(d))
					return err
				}
				if a.json {
					out, err := a.okFields(r)
					if err != nil {
						return err
					}
					out["debate"] = d
					if transcript {
						out["transcript"] = string(loop.RenderDebate(d))
					}
					return a.writeJSON(out)
				}
				if err := a.debateOK(r, d.Topic); err != nil {
					return err
				}
				if d.Research > 0 {
					fmt.Fprintf(a.stdout, "evidence pool (%s; cite an item by its id):\n", model.Count(len(d.EvidencePool), "item"))
					for _, l := range model.PoolLines(d) {
						fmt.Fprintf(a.stdout, "  %s\n", l)
					}
				}
				return nil
			})
		},
	}
	c.Flags().BoolVar(&transcript, "transcript", false, "print the Markdown transcript (with --json: as the transcript key)")
	return c
}

func (a *app) debateListCommand() *cobra.Command {
	var status string
	c := &cobra.Command{
		Use:   "list [--status open|completed|invalidated]",
		Short: "List the debates with their status, whose turn and outcome",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if status != "" {
				if err := model.OneOf("status", status, []string{"open", "completed", "invalidated"}); err != nil {
					return store.Errorf(store.CodeInvalidInput, "%v", err).WithHint("--status takes open, completed or invalidated; without it every debate is listed")
				}
			}
			return a.withStore(func(s *store.Store) error {
				rs, err := loop.ListDebates(s, model.Status(status))
				if err != nil {
					return err
				}
				if a.json {
					return a.writeJSON(map[string]any{"ok": true, "command": a.command, "debates": rs})
				}
				if len(rs) == 0 {
					fmt.Fprintln(a.stdout, "No debates.")
				}
				for _, r := range rs {
					state := nextText(r.WhoseTurn)
					if r.Outcome != nil {
						state = r.Outcome.Outcome
					}
					fmt.Fprintf(a.stdout, "%s  %s  %s  %s\n", r.ID, r.Protocol, r.Status, state)
				}
				return nil
			})
		},
	}
	c.Flags().StringVar(&status, "status", "", "only debates of this status: open, completed or invalidated")
	return c
}

func (a *app) debateTranscriptCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "transcript ID",
		Short: "Print the Markdown transcript of a debate, or a statement's check/fix thread as one",
		Args:  debateID,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withStore(func(s *store.Store) error {
				out, err := loop.Transcript(s, args[0])
				if err != nil {
					return err
				}
				if a.json {
					return a.writeJSON(map[string]any{"ok": true, "command": a.command, "id": args[0], "transcript": string(out)})
				}
				_, err = a.stdout.Write(out)
				return err
			})
		},
	}
}
