package skills

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Range is an inclusive range of proof sentences, 1-based.
type Range struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// SubSpec is one sub-statement to create.
type SubSpec struct {
	Claim    string   `json:"claim"`
	Premises []string `json:"premises"`
}

// Input holds a skill's parameters, checked against its Params: from flags
// (strings, list flags repeated) and from --input JSON (snake_case keys).
type Input struct {
	skill *Skill
	vals  map[string]any
}

// FlagName is the kebab-case flag of a snake_case parameter.
func FlagName(param string) string { return strings.ReplaceAll(param, "_", "-") }

// ParseInput builds a skill's input. flags holds the values of the flags
// that were given; inputJSON is the --input document (nil when absent). A
// parameter may come from one of the two, not both. Text flags may be @FILE
// or @- (stdin).
func ParseInput(sk *Skill, flags map[string][]string, inputJSON []byte, stdin io.Reader) (*Input, error) {
	in := &Input{skill: sk, vals: map[string]any{}}
	if inputJSON != nil {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(inputJSON, &obj); err != nil || obj == nil {
			if err == nil {
				err = fmt.Errorf("it is null")
			}
			return nil, badInput("--input is not a JSON object: %v", err).
				WithHint(fmt.Sprintf("give one object with the keys %s", strings.Join(sk.paramNames(), ", ")))
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			p := sk.param(k)
			if p == nil {
				return nil, badInput("--input has an unknown key %q", k).
					WithHint(fmt.Sprintf("%s takes %s", sk.Name, strings.Join(sk.paramNames(), ", ")))
			}
			v, err := p.fromJSON(obj[k])
			if err != nil {
				return nil, err
			}
			in.vals[p.Name] = v
		}
	}
	for _, name := range slices.Sorted(maps.Keys(flags)) {
		p := sk.param(name)
		if p == nil {
			continue
		}
		if _, dup := in.vals[name]; dup {
			return nil, badInput("%s is given both as --%s and in --input", name, FlagName(name)).WithHint("give each parameter once")
		}
		v, err := p.fromFlags(flags[name], stdin)
		if err != nil {
			return nil, err
		}
		in.vals[name] = v
	}
	for _, p := range sk.Params {
		if _, ok := in.vals[p.Name]; !ok && p.Required {
			return nil, badInput("%s needs --%s (%s)", sk.Name, FlagName(p.Name), p.Help).
				WithHint(fmt.Sprintf("or give %q in --input", p.Name))
		}
	}
	return in, nil
}

func badInput(format string, args ...any) *store.Error {
	return store.Errorf(store.CodeInvalidInput, format, args...)
}

func (sk *Skill) param(name string) *Param {
	for i := range sk.Params {
		if sk.Params[i].Name == name {
			return &sk.Params[i]
		}
	}
	return nil
}

func (sk *Skill) paramNames() []string {
	var out []string
	for _, p := range sk.Params {
		out = append(out, p.Name)
	}
	return out
}

func (p *Param) isList() bool { return p.Type == TypeTexts || p.Type == TypeInts }

// fromFlags converts the string values of a flag.
func (p *Param) fromFlags(vals []string, stdin io.Reader) (any, error) {
	if !p.isList() && len(vals) > 1 {
		return nil, badInput("--%s is given %d times; it takes one value", FlagName(p.Name), len(vals))
	}
	switch p.Type {
	case TypeTexts:
		out := make([]string, len(vals))
		for i, v := range vals {
			if err := ReadTextArgs(stdin, &v); err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case TypeInts:
		var out []int
		for _, v := range vals {
			for _, f := range strings.Split(v, ",") {
				n, err := p.atoi(f)
				if err != nil {
					return nil, err
				}
				out = append(out, n)
			}
		}
		return out, nil
	case TypeInt:
		return p.atoi(vals[0])
	case TypeRange:
		return p.parseRange(vals[0])
	case TypeSubs:
		v := vals[0]
		if err := ReadTextArgs(stdin, &v); err != nil {
			return nil, err
		}
		return p.fromJSON(json.RawMessage(v))
	case TypeText:
		v := vals[0]
		if err := ReadTextArgs(stdin, &v); err != nil {
			return nil, err
		}
		return v, p.check(v)
	default:
		return vals[0], p.check(vals[0])
	}
}

// fromJSON converts the value of an --input key.
func (p *Param) fromJSON(raw json.RawMessage) (any, error) {
	wrong := func(want string) error {
		return badInput("%q in --input must be %s, got %s", p.Name, want, string(raw)).WithHint(p.Help)
	}
	switch p.Type {
	case TypeTexts:
		var out []string
		if json.Unmarshal(raw, &out) != nil {
			var one string
			if json.Unmarshal(raw, &one) != nil {
				return nil, wrong("a list of strings")
			}
			out = []string{one}
		}
		return nonNil(out), nil
	case TypeInts:
		var out []int
		if json.Unmarshal(raw, &out) != nil {
			var one int
			if json.Unmarshal(raw, &one) != nil {
				return nil, wrong("an integer or a list of integers")
			}
			out = []int{one}
		}
		for _, n := range out {
			if n < 1 {
				return nil, wrong("positive integers")
			}
		}
		return out, nil
	case TypeInt:
		var n int
		if json.Unmarshal(raw, &n) != nil || n < 1 {
			return nil, wrong("a positive integer")
		}
		return n, nil
	case TypeRange:
		var r Range
		if json.Unmarshal(raw, &r) == nil && r.Start > 0 {
			if r.End == 0 {
				r.End = r.Start
			}
			return p.checkRange(r)
		}
		var n int
		if json.Unmarshal(raw, &n) == nil {
			return p.checkRange(Range{n, n})
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return p.parseRange(s)
		}
		return nil, wrong(`{"start": N, "end": M}, "N-M" or N`)
	case TypeSubs:
		var subs []SubSpec
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&subs); err != nil {
			return nil, badInput("%s must be a JSON array of {\"claim\": TEXT, \"premises\": [TEXT...]}: %v", p.Name, err)
		}
		for i := range subs {
			if strings.TrimSpace(subs[i].Claim) == "" {
				return nil, badInput("%s[%d] has an empty claim", p.Name, i)
			}
			subs[i].Premises = nonNil(subs[i].Premises)
		}
		return subs, nil
	default:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, wrong("a string")
		}
		return s, p.check(s)
	}
}

func (p *Param) check(s string) error {
	if p.Type == TypeEnum {
		if err := model.OneOf(p.Name, s, p.Enum); err != nil {
			return &store.Error{Code: store.CodeInvalidInput, Msg: err.Error()}
		}
	}
	if (p.Type == TypeText || p.Type == TypeRef) && p.Required && strings.TrimSpace(s) == "" {
		return badInput("%s must not be empty", p.Name).WithHint(p.Help)
	}
	return nil
}

func (p *Param) atoi(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 {
		return 0, badInput("--%s must be a positive integer, got %q", FlagName(p.Name), s)
	}
	return n, nil
}

func (p *Param) parseRange(s string) (any, error) {
	a, b, isPair := strings.Cut(strings.TrimSpace(s), "-")
	first, err1 := strconv.Atoi(strings.TrimSpace(a))
	last, err2 := first, error(nil)
	if isPair {
		last, err2 = strconv.Atoi(strings.TrimSpace(b))
	}
	if err1 != nil || err2 != nil {
		return nil, badInput("--%s must be a sentence range such as 3-5 or 4, got %q", FlagName(p.Name), s)
	}
	return p.checkRange(Range{first, last})
}

func (p *Param) checkRange(r Range) (any, error) {
	if r.Start < 1 || r.End < r.Start {
		return nil, badInput("%s %d-%d is not a range: it needs 1 <= start <= end", p.Name, r.Start, r.End)
	}
	return r, nil
}

// Has reports whether the parameter was given.
func (in *Input) Has(name string) bool { _, ok := in.vals[name]; return ok }

// Text returns a text, ref or enum parameter ("" when absent).
func (in *Input) Text(name string) string { s, _ := in.vals[name].(string); return s }

// OptText returns a text parameter, or nil when it was not given.
func (in *Input) OptText(name string) *string {
	if s, ok := in.vals[name].(string); ok {
		return &s
	}
	return nil
}

// Texts returns a list parameter (empty when absent).
func (in *Input) Texts(name string) []string {
	s, _ := in.vals[name].([]string)
	return nonNil(s)
}

// Int returns an integer parameter (0 when absent).
func (in *Input) Int(name string) int {
	switch v := in.vals[name].(type) {
	case int:
		return v
	case []int:
		if len(v) > 0 {
			return v[0]
		}
	}
	return 0
}

// Ints returns an integer list parameter.
func (in *Input) Ints(name string) []int {
	switch v := in.vals[name].(type) {
	case int:
		return []int{v}
	case []int:
		return slices.Clone(v)
	}
	return nil
}

// Range returns a sentence range parameter.
func (in *Input) Range(name string) Range { r, _ := in.vals[name].(Range); return r }

// Subs returns a sub-statements parameter.
func (in *Input) Subs(name string) []SubSpec { s, _ := in.vals[name].([]SubSpec); return s }
