package main

import (
	"bufio"
	"fmt"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// bigTree is the size past which the plain status summarises instead of
// printing every line of the tree (--all prints it anyway).
const bigTree = 500

func (a *app) statusCommand() *cobra.Command {
	var problem string
	var cost, checkers bool
	var all bool
	c := &cobra.Command{
		Use:   "status [ID] [--problem P] [--all]",
		Short: "Show the tree of problems and statements: status, whose turn, round, open issues, lease holder",
		Long: "status prints the tree of problems and statements with each item's status, the role to act and\n" +
			"why, its round, open issues and lease holder. With ID (or --problem P) it prints only that\n" +
			"item and what lies below it, reading only that part of the index.\n\n" +
			"A tree of more than 500 items is summarised: counts by status first, then the actionable and\n" +
			"the stuck items; --all prints every line. --json always lists every item.\n\n" +
			"Each line reads `ID [status] -> ROLE: WHY` when it is ROLE's turn (WHY says what ROLE must do),\n" +
			"or `ID [status] (WHY)` when it is nobody's turn and WHY adds to the status: what the item waits\n" +
			"on (its sub-statements, its wrap-up statements, a dispute) or how a debate ended. A finished\n" +
			"item (true, false, solved) has no parenthesis. Then its round, its level of escalation once it\n" +
			"climbed past revise (`level replan`), open issues and lease holder.\n" +
			"A true statement's status says what stands behind it: `[true: kernel-checked]` (a proof checker\n" +
			"accepted its confirmed formalization's proof) or `[true: agents' word]`, the weakest of what it\n" +
			"relies on; a solved problem's says `formally verified` when every claim it rests on is kernel-checked.",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return store.Errorf(store.CodeUsage, "status takes at most one id, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.oneShot {
				// It holds the whole tree until it is written: what the
				// collector would free, the exit frees.
				defer pauseGC(statusHeap)()
			}
			return a.withStore(func(s *store.Store) error {
				if cost {
					return a.statusCost(cmd, s, problem)
				}
				if checkers {
					return a.statusCheckers(s)
				}
				top := problem
				if len(args) == 1 {
					if top != "" {
						return store.Errorf(store.CodeUsage, "give an ID or --problem, not both")
					}
					top = args[0]
				}
				snap, err := treeSnapshot(s, top)
				if err != nil {
					return err
				}
				items, depths := treeOrder(snap)
				if err := loop.Proved(s, items); err != nil {
					return err
				}
				if problem == "" {
					for _, d := range snap.Debates {
						if it, ok := snap.Items[d]; ok {
							items, depths[d] = append(items, it), 0
						}
					}
				}
				if a.json {
					return writeStatusJSON(a.stdout, items)
				}
				if len(items) == 0 {
					fmt.Fprintln(a.stdout, "No problems yet: start one with `proofloop new-problem`.")
					return nil
				}
				if len(items) > bigTree && !all {
					a.summary(snap, items)
					return nil
				}
				for _, it := range items {
					fmt.Fprintf(a.stdout, "%s%s\n", strings.Repeat("  ", depths[it.ID]), statusLine(it))
				}
				return nil
			})
		},
	}
	c.Flags().StringVar(&problem, "problem", "", "only this problem and what lies below it")
	c.Flags().BoolVar(&all, "all", false, "print every line of a large tree instead of a summary")
	c.Flags().BoolVar(&cost, "cost", false, "what the agents' turns cost (run-usage events): per problem, role, agent and model")
	c.Flags().BoolVar(&checkers, "checkers", false, "each agent's measured record (settled canaries, eval runs) and where it stands against verify_min_reliability")
	return c
}

// writeStatusJSON writes status --json: {"command":"status","items":[...],
// "ok":true} and a newline, what writeJSON writes of that map. It streams:
// each item is encoded into the output as it comes, so a 100k-item tree is
// never held a second time as one encoded value. json/v2's engine encodes
// about twice as fast as encoding/json; with v1's options (omitempty, nil
// slices, sorted map keys) and no HTML escaping the bytes are
// encoding/json's (TestStatusJSONStreamed).
func writeStatusJSON(out io.Writer, items []*loop.Item) error {
	// The encoder flushes every few kilobytes: at 100k items that was 14,500
	// writes of 3 KB into a pipe (45 MB); a buffer of 256 KB makes them 175.
	w := bufio.NewWriterSize(out, 256<<10)
	opts := []jsonv2.Options{jsonv1.DefaultOptionsV1(), jsontext.EscapeForHTML(false)}
	enc := jsontext.NewEncoder(w, opts...)
	for _, t := range []jsontext.Token{jsontext.BeginObject, jsontext.String("command"), jsontext.String("status"), jsontext.String("items"), jsontext.BeginArray} {
		if err := enc.WriteToken(t); err != nil {
			return err
		}
	}
	for _, it := range items {
		if err := jsonv2.MarshalEncode(enc, it, opts...); err != nil {
			return err
		}
	}
	for _, t := range []jsontext.Token{jsontext.EndArray, jsontext.String("ok"), jsontext.True, jsontext.EndObject} {
		if err := enc.WriteToken(t); err != nil {
			return err
		}
	}
	return w.Flush() // the encoder ended the top-level value with a newline
}

// treeOrder lists a snapshot's items depth first from its roots, with each
// one's depth below its root.
func treeOrder(snap *loop.Snapshot) ([]*loop.Item, map[string]int) {
	items := []*loop.Item{}
	depths := map[string]int{}
	var walk func(id string, depth int)
	walk = func(id string, depth int) {
		it, ok := snap.Items[id]
		if !ok {
			return
		}
		items = append(items, it)
		depths[id] = depth
		for _, c := range it.Children {
			walk(c, depth+1)
		}
	}
	for _, r := range snap.Roots {
		walk(r, 0)
	}
	return items, depths
}

// summary prints a large tree as counts, then the items that need someone.
func (a *app) summary(snap *loop.Snapshot, items []*loop.Item) {
	counts := map[string]int{}
	for _, it := range items {
		counts[string(it.Kind)+" "+string(it.Status)]++
	}
	fmt.Fprintf(a.stdout, "%d items (the tree is summarised; --all prints every line):\n", len(items))
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range counts {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Fprintf(a.stdout, "  %-40s %d\n", k, counts[k])
	}
	var act, stuck []*loop.Item
	for _, it := range snap.Actionable("", "") {
		if it.Outcome == model.OutcomeExhausted || it.Role == model.RoleDecide {
			stuck = append(stuck, it)
		} else {
			act = append(act, it)
		}
	}
	a.listSome("Actionable", act)
	a.listSome("Waiting for a decision", stuck)
}

// summaryItems is how many items of each list a summary prints.
const summaryItems = 20

// listSome prints a summary's list: its count by role, then its first
// items (deepest first); `next` lists the rest.
func (a *app) listSome(title string, items []*loop.Item) {
	byRole := map[model.Role]int{}
	for _, it := range items {
		byRole[it.Role]++
	}
	var roles []string
	for _, r := range slices.Sorted(maps.Keys(byRole)) {
		roles = append(roles, fmt.Sprintf("%s %d", r, byRole[r]))
	}
	if len(items) == 0 {
		fmt.Fprintf(a.stdout, "%s: none.\n", title)
		return
	}
	fmt.Fprintf(a.stdout, "%s (%d: %s):\n", title, len(items), strings.Join(roles, ", "))
	for i, it := range items {
		if i == summaryItems {
			fmt.Fprintf(a.stdout, "  ... and %d more: `proofloop next --role R` lists them all.\n", len(items)-summaryItems)
			break
		}
		fmt.Fprintf(a.stdout, "  %s\n", statusLine(it))
	}
}

func statusLine(it *loop.Item) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s%s%s]", it.ID, it.Status, gradeText(it), unsound(it))
	if it.Role != "" {
		fmt.Fprintf(&b, " -> %s: %s", it.Role, it.Reason)
	} else if why := nobodyWhy(it); why != "" {
		fmt.Fprintf(&b, " (%s)", why)
	}
	if it.Round > 0 {
		fmt.Fprintf(&b, "; round %d", it.Round)
	}
	if it.Level != "" {
		fmt.Fprintf(&b, "; level %s", it.Level)
	}
	if len(it.OpenIssues) > 0 {
		fmt.Fprintf(&b, "; open issues %v", it.OpenIssues)
		if c, ok := it.OpenBySeverity[model.SeverityCritical]; ok {
			fmt.Fprintf(&b, " (%d critical, %d gap)", c, it.OpenBySeverity[model.SeverityGap])
		}
	}
	if len(it.ConfirmedModels) > 0 {
		fmt.Fprintf(&b, "; confirmed by models %s", strings.Join(it.ConfirmedModels, ", "))
	}
	if it.Holder != "" {
		fmt.Fprintf(&b, "; leased to %s until %s", it.Holder, it.Expires)
	}
	return b.String()
}

// nobodyWhy says why it is nobody's turn on an item, when that adds to its
// status: what it waits on, or how a debate ended. A true, false or solved
// item is finished, and its status says so already ("(proved)" after
// "[true]" would only repeat it).
func nobodyWhy(it *loop.Item) string {
	switch {
	case it.Outcome == model.OutcomeTrue, it.Outcome == model.OutcomeFalse, it.Outcome == model.OutcomeSolved:
		return ""
	case it.Kind == model.KindDebate && it.Status != model.DebateOpen:
		if it.Outcome == "" {
			return ""
		}
		return "outcome " + it.Outcome
	}
	return it.Reason
}

// gradeText says what stands behind a true statement or a solved problem
// (model.Grade): ": kernel-checked", ": agents' word"; for a problem,
// ": formally verified" when every claim it rests on is kernel-checked.
func gradeText(it *loop.Item) string {
	switch {
	case it.Proved == nil || it.Grade == "":
		return ""
	case it.Kind == model.KindProblem:
		return ": " + it.Grade.ProblemText()
	}
	return ": " + it.Grade.Text()
}

// unsound qualifies a solved problem or a true statement that is not fully
// proved: " (unsound: stmt_x reopened)" or " (not fully proved: ...)".
func unsound(it *loop.Item) string {
	switch {
	case it.Proved == nil || it.FullyProved:
		return ""
	case it.Kind == model.KindProblem && it.Status == model.ProblemSolved:
		return " (unsound: " + it.Proved.Why() + ")"
	case it.Kind == model.KindStatement && it.Status == model.StatementTrue:
		return " (not fully proved: " + it.Proved.Why() + ")"
	}
	return ""
}
