package eval

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
)

// TestShippedSet: the set in the binary parses, has at least 40 items of
// each kind the issue asks, flawed ones of at least five categories, and
// no two items with one claim and proof (the scripted agents find an item
// by them).
func TestShippedSet(t *testing.T) {
	set := Shipped()
	by := map[string]int{}
	categories := map[string]bool{}
	seen := map[string]string{}
	for _, it := range set.Items {
		by[it.Label]++
		if it.Label == model.LabelFlawed {
			categories[it.Category] = true
		}
		if it.Label != model.LabelCorrect && it.Category == "" {
			t.Errorf("%s (%s) has no category", it.ID, it.Label)
		}
		key := it.Claim + "\x00" + it.ProofText()
		if other, ok := seen[key]; ok {
			t.Errorf("%s has the claim and proof of %s", it.ID, other)
		}
		seen[key] = it.ID
	}
	if n := len(set.Items); n < 40 {
		t.Errorf("the shipped set has %d items; want at least 40", n)
	}
	if by[model.LabelCorrect] < 10 || by[model.LabelFlawed] < 10 || by[model.LabelFalse] < 10 {
		t.Errorf("labels %v; want at least 10 of each", by)
	}
	if len(categories) < 5 {
		t.Errorf("flawed categories %v; want at least 5", categories)
	}
}

// TestScriptedFigures: what each scripted agent does on the shipped set,
// exactly: the figures the README gives and the bench measures.
func TestScriptedFigures(t *testing.T) {
	for name, want := range map[string]model.Counts{
		"confirm-all":    {Items: 32, AcceptedCorrect: 16, MissedFlawed: 16},
		"reject-all":     {Items: 32, RejectedCorrect: 16, CaughtFlawed: 16, Located: 1},
		"finds-planted":  {Items: 32, AcceptedCorrect: 16, CaughtFlawed: 16, Located: 16},
		"two-categories": {Items: 32, AcceptedCorrect: 16, CaughtFlawed: 6, MissedFlawed: 10, Located: 6},
		"prove-all":      {Items: 10, ProvedFalse: 10},
	} {
		got, err := Implied(Shipped(), name)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s on the shipped set: %+v; want %+v", name, got, want)
		}
	}
}

func TestParseSetRefuses(t *testing.T) {
	good := `{"id":"a","claim":"x","premises":[],"label":"false","source":"s"}`
	for _, c := range []struct{ name, set, want string }{
		{"empty", "\n\n", "has no item"},
		{"not JSON", good + "\n{\"id\":", "line 2"},
		{"duplicate key", `{"id":"a","id":"b","claim":"x","premises":[],"label":"false","source":"s"}`, "line 1"},
		{"unknown key", `{"id":"a","claim":"x","premises":[],"label":"false","source":"s","answer":1}`, "answer"},
		{"bad label", `{"id":"a","claim":"x","premises":[],"label":"maybe","source":"s"}`, "label"},
		{"flawed sentence past the end", `{"id":"a","claim":"x","premises":[],"proof":"One. Two.","label":"flawed","flawed_sentences":[3],"source":"s"}`, "has 2 sentences"},
		{"duplicate id", good + "\n" + good, "line 2: id a is the id of line 1 too"},
	} {
		_, err := ParseSet("set.jsonl", []byte(c.set))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: ParseSet = %v; want an error saying %q", c.name, err, c.want)
		}
	}
}

// TestClaimName: a canary's problem is named like a person's.
func TestClaimName(t *testing.T) {
	for claim, want := range map[string]string{
		"The product of two odd integers is odd.":     "product_two_odd",
		"There are infinitely many prime numbers.":    "infinitely_many_prime",
		"For every integer n >= 1, 2^n >= n + 1.":     "integer",
		"For every real number x, x^2 - 2x + 1 >= 0.": "real_number",
		"1 + 1 = 2.": "claim",
		"If n^2 is even, then n is even: a parity argument.": "even_even_parity",
	} {
		if got := claimName(claim); got != want {
			t.Errorf("claimName(%q) = %q; want %q", claim, got, want)
		}
	}
	if !slices.Contains(ScriptedNames(), "finds-planted") {
		t.Error("finds-planted is not listed")
	}
}

// TestImportOPC reads a small problem file of the Open Proof Corpus's
// format, written for the test: code-point spans (after non-ASCII text)
// become the sentences they overlap, an issue without offsets or outside
// the solution is skipped with a warning, and an attempt with no located
// issue or no judgment is skipped, never guessed.
func TestImportOPC(t *testing.T) {
	raw, err := os.ReadFile("testdata/opc_problem.json")
	if err != nil {
		t.Fatal(err)
	}
	lines, warnings, err := ImportOPCLines(raw)
	if err != nil {
		t.Fatal(err)
	}
	set, err := ParseSet("import", lines)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range set.Items {
		got = append(got, fmt.Sprintf("%s %s %v %q", it.ID, it.Label, it.FlawedSentences, it.Category))
		if !strings.Contains(it.Source, "judge model") || !strings.Contains(it.Source, "not people's") {
			t.Errorf("%s: source %q does not say the findings are a judge model's", it.ID, it.Source)
		}
	}
	want := []string{
		`opc_test_2026_1_a1 flawed [1 3] "skipping computation steps; oversimplification"`, // [1 2 3] if read as bytes
		`opc_test_2026_1_a2 correct [] ""`,
		`opc_test_2026_1_a6 flawed [1 2] "oversimplification"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantWarnings := []string{
		"TEST_2026_1 attempt 1 (judge-me/a) issue 3 (Other): no start_index and end_index: skipped",
		"TEST_2026_1 attempt 3 (judge-me/c) issue 1 (Overgeneralization): no start_index and end_index: skipped",
		"TEST_2026_1 attempt 3 (judge-me/c): the judge found issues, none located in a sentence: skipped, not labelled",
		"TEST_2026_1 attempt 4 (judge-me/d): no judgment: skipped",
		"TEST_2026_1 attempt 5 (judge-me/e) issue 1 (Other): offsets 500-510 are not within the solution's 54 code points: skipped",
		"TEST_2026_1 attempt 5 (judge-me/e): the judge found issues, none located in a sentence: skipped, not labelled",
	}
	if !slices.Equal(warnings, wantWarnings) {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(wantWarnings, "\n"))
	}
	if _, _, err := ImportOPC([]byte(`{"problem_id": "x"}`)); err == nil {
		t.Error("a problem without its text was imported")
	}
}
