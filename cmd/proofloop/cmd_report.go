package main

import "github.com/spf13/cobra"

func (a *app) reportCommand() *cobra.Command {
	var problem, out string
	c := &cobra.Command{
		Use:   "report [--problem P] [-o FILE]",
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

--json: {"ok":true,"command":"report","path","split","pages","bytes","statements","last_seq"}.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.runReport(problem, out) },
	}
	c.Flags().StringVar(&problem, "problem", "", "only this problem's subtree (`PROBLEM` id)")
	c.Flags().StringVarP(&out, "output", "o", "report.html", "write to `FILE` (- for stdout)")
	outputFlag(c, "output", "the report")
	return c
}
