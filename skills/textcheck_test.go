package skills

import (
	"os"
	"strings"
	"testing"
)

// TestTextLimitsDocumented: docs/cli.md carries the limits table as
// TextLimits gives it, so the two cannot drift apart.
func TestTextLimitsDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := TextLimitsTable(); !strings.Contains(string(b), want) {
		t.Errorf("docs/cli.md lacks the limits table; put this in it:\n%s", want)
	}
}

// TestCheckValue: the text check, then the limit of the parameter's row,
// of a skill's text (max_input_bytes, when known) or the default.
func TestCheckValue(t *testing.T) {
	for _, c := range []struct {
		name, v  string
		maxInput int64
		want     string
	}{
		{"topic", strings.Repeat("é", 500), 0, ""},
		{"topic", strings.Repeat("é", 501), 0, "--x has 501 characters, more than the 500 allowed"},
		{"actor", strings.Repeat("a", 201), 0, "more than the 200 allowed"},
		{"proof_text", strings.Repeat("a", 2000), 1024, "has 2000 bytes, more than max_input_bytes (1024)"},
		{"proof_text", strings.Repeat("a", 2000), 0, ""},
		{"statement_path", strings.Repeat("a", DefaultTextLimit+1), 0, "more than the 4096 allowed"},
		{"objective", "a\x00b", 0, "--x: the control character U+0000 at byte 1"},
	} {
		err := CheckValue(c.name, "--x", c.v, c.maxInput)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckValue(%s, %d chars, %d) = %v; want %q", c.name, len([]rune(c.v)), c.maxInput, err, c.want)
		}
	}
}
