package skills

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// TextLimit is a row of the one table of how long a free-text value may
// be: the parameters it bounds (snake_case: a flag --participant-name is
// participant_name, as over MCP and in --input), and the most characters
// (runes) they take; Chars 0 is the store's max_input_bytes, in bytes (a
// proof, a turn's body).
type TextLimit struct {
	Names []string
	Chars int
	What  string
}

// TextLimits is that table (issue 34 N15: a 10,000-character topic made a
// 10,000-character heading). Every string flag, argument and --input value
// is bounded: by its row here; a skill's text parameter (the registry's
// text, texts and sub-statements types) by max_input_bytes; anything else
// (an id, a path, a key, an enum, a duration, a positional argument) by
// DefaultTextLimit. docs/cli.md prints it (TestTextLimitsDocumented).
var TextLimits = []TextLimit{
	{Names: []string{"actor", "holder", "participant_name", "name", "harness", "model_id", "agent_type", "fallback_from"}, Chars: model.MaxActorLen, What: "a name"},
	{Names: []string{"topic", "subject"}, Chars: 500, What: "a heading"},
	{Names: []string{"position", "reason", "fallback_reason", "agreed", "insight", "open_point"}, Chars: 2000, What: "a paragraph"},
	{Names: []string{"objective", "hypothesis", "body", "suggestion", "conclusion_text", "summary"}, What: "a text"},
}

// DefaultTextLimit bounds every string value no row of TextLimits names
// and that is no skill text.
const DefaultTextLimit = 4096

// LimitOf is the limit of parameter name (snake_case): its characters, or
// 0 for max_input_bytes.
func LimitOf(name string) int {
	for _, l := range TextLimits {
		for _, n := range l.Names {
			if n == name {
				return l.Chars
			}
		}
	}
	for _, sk := range Registry {
		if p := sk.param(name); p != nil && (p.Type == TypeText || p.Type == TypeTexts || p.Type == TypeSubs) {
			return 0
		}
	}
	return DefaultTextLimit
}

// CheckValue checks a free-text value given for parameter name (what
// names it in a message: "--topic", `"claim" in --input`): model.CheckText,
// then its limit (LimitOf). maxInput is max_input_bytes, or 0 when it is
// not known, and then a long text's length is left to the reader that knows
// it (Source). invalid_input, exit 2; nothing is written.
func CheckValue(name, what, v string, maxInput int64) error {
	if err := model.CheckText(v); err != nil {
		return store.Errorf(store.CodeInvalidInput, "%s: %v", what, err).
			WithHint("nothing was written; " + model.TextRule)
	}
	switch max := LimitOf(name); {
	case max == 0 && maxInput > 0 && int64(len(v)) > maxInput:
		return store.Errorf(store.CodeInvalidInput, "%s has %d bytes, more than max_input_bytes (%d)", what, len(v), maxInput).
			WithHint("nothing was written; give a shorter text, or raise max_input_bytes in config.json")
	case max > 0 && len(v) > max && utf8.RuneCountInString(v) > max:
		return store.Errorf(store.CodeInvalidInput, "%s has %d characters, more than the %d allowed", what, utf8.RuneCountInString(v), max).
			WithHint(fmt.Sprintf("nothing was written; %s is %s, at most %d characters (docs/cli.md lists every limit)", what, limitWhat(name), max))
	}
	return nil
}

func limitWhat(name string) string {
	for _, l := range TextLimits {
		for _, n := range l.Names {
			if n == name {
				return l.What
			}
		}
	}
	return "a short value"
}

// IsTextError reports whether err is CheckText's, so that a caller that
// wraps a JSON error keeps it as it is.
func IsTextError(err error) bool {
	var te *model.TextError
	return errors.As(err, &te)
}

// TextLimitsTable renders TextLimits as the Markdown table docs/cli.md
// carries.
func TextLimitsTable() string {
	var b strings.Builder
	b.WriteString("| flags (and MCP arguments, `--input` keys) | at most |\n|---|---|\n")
	for _, l := range TextLimits {
		var flags []string
		for _, n := range l.Names {
			flags = append(flags, "`--"+FlagName(n)+"`")
		}
		max := fmt.Sprintf("%d characters (%s)", l.Chars, l.What)
		if l.Chars == 0 {
			max = "`max_input_bytes` bytes (" + l.What + ")"
		}
		fmt.Fprintf(&b, "| %s | %s |\n", strings.Join(flags, ", "), max)
	}
	b.WriteString("| a skill's text parameters (`--claim`, `--proof-text`, `--explanation`, ...) | `max_input_bytes` bytes |\n")
	fmt.Fprintf(&b, "| every other flag and argument (ids, paths, keys, values) | %d characters |\n", DefaultTextLimit)
	return b.String()
}

// checkTexts runs CheckValue on every text of a value from --input (a
// flag's went through Source.Text): JSON's escapes (\u0000, \u202e) reach
// the decoded text, not the bytes DecodeStrict checked.
func (p *Param) checkTexts(v any, maxInput int64) error {
	what := fmt.Sprintf("%q in --input", p.Name)
	switch v := v.(type) {
	case string:
		return CheckValue(p.Name, what, v, maxInput)
	case []string:
		for _, s := range v {
			if err := CheckValue(p.Name, what, s, maxInput); err != nil {
				return err
			}
		}
	case []SubSpec:
		for _, sub := range v {
			for _, s := range append([]string{sub.Claim}, sub.Premises...) {
				if err := CheckValue(p.Name, what, s, maxInput); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkJSONText refuses, with its byte offset in raw, a string (a key or a
// value) that model.CheckText refuses once decoded, and bytes that are not
// UTF-8 or an escape that is no character (a lone surrogate, \ud800),
// which encoding/json would have replaced by U+FFFD. Other syntax is left
// to the decoder after it, for its message.
func checkJSONText(raw []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(raw), jsontext.AllowDuplicateNames(true))
	for {
		off := dec.InputOffset()
		tok, err := dec.ReadToken()
		var se *jsontext.SyntacticError
		switch {
		case err == io.EOF:
			return nil
		case errors.As(err, &se) && (strings.Contains(se.Err.Error(), "UTF-8") || strings.Contains(se.Err.Error(), "surrogate")):
			found := "a byte that is not UTF-8"
			if strings.Contains(se.Err.Error(), "surrogate") {
				found = "an escape that is no character (a lone surrogate)"
			}
			return &model.TextError{Offset: int(se.ByteOffset), Found: found}
		case err != nil:
			return nil
		case tok.Kind() != '"':
			continue
		}
		if terr := model.CheckText(tok.String()); terr != nil {
			te := terr.(*model.TextError)
			start := off + int64(bytes.IndexByte(raw[off:], '"')) + 1
			return &model.TextError{Offset: int(start) + te.Offset, Found: te.Found}
		}
	}
}
