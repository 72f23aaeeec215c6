package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// The Open Proof Corpus (github.com/insait-institute/open-proof-corpus)
// keeps one JSON file per problem: problem_id, problem (its text) and
// attempts, each a model's solution with llm_judgment.result.issues, the
// findings of a judge model: a quoted text, a category, and start_index
// and end_index, code-point offsets into the solution. ImportOPC turns each
// judged attempt into an item: correct when the judge found no issue,
// flawed at the sentences its issues' spans overlap (proofloop's own
// splitter numbers them) otherwise. An issue without offsets, or with
// offsets outside the solution or between sentences, is skipped with a
// warning, never guessed; an attempt left with no located issue, or with
// no judgment, is skipped with a warning too. The labels are a judge
// model's, not people's: each item's source says so.

type opcProblem struct {
	ProblemID string       `json:"problem_id"`
	Problem   string       `json:"problem"`
	Attempts  []opcAttempt `json:"attempts"`
}

type opcAttempt struct {
	ModelID     string `json:"model_id"`
	Solution    string `json:"solution"`
	LLMJudgment *struct {
		Result *struct {
			Issues []opcIssue `json:"issues"`
		} `json:"result"`
	} `json:"llm_judgment"`
}

type opcIssue struct {
	Text       string `json:"text"`
	Category   string `json:"category"`
	StartIndex *int   `json:"start_index"`
	EndIndex   *int   `json:"end_index"`
}

// ImportOPC converts an Open Proof Corpus problem file (one problem object,
// or an array of them) into items, and the warnings of what it skipped.
func ImportOPC(raw []byte) (items []model.EvalItem, warnings []string, err error) {
	var problems []opcProblem
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		err = json.Unmarshal(raw, &problems)
	} else {
		var p opcProblem
		err = json.Unmarshal(raw, &p)
		problems = []opcProblem{p}
	}
	if err != nil {
		return nil, nil, store.Errorf(store.CodeInvalidInput, "not an Open Proof Corpus problem file: %v", err).
			WithHint("give one problem's JSON file (problem_id, problem, attempts) or an array of them (docs/eval.md)")
	}
	for _, p := range problems {
		if p.ProblemID == "" || strings.TrimSpace(p.Problem) == "" {
			return nil, nil, store.Errorf(store.CodeInvalidInput, "an Open Proof Corpus problem needs problem_id and problem").
				WithHint("give one problem's JSON file (problem_id, problem, attempts) or an array of them (docs/eval.md)")
		}
		for i, a := range p.Attempts {
			it, warns := opcItem(p, i, a)
			warnings = append(warnings, warns...)
			if it != nil {
				items = append(items, *it)
			}
		}
	}
	if len(items) == 0 {
		return nil, warnings, store.Errorf(store.CodeInvalidInput, "no attempt of the file could be made an item").
			WithHint("each skipped attempt is named in a warning")
	}
	return items, warnings, nil
}

// opcItem is attempt i of p as an item, or nil and why not.
func opcItem(p opcProblem, i int, a opcAttempt) (*model.EvalItem, []string) {
	where := fmt.Sprintf("%s attempt %d (%s)", p.ProblemID, i+1, a.ModelID)
	if strings.TrimSpace(a.Solution) == "" {
		return nil, []string{where + ": no solution: skipped"}
	}
	if a.LLMJudgment == nil || a.LLMJudgment.Result == nil {
		return nil, []string{where + ": no judgment: skipped"}
	}
	proof := a.Solution
	it := &model.EvalItem{ID: opcID(p.ProblemID, i), Claim: p.Problem, Premises: []string{}, Proof: &proof, Label: model.LabelCorrect,
		Source: fmt.Sprintf("Open Proof Corpus %s, attempt %d by %s; the label and the flawed sentences are a judge model's findings (llm_judgment), not people's", p.ProblemID, i+1, a.ModelID)}
	issues := a.LLMJudgment.Result.Issues
	if len(issues) == 0 {
		return it, nil
	}
	spans := model.SplitSentences(proof)
	var warns, categories []string
	var flawed []int
	for k, is := range issues {
		n, why := opcSentences(proof, spans, is)
		if why != "" {
			warns = append(warns, fmt.Sprintf("%s issue %d (%s): %s: skipped", where, k+1, is.Category, why))
			continue
		}
		flawed = append(flawed, n...)
		if c := strings.ToLower(strings.TrimSpace(is.Category)); c != "" && !slices.Contains(categories, c) {
			categories = append(categories, c)
		}
	}
	if len(flawed) == 0 {
		return nil, append(warns, where+": the judge found issues, none located in a sentence: skipped, not labelled")
	}
	slices.Sort(flawed)
	it.Label, it.FlawedSentences, it.Category = model.LabelFlawed, slices.Compact(flawed), strings.Join(categories, "; ")
	return it, warns
}

// opcSentences are the numbers of the sentences an issue's span overlaps,
// or why there are none.
func opcSentences(proof string, spans []model.Span, is opcIssue) ([]int, string) {
	if is.StartIndex == nil || is.EndIndex == nil {
		return nil, "no start_index and end_index"
	}
	start, ok1 := byteOffset(proof, *is.StartIndex)
	end, ok2 := byteOffset(proof, *is.EndIndex)
	if !ok1 || !ok2 || end < start {
		return nil, fmt.Sprintf("offsets %d-%d are not within the solution's %d code points", *is.StartIndex, *is.EndIndex, utf8.RuneCountInString(proof))
	}
	var out []int
	for n, s := range spans {
		if start < s.End && (end > s.Start || end == start && start >= s.Start) {
			out = append(out, n+1)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Sprintf("offsets %d-%d fall between sentences", *is.StartIndex, *is.EndIndex)
	}
	return out, ""
}

// byteOffset is the byte offset of code point cp of s (cp may be its end).
func byteOffset(s string, cp int) (int, bool) {
	if cp < 0 {
		return 0, false
	}
	n := 0
	for i := range s {
		if n == cp {
			return i, true
		}
		n++
	}
	return len(s), n == cp
}

// opcID is an item id from a problem id: opc_, its letters and digits
// lower-cased, and the attempt's number.
func opcID(problemID string, i int) string {
	var b strings.Builder
	b.WriteString("opc_")
	for _, r := range strings.ToLower(problemID) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	id := b.String()
	if len(id) > 90 {
		id = id[:90]
	}
	return fmt.Sprintf("%s_a%d", id, i+1)
}
