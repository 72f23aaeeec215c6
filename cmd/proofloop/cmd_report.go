package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/store"
)

func (a *app) reportCommand() *cobra.Command {
	var problem, out, failure string
	c := &cobra.Command{
		Use:   "report [--problem P] [-o FILE] | --failure S [-o FILE]",
		Short: "Write the store as one self-contained HTML page for auditors (math offline, no network)",
		Long: `report writes one HTML file that opens from disk with no network: the problem tree
(statuses, rounds, open issues), each statement's claim and premises and its proof at every
revision with numbered sentences, each issue beside the sentence it cites, the thread of
responses, confirmations and decisions, the debates, a timeline of the events and summary
figures. Math is rendered by KaTeX, inlined in the page, to MathML. Agents' text is escaped:
raw HTML shows as text, links as text, and a Content-Security-Policy allows only the page's
own script.

-o defaults to report.html in the working folder; -o - writes to stdout. A store of more than
1000 statements under several root problems is written as a folder instead (report.html ->
report/): index.html and one page per root problem. --problem limits the report to one
problem's subtree.

--json: {"ok":true,"command":"report","path","split","pages","bytes","statements","last_seq"}.

--failure S writes instead, as Markdown (to stdout, or -o FILE), the failure analysis of a
statement that spent the round budget of its last level of escalation: what was tried at each
level and what killed it (the issues quoted, the counterexamples), each dead end's lesson, its
open issues, and what the engine suggests (extend, modify the claim, split it). --json:
{"ok":true,"command":"report","failure":{"id","level","spent","budget","tried","open_issues","suggestions"},"markdown"}.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if failure == "" {
				return a.runReport(problem, out)
			}
			if problem != "" {
				return store.Errorf(store.CodeUsage, "report takes --problem or --failure, not both").
					WithHint("--failure S analyses one statement; --problem P limits the HTML report")
			}
			if !cmd.Flags().Changed("output") {
				out = "-"
			}
			return a.withStore(func(s *store.Store) error { return a.failureReport(s, failure, out) })
		},
	}
	c.Flags().StringVar(&problem, "problem", "", "only this problem's subtree (`PROBLEM` id)")
	c.Flags().StringVar(&failure, "failure", "", "write the failure analysis of an exhausted `STATEMENT` instead (Markdown)")
	c.Flags().StringVarP(&out, "output", "o", "report.html", "write to `FILE` (- for stdout)")
	outputFlag(c, "output", "the report")
	return c
}

// failureReport writes the failure analysis of statement id to out ("-":
// stdout), or with --json as one object.
func (a *app) failureReport(s *store.Store, id, out string) error {
	id, _, err := s.ParseRef(id)
	if err != nil {
		return err
	}
	f, err := loop.FailureAnalysis(s, id)
	if err != nil {
		return err
	}
	md := f.Markdown()
	if a.json {
		tried := []map[string]any{}
		for _, t := range f.Tried {
			tried = append(tried, map[string]any{"number": t.Number, "level": t.Level, "approach": t.Approach, "killed_by": t.Killed, "lesson": t.Lesson})
		}
		open := []int{}
		for _, is := range f.Open {
			open = append(open, is.IssueNumber)
		}
		return a.writeJSON(map[string]any{"ok": true, "command": "report", "markdown": md, "failure": map[string]any{"id": id,
			"level": f.Step.Level, "spent": f.Step.Spent, "budget": f.Step.Budget, "tried": tried, "open_issues": open, "suggestions": f.Suggest}})
	}
	if out == "-" {
		_, err := io.WriteString(a.stdout, md)
		return err
	}
	if err := os.WriteFile(out, []byte(md), 0o644); err != nil {
		return store.Errorf(store.CodeInvalidInput, "cannot write %s", out).Wrap(err)
	}
	_, err = fmt.Fprintf(a.stdout, "Wrote the failure analysis of %s to %s.\n", id, out)
	return err
}
