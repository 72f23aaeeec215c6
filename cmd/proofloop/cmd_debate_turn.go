package main

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/spf13/pflag"

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
