package schemas

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/sjson"
)

// byParts makes ValidateChange split documents of any size, for the
// test's duration: the fixtures are small.
func byParts(t testing.TB) {
	old := wholeBelow
	wholeBelow = 0
	t.Cleanup(func() { wholeBelow = old })
}

// errText is err's message, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestValidateChangeAgrees: on every change of the mutation tables (the
// valid variants and the invalid documents of every kind), compact and
// indented, ValidateChange of the fixture and the changed document gives
// Validate's verdict and Validate's message.
func TestValidateChangeAgrees(t *testing.T) {
	byParts(t)
	type change struct {
		name string
		kind Kind
		base map[Kind]string
		mut  func(testing.TB, map[string]any)
	}
	var changes []change
	for _, c := range validVariants {
		changes = append(changes, change{c.name, c.kind, c.base, c.mut})
	}
	for _, c := range invalidDocuments {
		changes = append(changes, change{c.name, c.kind, c.base, c.mut})
	}
	for _, c := range changes {
		for _, indent := range []string{"", "  "} {
			marshal := func(m map[string]any) []byte {
				b, err := json.MarshalIndent(m, "", indent)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			before := marshal(decode(t, c.base[c.kind]))
			if err := Validate(c.kind, before); err != nil {
				t.Fatalf("%s: the fixture fails: %v", c.name, err)
			}
			m := decode(t, c.base[c.kind])
			c.mut(t, m)
			after := marshal(m)
			if got, want := errText(ValidateChange(c.kind, before, after)), errText(Validate(c.kind, after)); got != want {
				t.Errorf("%s (indent %q): ValidateChange = %q; Validate = %q", c.name, indent, got, want)
			}
		}
	}
}

// statementWithIssues is the full statement fixture with n more issues, as a
// statement with a long check history is.
func statementWithIssues(t testing.TB, n int) []byte {
	doc := []byte(full[Statement])
	for i := range n {
		var err error
		doc, err = sjson.SetBytes(doc, "validate.issues.-1", issue(i+3))
		if err != nil {
			t.Fatal(err)
		}
	}
	return doc
}

func issue(n int) map[string]any {
	return map[string]any{"issue_number": n, "sentence": 2, "sentence_text": "Then x(n)", "error_type": "gap",
		"explanation": "Why does x(n) hold?", "created_at": "2026-11-22T10:04:05Z", "round": 2, "proof_revision": 3}
}

// TestValidateChangeAppend: an issue appended to a statement with 300 is
// checked: a good one passes, a bad one fails with Validate's message,
// which names it by its index; so does a bad change to the fields a
// commit stamps beside it.
func TestValidateChangeAppend(t *testing.T) {
	before := statementWithIssues(t, 300)
	if err := Validate(Statement, before); err != nil {
		t.Fatal(err)
	}
	stamp := func(doc []byte, rev any) []byte {
		doc, _ = sjson.SetBytes(doc, "revision", rev)
		doc, _ = sjson.SetBytes(doc, "updated_at", "2026-11-26T00:00:00Z")
		return doc
	}
	good, _ := sjson.SetBytes(before, "validate.issues.-1", issue(303))
	bad := issue(303)
	bad["error_type"] = "typo"
	badIssue, _ := sjson.SetBytes(before, "validate.issues.-1", bad)
	for _, c := range []struct {
		name  string
		after []byte
		want  string // a part of the message; "" for valid
	}{
		{"a good issue", stamp(good, 13), ""},
		{"a bad issue", stamp(badIssue, 13), "$.validate.issues[302].error_type: must be one of"},
		{"a good issue, a bad revision", stamp(good, 0), "$.revision"},
		{"an issue field not allowed", stamp(func() []byte { d, _ := sjson.SetBytes(good, "validate.issues.5.priority", "high"); return d }(), 13), "$.validate.issues[5].priority"},
	} {
		err := ValidateChange(Statement, before, c.after)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: ValidateChange = %v; want %q", c.name, err, c.want)
		}
		if got, want := errText(err), errText(Validate(Statement, c.after)); got != want {
			t.Errorf("%s: ValidateChange = %q; Validate = %q", c.name, got, want)
		}
	}
}

// TestValidateChangeChecksOnlyTheChange: a part the change did not touch
// is not checked again. The fixture here breaks the precondition on
// purpose (an issue that fails its schema, left as it is): Validate
// refuses the changed document, ValidateChange passes it, because all it
// checked was the appended issue and the stamped fields.
func TestValidateChangeChecksOnlyTheChange(t *testing.T) {
	byParts(t)
	before, _ := sjson.SetBytes(statementWithIssues(t, 10), "validate.issues.4.error_type", "typo")
	after, _ := sjson.SetBytes(before, "validate.issues.-1", issue(13))
	after, _ = sjson.SetBytes(after, "revision", 13)
	if err := Validate(Statement, after); err == nil {
		t.Fatal("Validate passes a statement with a bad issue; the test needs it to fail")
	}
	if err := ValidateChange(Statement, before, after); err != nil {
		t.Errorf("ValidateChange = %v; want nil: issue 5 did not change and was checked again", err)
	}
}

func BenchmarkValidateChange(b *testing.B) {
	before := statementWithIssues(b, 300)
	after, _ := sjson.SetBytes(before, "validate.issues.-1", issue(303))
	after, _ = sjson.SetBytes(after, "revision", 13)
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"whole", func() error { return Validate(Statement, after) }},
		{"change", func() error { return ValidateChange(Statement, before, after) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if err := c.f(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
