package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// turnFlags are debate turn's flags that build a turn without --input: a
// dialectic or panel body, a partner's suggestions, and main's conclusion
// with the summary seed 001 asks for.
type turnFlags struct {
	body, conclusion, conclusionText string
	suggestions, agreed, insights    []string
	openPoints, positions            []string
	leftOpen                         []int
}

func (tf *turnFlags) register(f *pflag.FlagSet) {
	f.StringVar(&tf.body, "body", "", withField("body")+": the turn's Markdown body (@FILE or @- reads it)")
	f.StringArrayVar(&tf.suggestions, "suggestion", nil, withField("suggestions")+": a `TEXT` suggestion that waits for proofloop decide ID --suggestion N --accept|--reject")
	f.StringVar(&tf.conclusion, "conclusion", "", withField("conclusion")+": close with "+strings.Join(conclusions(), ", "))
	f.StringVar(&tf.conclusionText, "conclusion-text", "", withField("conclusion")+": the conclusion's text")
	f.StringArrayVar(&tf.agreed, "agreed", nil, "dialectic conclusion: an agreed point `TEXT` (repeatable; consensus and partial)")
	f.StringArrayVar(&tf.insights, "insight", nil, "dialectic conclusion: a key insight `TEXT` (repeatable; consensus)")
	f.StringArrayVar(&tf.openPoints, "open-point", nil, "dialectic conclusion: a point `TEXT` left open (repeatable; partial and disagreement)")
	f.StringArrayVar(&tf.positions, "position", nil, "dialectic conclusion: a side's position `ROLE=TEXT`, main= and partner= (disagreement)")
	f.IntSliceVar(&tf.leftOpen, "left-open", nil, "dialectic: a pending suggestion `N` the conclusion leaves undecided (repeatable); every other pending one is decided first")
}

// set says whether any of the flags was given.
func (tf *turnFlags) set() bool {
	return tf.body != "" || len(tf.suggestions) > 0 || tf.conclusion != "" || tf.conclusionText != "" ||
		len(tf.agreed) > 0 || len(tf.insights) > 0 || len(tf.openPoints) > 0 || len(tf.positions) > 0 || len(tf.leftOpen) > 0
}

// turn builds the turn the flags give, as the JSON --input would carry it.
func (tf *turnFlags) turn(src skills.Source) ([]byte, error) {
	t := model.DebateTurn{}
	var err error
	if t.Body, err = src.Text("body", tf.body); err != nil {
		return nil, err
	}
	for _, l := range []struct {
		name string
		vs   []string
	}{{"suggestion", tf.suggestions}, {"agreed", tf.agreed}, {"insight", tf.insights}, {"open_point", tf.openPoints}} {
		if err := src.Texts(l.name, l.vs); err != nil {
			return nil, err
		}
	}
	for _, s := range tf.suggestions {
		t.Suggestions = append(t.Suggestions, model.SuggestionInput{Text: s})
	}
	summary := len(tf.agreed) > 0 || len(tf.insights) > 0 || len(tf.openPoints) > 0 || len(tf.positions) > 0 || len(tf.leftOpen) > 0
	if tf.conclusion == "" && tf.conclusionText == "" {
		if summary {
			return nil, store.Errorf(store.CodeUsage, "--agreed, --insight, --open-point, --position and --left-open belong to a conclusion").
				WithHint("conclude with --conclusion O --conclusion-text TEXT and the summary its outcome asks for")
		}
		return json.Marshal(t)
	}
	c := &model.Conclusion{Outcome: tf.conclusion, Agreed: tf.agreed, Insights: tf.insights, OpenPoints: tf.openPoints, LeftOpen: tf.leftOpen}
	if c.Text, err = src.Text("conclusion_text", tf.conclusionText); err != nil {
		return nil, err
	}
	for _, p := range tf.positions {
		role, text, ok := strings.Cut(p, "=")
		if !ok {
			return nil, store.Errorf(store.CodeUsage, "--position %q is not ROLE=TEXT", p).
				WithHint("give each side's position as --position main=TEXT --position partner=TEXT")
		}
		if text, err = src.Text("position", text); err != nil {
			return nil, err
		}
		c.Positions = append(c.Positions, model.Position{Role: role, Text: text})
	}
	t.Conclusion = c
	return json.Marshal(t)
}

// turnInput reads a turn given as JSON (--input FILE|-), strictly.
func turnInput(src skills.Source, input string) ([]byte, error) {
	raw, err := src.File(input, "--input")
	if err != nil {
		return nil, err
	}
	// A turn in a ```json fence, as agora's drones write it.
	raw = model.StripFence(raw)
	// Strict JSON first: a key in another case or given twice, which
	// encoding/json would take, is refused by name.
	var t model.DebateTurn
	var te *model.TurnError
	if _, perr := model.ParseTurn(raw); errors.As(perr, &te) && te.Field == "support" {
		// A support item at the top: say where it goes.
		return nil, store.Errorf(store.CodeInvalidInput, "--input: %v", perr).WithHint("nothing was written; `proofloop transitions --protocols` shows each turn field and what nests in it")
	}
	if err := skills.DecodeStrict(raw, &t); err != nil {
		return nil, store.Errorf(store.CodeInvalidInput, "--input: %v", err).WithHint("nothing was written; `proofloop transitions --protocols` lists the protocol's turn fields")
	}
	return raw, nil
}

// withField names the protocols whose turns have field, and who writes it:
// "dialectic main". The turn flags serve every protocol that has the field.
func withField(field string) string {
	var out []string
	for _, p := range model.Protocols {
		for _, f := range p.Fields {
			if f.Name == field && f.In == "" {
				out = append(out, strings.TrimSpace(p.Name+" "+strings.Join(f.Roles, "/")))
			}
		}
	}
	return strings.Join(out, ", ")
}

// conclusions is every outcome a --conclusion may give, in protocol order.
func conclusions() []string {
	var out []string
	for _, p := range model.Protocols {
		for _, f := range p.Fields {
			if f.Name == "conclusion" {
				out = append(out, f.Enum...)
			}
		}
	}
	return out
}

func (a *app) debateTurnCommand() *cobra.Command {
	var pid, input string
	var tf turnFlags
	c := &cobra.Command{
		Use:   "turn ID --participant-id P (--input FILE|- | --body TEXT [--suggestion TEXT]... [--conclusion O --conclusion-text TEXT ...])",
		Short: "Write a participant's turn; the engine validates it, then decides the outcome",
		Long: "turn reads the turn as one JSON object (--input FILE, or - for standard input) with the\n" +
			"protocol's fields (`proofloop transitions` lists them), or, for " + withField("body") + ", from --body\n" +
			"(Markdown), --suggestion (" + withField("suggestions") + ", repeatable) and --conclusion O with --conclusion-text\n" +
			"(" + withField("conclusion") + "; O one of " + strings.Join(conclusions(), "|") + ") and, for a dialectic\n" +
			"conclusion, its summary: --agreed, --insight, --open-point (each repeatable) and --position ROLE=TEXT.\n" +
			"Unknown keys and trailing data are\n" +
			"refused. A dialectic user interjects with --participant-id user. The turn is checked before anything is written: a\n" +
			"broken field exits 2 naming it and the rule; a turn out of order, on a closed debate, or for a\n" +
			"seat another actor joined exits 4;\n" +
			"a turn while another holds the debate's lease exits 5 (give yours with --lease). After the turn\n" +
			"the engine evaluates the protocol's terminal rules and closes the debate in the same\n" +
			"transaction when one holds (outcome in the result).",
		Args: debateID,
		RunE: func(cmd *cobra.Command, args []string) error {
			if pid == "" {
				return store.Errorf(store.CodeUsage, "debate turn needs --participant-id").WithHint("debate join prints it")
			}
			if (input == "") == !tf.set() {
				return store.Errorf(store.CodeUsage, "give either --input FILE|- or --body TEXT (with --suggestion, --conclusion)").
					WithHint("a turn comes from one of the two: the whole turn as JSON with --input, or its flags (--body ...); drop the other")
			}
			return a.withSource(func(s *store.Store, src skills.Source) error {
				var err error
				var raw []byte
				if input != "" {
					raw, err = turnInput(src, input)
				} else {
					raw, err = tf.turn(src)
				}
				if err != nil {
					return err
				}
				r, err := loop.TurnDebate(s, a.debateOpts(cmd), args[0], pid, raw)
				if err != nil {
					return err
				}
				return a.debateOK(r, fmt.Sprintf("Turn %d by %s (%s) recorded.", r.TurnNumber, r.ParticipantID, r.Role))
			})
		},
	}
	f := c.Flags()
	f.StringVar(&pid, "participant-id", "", "the writer's participant id (from debate join), or user for a dialectic interjection")
	f.StringVar(&input, "input", "", "the turn as a JSON object in `FILE` (- reads standard input)")
	tf.register(f)
	return c
}

func (a *app) debateWaitCommand() *cobra.Command {
	var pid string
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "wait ID --participant-id P [--timeout D]",
		Short: "Block until it is P's turn or the debate is closed (file notifications, no polling)",
		Long: "wait returns as soon as it is the participant's turn or the debate is closed, watching the\n" +
			"event log with inotify; it exits 5 with code timeout when --timeout (default 10m; 0 waits\n" +
			"forever) runs out. Many waiters may run at once. Its result is the debate's state (whose_turn,\n" +
			"status, outcome).",
		Args: debateID,
		RunE: func(cmd *cobra.Command, args []string) error {
			if pid == "" {
				return store.Errorf(store.CodeUsage, "debate wait needs --participant-id")
			}
			if timeout < 0 {
				return store.Errorf(store.CodeUsage, "--timeout must not be negative")
			}
			return a.withStore(func(s *store.Store) error {
				r, err := loop.WaitDebate(cmd.Context(), s, args[0], pid, timeout)
				if err != nil {
					return err
				}
				what := "It is " + pid + "'s turn."
				if r.WhoseTurn.Closed {
					what = "The debate is closed."
				}
				return a.debateOK(r, what)
			})
		},
	}
	c.Flags().StringVar(&pid, "participant-id", "", "the waiting participant's id")
	c.Flags().DurationVar(&timeout, "timeout", 10*time.Minute, "give up after `D` (exit 5, timeout); 0 waits forever")
	return c
}

func (a *app) debateCloseCommand() *cobra.Command {
	var outcome, summary string
	var discard bool
	c := &cobra.Command{
		Use:   "close ID (--outcome O [--summary TEXT] | --discard)",
		Short: "Close a debate with an outcome whose rule holds, TIMEOUT, or invalidated; or discard it",
		Long: "close --outcome O is accepted only when O's rule holds now (the engine usually closes a\n" +
			"debate itself after the deciding turn); when O is TIMEOUT (socratic) after `proofloop claim ID\n" +
			"--for-timeout` re-checked that a participant never joined (give its token with --lease); or\n" +
			"when O is the protocol's invalidated outcome (INVALIDATED, or invalidated) with the reason in\n" +
			"--summary. Otherwise it exits 4 saying what is missing. --discard removes the debate and its\n" +
			"transcript; the event log still records that it existed.",
		Args: debateID,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (outcome == "") == !discard {
				return store.Errorf(store.CodeUsage, "give either --outcome O or --discard").
					WithHint("--outcome O closes the debate with an outcome whose rule holds; --discard removes it: give one")
			}
			return a.withStore(func(s *store.Store) error {
				in := loop.DebateClose{ID: args[0], Outcome: outcome, Discard: discard}
				var err error
				if in.Summary, err = a.givenText(cmd, s, "summary", summary); err != nil {
					return err
				}
				r, err := loop.CloseDebate(s, a.debateOpts(cmd), in)
				if err != nil {
					return err
				}
				if discard {
					if a.json {
						return a.debateOK(r, "")
					}
					fmt.Fprintf(a.stdout, "Discarded %s and its transcript %s.\n", r.ID, r.Artifact)
					return nil
				}
				return a.debateOK(r, "Closed "+r.ID+".")
			})
		},
	}
	c.Flags().StringVar(&outcome, "outcome", "", "the `OUTCOME`: one of the protocol's outcomes (proofloop transitions --protocols lists them)")
	c.Flags().StringVar(&summary, "summary", "", "a closing summary; the reason of an invalidation (@FILE or @- reads it)")
	c.Flags().BoolVar(&discard, "discard", false, "remove the debate and its transcript (the event log keeps that it existed)")
	return c
}
