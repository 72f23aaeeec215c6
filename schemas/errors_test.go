package schemas

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestMalformedJSON(t *testing.T) {
	cases := []struct{ name, doc, msg string }{
		{"empty", "", "the document is empty"},
		{"blank", " \n", "the document is empty"},
		{"truncated", `{"id": "prob_x"`, "unexpected end of JSON input"},
		{"bad character", `{"id": prob_x}`, "invalid character 'p'"},
		{"trailing garbage", `{"version": 1} {"version": 1}`, "invalid character '{' after top-level value"},
		{"trailing comma", `{"version": 1,}`, "invalid character '}'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Validate(Config, []byte(c.doc))
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want a *ValidationError, got %v", err)
			}
			if len(ve.Failures) != 1 || ve.Failures[0].Path != "$" {
				t.Fatalf("failures %+v, want one at $", ve.Failures)
			}
			msg := ve.Failures[0].Message
			if !strings.Contains(msg, "does not parse") || !strings.Contains(msg, c.msg) {
				t.Errorf("message %q, want it to say the JSON does not parse and %q", msg, c.msg)
			}
		})
	}
}

func TestNotAnObject(t *testing.T) {
	for _, doc := range []string{`[]`, `"x"`, `null`, `1`} {
		err := Validate(Statement, []byte(doc))
		var ve *ValidationError
		if !errors.As(err, &ve) || len(ve.Failures) != 1 || ve.Failures[0].Path != "$" ||
			!strings.Contains(ve.Failures[0].Message, "must be an object") {
			t.Errorf("%s: got %v", doc, err)
		}
	}
}

func TestErrorString(t *testing.T) {
	m := decode(t, minimal[Statement])
	m["status"] = "done"
	m["revision"] = 0
	delete(m, "claim")
	doc, _ := json.Marshal(m)
	err := Validate(Statement, doc)
	want := `statement fails its schema: ` +
		`$.claim: is required; ` +
		`$.revision: must be at least 1, not 0; ` +
		`$.status: must be one of "pending", "awaiting_verification", "has_gap", "awaiting_substatements", "true", "false", "needs_modification", not "done"`
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
	// Deterministic: the same document gives the same message every time.
	for range 20 {
		if again := Validate(Statement, doc); again.Error() != want {
			t.Fatalf("message changed: %v", again)
		}
	}
}

func TestErrorSortsNumerically(t *testing.T) {
	m := decode(t, minimal[Statement])
	var issues []any
	for i := 1; i <= 12; i++ {
		issues = append(issues, map[string]any{
			"issue_number": i, "sentence": 1, "sentence_text": "x", "error_type": "gap",
			"explanation": "x", "created_at": ts, "round": 1, "proof_revision": 1,
		})
	}
	issues[10].(map[string]any)["sentence"] = 0
	issues[2].(map[string]any)["sentence"] = 0
	m["validate"].(map[string]any)["issues"] = issues
	doc, _ := json.Marshal(m)
	err := Validate(Statement, doc)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatal(err)
	}
	want := []string{"$.validate.issues[2].sentence", "$.validate.issues[10].sentence"}
	if got := paths(ve.Failures); !slices.Equal(got, want) {
		t.Fatalf("paths %q, want %q", got, want)
	}
	// Error sorts too, even when the failures were built by hand.
	e := &ValidationError{Kind: Statement, Failures: []Failure{{"$.b[10]", "x"}, {"$.b[9]", "y"}, {"$.a", "z"}}}
	if got, want := e.Error(), "statement fails its schema: $.a: z; $.b[9]: y; $.b[10]: x"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestLongValuesAreCut(t *testing.T) {
	m := decode(t, minimal[Statement])
	m["status"] = strings.Repeat("é", 200)
	doc, _ := json.Marshal(m)
	err := Validate(Statement, doc)
	if err == nil || len(err.Error()) > 400 || !strings.Contains(err.Error(), "…") {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(err.Error(), "é…") {
		t.Errorf("cut inside a UTF-8 sequence: %v", err)
	}
}

func TestUnknownKind(t *testing.T) {
	err := Validate(Kind("nosuchkind"), []byte(`{}`))
	var ve *ValidationError
	if err == nil || errors.As(err, &ve) {
		t.Fatalf("want a plain error, got %v", err)
	}
	if Source(Kind("nosuchkind")) != nil {
		t.Error("Source of an unknown kind is not nil")
	}
}

func ExampleValidate() {
	err := Validate(Config, []byte(`{"version": 1, "lease_ttl": "soon"}`))
	fmt.Println(err)
	// Output: config fails its schema: $.lease_ttl: must be a duration: a whole number followed by ms, s, m or h, such as 15m, not "soon"
}
