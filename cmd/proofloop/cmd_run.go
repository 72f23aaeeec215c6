package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/proofloop/proofloop/eval"
	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
	"github.com/proofloop/proofloop/store/doctor"
)

func (a *app) runCommand() *cobra.Command {
	var o loop.RunOptions
	c := &cobra.Command{
		Use:   "run [--problem ID] [-j N] [--max-turns N] [--turn-timeout D]",
		Short: "Drive the loop with the agent commands of config.json until solved, stuck or out of turns",
		Long:  runHelp(),
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := o.Check(); err != nil {
				return err
			}
			return a.withStore(func(s *store.Store) error {
				if o.Problem != "" {
					var err error
					if o.Problem, _, err = s.ParseRef(o.Problem); err != nil {
						return err
					}
				}
				ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
				defer stop()
				if a.json {
					o.Events = a.stdout
				} else {
					o.Progress, o.LiveWidth = a.stderr, liveWidth(a.stderr)
				}
				o.Self, _ = os.Executable()
				cfg, err := s.Config()
				if err != nil {
					return err
				}
				// Canaries: planted when config.json has them; what a killed
				// run left is settled either way, before the first turn.
				if o.Canaries, err = eval.NewCanaries(s, cfg, a.actor, a.stderr); err != nil {
					return err
				}
				sum, err := loop.Run(ctx, s, o)
				if sum == nil {
					return err
				}
				if !a.json {
					a.printRunSummary(sum)
				}
				if err != nil {
					// The summary rides on the error object; its text was
					// printed above, so the report adds none.
					return &withReport{err, map[string]any{"event": "summary", "summary": sum}, &doctor.Report{}}
				}
				if a.json {
					return a.writeJSON(map[string]any{"ok": true, "command": "run", "event": "summary", "summary": sum})
				}
				return nil
			})
		},
	}
	c.Flags().StringVar(&o.Problem, "problem", "", "drive only the root problem `ID`")
	c.Flags().IntVarP(&o.Jobs, "jobs", "j", 1, "turns to run at once (at least 1)")
	c.Flags().IntVar(&o.MaxTurns, "max-turns", 200, "stop after this many turns (0: no limit)")
	c.Flags().Float64Var(&o.MaxCostUSD, "max-cost-usd", 0, "stop (exit 8 budget_spent) once the turns' reported usage costs this many US dollars (0: no limit)")
	c.Flags().DurationVar(&o.TurnTimeout, "turn-timeout", 10*time.Minute, "kill an agent that runs longer (positive)")
	return c
}

// runHelp is run's long help. Its exit codes come from skills.ExitCodes,
// the one table the CLI maps errors with.
func runHelp() string {
	var b strings.Builder
	b.WriteString(`run claims actionable items and starts the agent of each one's role (config.json agents.solve,
agents.prove, agents.check, agents.fix, and optionally agents.decide) with sh -c, in a process
group of its own, with PROOFLOOP_ROOT, PROOFLOOP_ROLE, PROOFLOOP_ID, PROOFLOOP_LEASE and
PROOFLOOP_ACTOR set. When a turn ends (the agent exits, fails, passes --turn-timeout, or the run
is interrupted), whatever is left of its process group is killed and its lease released. A turn
that changed nothing counts against the item's budget. A role whose agent fails
max_agent_failures turns in a row (config.json, default 3) is given up, with the last lines of
its stderr. run stops when the problem is solved, at --max-turns, or when nothing is actionable
while nothing runs, and then says what is left and why. --problem takes a root problem only.

Debates are items too: agents.<debate role> (participant, reviewer, responder, main, partner,
mediator, or an agora position's role) runs a debate's turns, with PROOFLOOP_KIND=debate and
PROOFLOOP_PARTICIPANT_ID set when a participant writes next, or PROOFLOOP_JOIN_ROLE and
PROOFLOOP_PARTICIPANT_NAME when the debate needs a joiner first (the agent then runs
"proofloop debate join $PROOFLOOP_ID --participant-name $PROOFLOOP_PARTICIPANT_NAME"). With no
problem in the store, a run whose debates are all closed ends "done" (exit 0).

Progress goes to stderr: a line when each turn starts (its number, in start order, role, item and
agent command) and ends (exit code, duration, status before -> after or "changed nothing"), and on
a terminal a live line with the elapsed time and the turns in flight. A summary ends on stdout.
Each turn's output is kept in runs/<run-id>/NNNN-role-id.log under the root, ending with a line
"# turn N ended: OUTCOME, exit CODE, DURATION"; runs/ keeps the last keep_runs runs (config.json,
default 20).

With --json, stdout is JSON Lines: {"event":"turn_started","run_id","turn","role","id","kind",
"reason","agent","actor","log","time"}; {"event":"turn_ended","run_id","turn","role","id",
"outcome" (ok, failed, timeout, interrupted, not_started),"exit_code" (null when killed),
"duration_ms","status_before","status_after","changed","idle","time"};
{"event":"agent_given_up","run_id","role","agent","failures","last_outcome","last_exit_code",
"stderr_tail","time"}; and last the result object {"event":"summary","ok","command":"run",
"summary":{...}}, with "error":{"code","message","hint"} when the run did not end solved.

Exit codes:
  0    solved
`)
	rows := []struct {
		codes   []store.Code
		meaning string // "" for the table's
	}{
		{[]store.Code{store.CodeUsage, store.CodeInvalidInput}, "a bad flag (-j below 1, --turn-timeout not positive), --problem not a root problem, or no agents in config.json; nothing was written"},
		{[]store.Code{store.CodeNotFound}, "no such --problem, or no contents root"},
		{[]store.Code{store.CodeLeaseHeld}, "everything left to do is leased by others (another run, a person): the message names each item, its holder and until when; retry later"},
		{[]store.Code{store.CodeStoreDamaged}, "the store is damaged (an agent may have damaged it); the turn's lease was released all the same"},
		{[]store.Code{loop.CodeStuck}, ""},
		{[]store.Code{loop.CodeMaxTurns}, ""},
		{[]store.Code{loop.CodeBudgetSpent}, ""},
		{[]store.Code{loop.CodeInterrupted}, ""},
	}
	for _, row := range rows {
		names := make([]string, len(row.codes))
		for i, c := range row.codes {
			names[i] = string(c)
		}
		meaning := row.meaning
		for _, e := range skills.ExitCodes {
			if meaning == "" && e.Code == row.codes[0] {
				meaning = strings.TrimPrefix(e.Meaning, "run only: ")
			}
		}
		prefix := fmt.Sprintf("  %-4d ", skills.ExitOf(row.codes[0]))
		pad := strings.Repeat(" ", len(prefix))
		b.WriteString(prefix + strings.Join(wrap(strings.Join(names, ", ")+": "+meaning, 100-len(prefix), ""), "\n"+pad) + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// liveWidth is the width of the terminal w is, or 0 when it is not one: the
// live line is drawn on terminals only.
func liveWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 0 {
		return width
	}
	return 80
}

// printRunSummary prints a run's summary for a person.
func (a *app) printRunSummary(sum *loop.RunSummary) {
	outcome := map[string]string{
		"solved": "solved", "done": "done: every debate is closed", "stuck": "stuck", "max_turns": "out of turns", "budget_spent": "out of budget",
		"lease_held": "everything left is leased by others", "interrupted": "interrupted",
	}[sum.Outcome]
	if outcome == "" {
		outcome = "stopped (" + sum.Outcome + ")"
	}
	debateTurns := 0
	for _, d := range sum.Debates {
		debateTurns += d.Turns
	}
	if sum.Outcome == "solved" && sum.Turns > 0 && debateTurns == sum.Turns {
		// Only debates ran: the problems were solved before the run.
		outcome = "debates done (the problems were already solved)"
	}
	var counts []string
	for _, k := range []string{loop.TurnOK, loop.TurnFailed, loop.TurnTimeout, loop.TurnInterrupted, loop.TurnNotStarted} {
		if n := sum.ByOutcome[k]; n > 0 || k == loop.TurnOK {
			counts = append(counts, fmt.Sprintf("%d %s", n, strings.ReplaceAll(k, "_", " ")))
		}
	}
	logs := "no turn ran"
	if sum.Logs != "" {
		logs = "logs in " + strings.TrimSuffix(a.root, "/") + "/" + sum.Logs
	}
	fmt.Fprintf(a.stdout, "Run %s: %s after %s in %s (%s; %d idle); %s.\n", sum.RunID, outcome,
		model.Count(sum.Turns, "turn"), (time.Duration(sum.ElapsedMS) * time.Millisecond).Round(10*time.Millisecond), strings.Join(counts, ", "), sum.Idle, logs)
	for i, d := range sum.Debates {
		if i == 0 {
			fmt.Fprintln(a.stdout, "Debates:")
		}
		how := d.Status
		if d.Outcome != "" {
			how += ", " + d.Outcome
		}
		if d.Reason != "" {
			how += ": " + d.Reason
		}
		fmt.Fprintf(a.stdout, "  %s (%s, %s in this run): %s\n", d.ID, d.Protocol, model.Count(d.Turns, "turn"), how)
	}
	a.printCanaries(sum)
	if sum.Outcome == "solved" || sum.Outcome == loop.OutcomeDone {
		return
	}
	if len(sum.Stuck) == 0 {
		fmt.Fprintln(a.stdout, "Left: nothing actionable.")
	}
	for i, st := range sum.Stuck {
		if i == 0 {
			fmt.Fprintln(a.stdout, "Left:")
		}
		role := "nobody"
		if st.Role != "" {
			role = string(st.Role)
		}
		fmt.Fprintf(a.stdout, "  %s (%s): %s\n", st.ID, role, st.Reason)
	}
	for i, l := range sum.Leased {
		if i == 0 {
			fmt.Fprintln(a.stdout, "Leased by others:")
		}
		fmt.Fprintf(a.stdout, "  %s (%s) to %s until %s\n", l.ID, l.Role, l.Holder, l.ExpiresAt)
	}
	for i, g := range sum.GivenUp {
		if i == 0 {
			fmt.Fprintln(a.stdout, "Given up:")
		}
		fmt.Fprintf(a.stdout, "  the %s agent (%s), after %s in a row:\n", g.Role, g.Agent, model.Count(g.Failures, "failure"))
		for _, l := range g.StderrTail {
			fmt.Fprintf(a.stdout, "    %s\n", l)
		}
	}
}

// printCanaries lists the canaries the run settled; a checker that
// confirmed a flawed one, or a prover that proved a false one, is named
// on a line of its own first.
func (a *app) printCanaries(sum *loop.RunSummary) {
	if len(sum.Canaries) == 0 {
		return
	}
	n := "1 canary"
	if len(sum.Canaries) != 1 {
		n = fmt.Sprintf("%d canaries", len(sum.Canaries))
	}
	fmt.Fprintf(a.stdout, "Canaries: %s settled and withdrawn.\n", n)
	for _, rec := range sum.Canaries {
		if rec.Counts.MissedFlawed+rec.Counts.ProvedFalse > 0 {
			what := "confirmed a canary's flawed proof"
			if rec.Counts.ProvedFalse > 0 {
				what = "submitted a proof of a canary's false claim"
			}
			who := cmp.Or(rec.Actor, rec.Label, "nobody")
			var as []string
			if rec.Agent != "" {
				as = append(as, "agent "+rec.Agent)
			}
			if rec.Model != "" {
				as = append(as, "model "+rec.Model)
			}
			if len(as) > 0 {
				who += " (" + strings.Join(as, ", ") + ")"
			}
			fmt.Fprintf(a.stdout, "  %s %s (%s).\n", who, what, rec.Canary.Statement)
		}
	}
	for _, rec := range sum.Canaries {
		fmt.Fprintf(a.stdout, "  %s\n", loop.CanaryText(rec))
	}
}
