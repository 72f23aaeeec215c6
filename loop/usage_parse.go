package loop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/store"
)

// A turn's usage and, when it failed, the agent's own error come from its
// output: each agent CLI prints them in a shape of its own, read by a
// parser of its own (usage_claude.go, usage_codex.go, usage_gemini.go).
// An agent may instead write one object to $PROOFLOOP_USAGE.

// cliParser reads one CLI's output shape.
type cliParser struct {
	Source  string // the usage's source label
	Harness string // the program AgentIdentity names for the CLI
	// Usage is the turn's usage in the output's JSON values, nil when
	// this shape has none.
	Usage func(vals []gjson.Result) *Usage
	// Error is the error the CLI reported, "" when none.
	Error func(vals []gjson.Result) string
}

// cliParsers are the known output shapes, the harness's own first when it
// is one of them.
var cliParsers = []cliParser{claudeParser, codexParser, geminiParser}

// parsersFor orders the parsers for an agent: its own CLI's first.
func parsersFor(harness string) []cliParser {
	out := make([]cliParser, 0, len(cliParsers))
	for _, p := range cliParsers {
		if p.Harness == harness {
			out = append(out, p)
		}
	}
	for _, p := range cliParsers {
		if p.Harness != harness {
			out = append(out, p)
		}
	}
	return out
}

// KnownCLI reports whether harness is one of the CLIs whose output run
// reads.
func KnownCLI(harness string) bool {
	for _, p := range cliParsers {
		if p.Harness == harness {
			return true
		}
	}
	return false
}

// parseUsage reads a turn's usage from the file the agent wrote to
// $PROOFLOOP_USAGE, else from its output in the shape of its CLI (harness,
// as AgentIdentity names it; any known shape is tried). nil when neither
// says; an error when the file is not that object, or the usage is absurd.
func parseUsage(output, file []byte, harness string) (*Usage, error) {
	if t := bytes.TrimSpace(file); len(t) > 0 {
		var u Usage
		var f struct {
			InputTokens  *int64   `json:"input_tokens"`
			OutputTokens *int64   `json:"output_tokens"`
			CostUSD      *float64 `json:"cost_usd"`
		}
		// A key given twice is refused, not taken last-wins (store.CheckJSON).
		err := store.CheckJSON(t)
		dec := json.NewDecoder(bytes.NewReader(t))
		dec.DisallowUnknownFields()
		if err == nil {
			err = dec.Decode(&f)
		}
		if err == nil && dec.More() {
			err = errors.New("more than one value")
		}
		if err == nil {
			u = Usage{InputTokens: deref64(f.InputTokens), OutputTokens: deref64(f.OutputTokens), Source: SourceFile, Reported: f.CostUSD != nil}
			if f.CostUSD != nil {
				u.CostUSD = *f.CostUSD
			}
			err = u.check()
		}
		if err != nil {
			return nil, fmt.Errorf("$PROOFLOOP_USAGE must hold one object {\"input_tokens\": N, \"output_tokens\": N, \"cost_usd\": X} with no negative or absurd value (%v); the turn's usage is not counted", err)
		}
		return &u, nil
	}
	vals := jsonValues(output)
	for _, p := range parsersFor(harness) {
		if u := p.Usage(vals); u != nil {
			u.Source = p.Source
			if u.Model != "" && !modelName().MatchString(u.Model) {
				return nil, fmt.Errorf("the agent's %s output names the model %q, which is no model's name (letters, digits and ._:/@+-); the turn's usage is not counted", p.Source, quoteLine(u.Model, 60))
			}
			if err := u.check(); err != nil {
				return nil, fmt.Errorf("the agent's %s output reports an absurd usage (%v); the turn's usage is not counted", p.Source, err)
			}
			return u, nil
		}
	}
	if KnownCLI(harness) {
		return nil, fmt.Errorf("%s printed no usage that run can read (is its JSON output on? `proofloop gen --cli` prints the command); the turn's usage is not counted", harness)
	}
	for _, v := range vals {
		if usageLike(v) {
			return nil, fmt.Errorf("the agent's output has usage in a shape run does not know (%s); the turn's usage is not counted: write it to $PROOFLOOP_USAGE instead", shapeOf(v))
		}
	}
	return nil, nil
}

// agentError is the error the agent's CLI reported in its output, "" when
// it reported none in a shape run knows.
func agentError(output []byte, harness string) string {
	vals := jsonValues(output)
	for _, p := range parsersFor(harness) {
		if e := strings.TrimSpace(p.Error(vals)); e != "" {
			return quoteLine(e, 300)
		}
	}
	return ""
}

// usageLike reports whether a JSON value looks like a usage report: an
// object with usage, stats, tokens or a cost at its top.
func usageLike(v gjson.Result) bool {
	if !v.IsObject() {
		return false
	}
	for _, k := range []string{"usage", "stats", "total_cost_usd", "cost_usd", "input_tokens", "tokens"} {
		if v.Get(k).Exists() {
			return true
		}
	}
	return false
}

// shapeOf names a JSON object by its top-level keys, for a warning.
func shapeOf(v gjson.Result) string {
	var keys []string
	v.ForEach(func(k, _ gjson.Result) bool {
		keys = append(keys, k.String())
		return len(keys) < 6
	})
	return "an object with " + strings.Join(keys, ", ")
}

// jsonValues returns the JSON objects and arrays of a turn's log that
// begin a line, in order: a JSON Lines stream gives one per line, and a
// pretty-printed object (Gemini's -o json) one for all its lines.
func jsonValues(log []byte) []gjson.Result {
	var out []gjson.Result
	for off := 0; off < len(log); {
		end := bytes.IndexByte(log[off:], '\n')
		next := len(log)
		if end >= 0 {
			next = off + end + 1
		}
		if c := log[off]; c == '{' || c == '[' {
			dec := json.NewDecoder(bytes.NewReader(log[off:]))
			var raw json.RawMessage
			if dec.Decode(&raw) == nil {
				out = append(out, gjson.ParseBytes(raw))
				if n := off + int(dec.InputOffset()); n > next {
					if i := bytes.IndexByte(log[n:], '\n'); i >= 0 {
						next = n + i + 1
					} else {
						next = len(log)
					}
				}
			}
		}
		off = next
	}
	return out
}

// innerMessage is the message of an API error that a CLI quotes as JSON
// in its own message ({"error":{"code":400,"message":...,"status":...}}),
// else the message itself.
func innerMessage(msg string) string {
	i := strings.Index(msg, "{")
	if i < 0 {
		return msg
	}
	var v struct {
		Error struct {
			Code    any    `json:"code"`
			Message string `json:"message"`
			Status  string `json:"status"`
		} `json:"error"`
	}
	dec := json.NewDecoder(strings.NewReader(msg[i:]))
	if dec.Decode(&v) != nil || v.Error.Message == "" {
		return msg
	}
	s := v.Error.Message
	if code := strings.TrimSpace(fmt.Sprint(v.Error.Code, " ", v.Error.Status)); code != "<nil>" && code != "" {
		s += " (" + strings.TrimPrefix(code, "<nil> ") + ")"
	}
	return s
}

// quoteLine makes s one line of at most n bytes, for a progress line: the
// agent's text reaches a person's terminal, so a control character (an
// escape sequence's ESC) or a bidi override becomes "?".
func quoteLine(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		if !unicode.IsPrint(r) || unicode.Is(unicode.Bidi_Control, r) {
			return '?'
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "..."
	}
	return s
}

// modelName is a model's name as run records it: the pattern of
// config.json's prices keys (letters, digits and ._:/@+-, at most 100).
var modelName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,99}$`) })

func deref64(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
