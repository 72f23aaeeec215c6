package skills

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// The catalog is the registry as data, for `proofloop skills` and the
// generated .claude/ files: each skill with its roles, parameters, its row
// of the transition table, its example and the refusals to expect.

// Entry is one skill of the catalog.
type Entry struct {
	Name    string       `json:"name"`
	Roles   []model.Role `json:"roles"`
	Purpose string       `json:"purpose"`
	When    string       `json:"when"`
	WhenNot string       `json:"when_not"`
	Kind    model.Kind   `json:"kind"`   // the kind of document it acts on
	Target  string       `json:"target"` // the parameter naming that document
	Params  []ParamEntry `json:"parameters"`
	ActsOn  []ActsOn     `json:"acts_on"`
	Leaves  string       `json:"leaves"`
	Guards  []GuardEntry `json:"guards"`
	Output  string       `json:"output"`
	// Example is the complete example command; ExampleInput is the same
	// call's --input object.
	Example      string          `json:"example"`
	ExampleInput json.RawMessage `json:"example_input"`
	Refusals     []Refusal       `json:"refusals"`
}

// ParamEntry is one parameter of a catalog entry.
type ParamEntry struct {
	Name     string    `json:"name"` // the --input key
	Flag     string    `json:"flag"`
	Type     ParamType `json:"type"`
	List     bool      `json:"list"` // the flag repeats; JSON takes an array
	Required bool      `json:"required"`
	Enum     []string  `json:"enum"`
	Help     string    `json:"help"`
}

// ActsOn is a set of statuses a skill acts on, for one source of the call
// ("" when the skill takes no source).
type ActsOn struct {
	Source   model.Source   `json:"source,omitempty"`
	Statuses []model.Status `json:"statuses"`
}

// GuardEntry is a guard of a skill's transition.
type GuardEntry struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// ExampleProblem is the new-problem call that every example chain starts
// from, on a fresh root: the examples act on prob_example and the
// documents the earlier examples of the chain create.
const ExampleProblem = `new-problem --name example --objective "For every n >= 1, 1 + 3 + ... + (2n-1) = n^2." --hypothesis "n is a positive integer"`

// CommonRefusals are the refusals any skill call can meet.
var CommonRefusals = []Refusal{
	{Code: store.CodeInvalidInput,
		When: "a parameter is missing, malformed, or not one of the allowed values",
		Do:   "Correct what the message names (a value must be one of those it lists) and make the call again; nothing was written."},
	{Code: store.CodeNotFound,
		When: "an id names no document, or --root is not a contents root",
		Do:   "Check the id with `proofloop show ID`. Take ids from `proofloop next`, from the documents you read, or from `created` in an earlier output; never guess them."},
	{Code: store.CodeInvalidTransition,
		When: "the document is not in a status this skill acts on",
		Do:   "Do not retry the same call. The message names the current status and the skills allowed now; re-read the document (`proofloop show ID`). If none of those skills is your role's, release the item and end your turn."},
	{Code: store.CodeConflict,
		When: "the document changed since you read it (--expect-revision N no longer matches)",
		Do:   "Someone acted on it meanwhile: re-read it with `proofloop show ID` and decide again from what it says now."},
	{Code: store.CodeLeaseHeld,
		When: "another agent holds a live lease on the item, or you did not pass your token",
		Do:   "If you claimed the item, pass your token (--lease TOKEN or $PROOFLOOP_LEASE). Otherwise it is not yours: do not retry; take other work (`proofloop next --role R --claim`) or end your turn."},
	{Code: store.CodeLockTimeout,
		When: "the store stayed locked longer than the lock timeout",
		Do:   "Wait a few seconds and make the same call again."},
	{Code: store.CodeStoreDamaged,
		When: "a file of the store does not parse or fails its schema",
		Do:   "Stop and report it; a human runs `proofloop doctor`. Never edit the JSON files by hand."},
}

// ValueMeanings says what each allowed value of an enum parameter means,
// by parameter name.
var ValueMeanings = map[string]map[string]string{
	"strategy": {
		"direct":         "derive the claim forward from the premises",
		"contradiction":  "assume the claim fails and derive a contradiction",
		"case_analysis":  "split into exhaustive cases and prove each",
		"backward":       "reduce the claim step by step to known facts",
		"induction":      "a base case and an inductive step",
		"contrapositive": "prove that the negated conclusion implies a negated premise",
		"construction":   "exhibit an object with the required properties",
	},
	"error_type": {
		"gap":               "a step is missing between what came before and this sentence",
		"unjustified_leap":  "the sentence asserts something that may be true but gives no reason it follows",
		"hidden_assumption": "the sentence uses a hypothesis that is not among the premises or proved facts",
		"circular":          "the sentence assumes the claim itself, or something equivalent to it",
		"scope_error":       "a fact is used outside the range where it holds (a variable's domain, a quantifier's order, an edge case)",
		"wrong_target":      "the proof establishes something other than the claim as stated",
	},
	"severity": {
		"critical": "the step is wrong: the logic breaks here (usually answered by mark-false or a modification)",
		"gap":      "the step may be right but is not supported (answered by a patch or a gap-filling sub-statement)",
	},
	"modification_type": {
		"strengthen_premises": "add or sharpen premises so the claim becomes true",
		"weaken_conclusion":   "claim less, keeping what the purpose needs",
		"add_condition":       "add a condition (an exclusion, a bound, a case) to the claim",
	},
	"verdict": {
		"well_posed": "clear, consistent, complete, not trivially false",
		"ill_posed":  "not so: propose the change it needs",
	},
	"source": {
		"prove": "called by the prover, on its own statement",
		"fix":   "called by the fixer, answering an open issue",
	},
}

// Roles lists the roles that use the skills of the registry, in the order
// they first appear as a skill's first role (solve, prove, check, fix),
// then any role that is never first.
func Roles() []model.Role {
	var out []model.Role
	for _, firstOnly := range []bool{true, false} {
		for _, sk := range Registry {
			for i, r := range sk.roles() {
				if (i == 0 || !firstOnly) && !slices.Contains(out, r) {
					out = append(out, r)
				}
			}
		}
	}
	return out
}

// ForRole lists the skills a role may use, in registry order.
func ForRole(r model.Role) []*Skill {
	var out []*Skill
	for _, sk := range Registry {
		if slices.Contains(sk.roles(), r) {
			out = append(out, sk)
		}
	}
	return out
}

func (sk *Skill) roles() []model.Role {
	if r := sk.Rule(); r != nil {
		return r.Roles
	}
	return nil
}

// Catalog returns every skill of the registry as a catalog entry. It fails
// when an example does not parse as the skill's input.
func Catalog() ([]Entry, error) {
	out := make([]Entry, 0, len(Registry))
	for _, sk := range Registry {
		e, err := CatalogEntry(sk)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// CatalogEntry returns one skill as a catalog entry.
func CatalogEntry(sk *Skill) (Entry, error) {
	r := sk.Rule()
	if r == nil {
		return Entry{}, fmt.Errorf("skill %s has no row in the transition table", sk.Name)
	}
	e := Entry{Name: sk.Name, Roles: slices.Clone(r.Roles), Purpose: sk.Purpose, When: sk.When, WhenNot: sk.WhenNot,
		Kind: r.Kind, Target: sk.Target, Params: []ParamEntry{}, ActsOn: []ActsOn{}, Leaves: r.Leaves,
		Guards: []GuardEntry{}, Output: sk.Output, Example: "proofloop " + sk.Name + " " + sk.Example,
		Refusals: append(slices.Clone(sk.Refusals), CommonRefusals...)}
	for _, p := range sk.Params {
		e.Params = append(e.Params, ParamEntry{Name: p.Name, Flag: "--" + FlagName(p.Name), Type: p.Type,
			List: p.isList(), Required: p.Required, Enum: append([]string{}, p.Enum...), Help: p.Help})
	}
	for _, f := range r.BySource() {
		e.ActsOn = append(e.ActsOn, ActsOn{Source: f.Source, Statuses: slices.Clone(f.Statuses)})
	}
	for _, g := range r.Guards {
		e.Guards = append(e.Guards, GuardEntry{g.Name, g.Text})
	}
	in, err := ExampleInput(sk)
	if err != nil {
		return Entry{}, err
	}
	e.ExampleInput = json.RawMessage(in)
	return e, nil
}

// ExampleArgs returns the example's arguments after the skill name, split
// as a POSIX shell splits them.
func ExampleArgs(sk *Skill) ([]string, error) {
	args, err := SplitArgs(sk.Example)
	if err != nil {
		return nil, fmt.Errorf("example of %s: %w", sk.Name, err)
	}
	return args, nil
}

// ExampleInput returns the --input object of the skill's example: the same
// parameters, with snake_case keys, in the registry's order, one per line.
func ExampleInput(sk *Skill) (string, error) {
	args, err := ExampleArgs(sk)
	if err != nil {
		return "", err
	}
	flags := map[string][]string{}
	for i := 0; i < len(args); i++ {
		name, ok := strings.CutPrefix(args[i], "--")
		if !ok || sk.param(strings.ReplaceAll(name, "-", "_")) == nil || i+1 == len(args) {
			return "", fmt.Errorf("example of %s: %q is not a parameter flag followed by its value", sk.Name, args[i])
		}
		key := strings.ReplaceAll(name, "-", "_")
		flags[key] = append(flags[key], args[i+1])
		i++
	}
	in, err := ParseInput(sk, flags, nil, Source{Stdin: strings.NewReader(""), Max: store.DefaultConfig().MaxInputBytes})
	if err != nil {
		return "", fmt.Errorf("example of %s: %w", sk.Name, err)
	}
	var b strings.Builder
	b.WriteString("{\n")
	n := 0
	for _, p := range sk.Params {
		v, ok := in.vals[p.Name]
		if !ok {
			continue
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return "", err
		}
		if n > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "  %q: %s", p.Name, strings.TrimSpace(buf.String()))
		n++
	}
	b.WriteString("\n}")
	return b.String(), nil
}

// ExampleChain returns the skills whose examples must run, in order, after
// ExampleProblem and before the skill's own example.
func ExampleChain(sk *Skill) ([]*Skill, error) {
	var chain []*Skill
	for s := sk; s.ExampleAfter != ""; {
		prev, ok := Find(s.ExampleAfter)
		if !ok {
			return nil, fmt.Errorf("example of %s runs after %q, which is not a skill", s.Name, s.ExampleAfter)
		}
		if prev.Name == sk.Name || slices.Contains(chain, prev) {
			return nil, fmt.Errorf("the example chain of %s loops at %s", sk.Name, prev.Name)
		}
		chain = append([]*Skill{prev}, chain...)
		s = prev
	}
	return chain, nil
}

// SplitArgs splits a command line as a POSIX shell does for the simple
// lines the examples use: words separated by blanks, '...' taken
// literally, "..." with \" \\ \$ and \` escapes, and a backslash outside
// quotes escaping the next character. Anything the shell would expand or
// redirect (unquoted | & ; < > ( ) $ ` * ? [ { } # ~ !, or $ and ` inside
// double quotes) is refused, so the line means the same to sh and bash as
// to this.
func SplitArgs(line string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inWord := false
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				args = append(args, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, fmt.Errorf("unclosed ' in %q", line)
			}
			cur.WriteString(string(rs[i+1 : j]))
			i, inWord = j, true
		case c == '"':
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				switch {
				case rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune("\"\\$`", rs[j+1]):
					j++
					cur.WriteRune(rs[j])
				case rs[j] == '$' || rs[j] == '`':
					return nil, fmt.Errorf("%q inside double quotes would be expanded by the shell; use single quotes", rs[j])
				default:
					cur.WriteRune(rs[j])
				}
			}
			if j == len(rs) {
				return nil, fmt.Errorf("unclosed \" in %q", line)
			}
			i, inWord = j, true
		case c == '\\':
			if i+1 == len(rs) {
				return nil, fmt.Errorf("trailing backslash in %q", line)
			}
			i++
			cur.WriteRune(rs[i])
			inWord = true
		case strings.ContainsRune("|&;<>()$`*?[{}#~!", c):
			return nil, fmt.Errorf("unquoted %q in %q: quote it", c, line)
		default:
			cur.WriteRune(c)
			inWord = true
		}
	}
	if inWord {
		args = append(args, cur.String())
	}
	return args, nil
}
