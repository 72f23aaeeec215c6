package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
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
// or @-, read through src and so capped at max_input_bytes. Every JSON
// value is decoded strictly (DecodeStrict).
func ParseInput(sk *Skill, flags map[string][]string, inputJSON []byte, src Source) (*Input, error) {
	in := &Input{skill: sk, vals: map[string]any{}}
	if inputJSON != nil {
		var obj map[string]json.RawMessage
		if err := DecodeStrict(inputJSON, &obj); IsTextError(err) {
			return nil, badInput("--input: %v", err).WithHint("nothing was written; " + model.TextRule)
		} else if err != nil || obj == nil {
			if err == nil {
				err = fmt.Errorf("it is null")
			}
			return nil, badInput("--input is not a JSON object: %v", err).
				WithHint(fmt.Sprintf("give one object with the keys %s", strings.Join(sk.paramNames(), ", ")))
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			p := sk.param(k)
			if p == nil {
				h := fmt.Sprintf("%s takes %s", sk.Name, strings.Join(sk.paramNames(), ", "))
				if near := model.Nearest(k, sk.paramNames(), 1); len(near) > 0 {
					h = fmt.Sprintf("did you mean %q? (%s)", near[0], h)
				}
				return nil, badInput("--input has an unknown key %q", k).WithHint(h)
			}
			v, err := p.fromJSON(obj[k])
			if err != nil {
				return nil, err
			}
			if err := p.checkTexts(v, src.Max); err != nil {
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
		v, err := p.fromFlags(flags[name], src)
		if err != nil {
			return nil, err
		}
		in.vals[name] = v
	}
	for _, p := range sk.Params {
		if _, ok := in.vals[p.Name]; !ok && p.Required {
			return nil, badInput("%s needs --%s (%s)", sk.Name, FlagName(p.Name), p.Help).
				WithHint(fmt.Sprintf("add --%s, or give %q in --input", FlagName(p.Name), p.Name))
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
func (p *Param) fromFlags(vals []string, src Source) (any, error) {
	if !p.isList() && len(vals) > 1 {
		return nil, badInput("--%s is given %d times; it takes one value", FlagName(p.Name), len(vals)).WithHint("give --" + FlagName(p.Name) + " once: " + p.Help)
	}
	switch p.Type {
	case TypeTexts:
		out := slices.Clone(vals)
		return out, src.Texts(p.Name, out)
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
		v, err := src.Text(p.Name, vals[0])
		if err != nil {
			return nil, err
		}
		return p.fromJSON(json.RawMessage(v))
	case TypeText:
		v, err := src.Text(p.Name, vals[0])
		if err != nil {
			return nil, err
		}
		return v, p.check(v)
	default:
		return vals[0], p.check(vals[0])
	}
}

// fromJSON converts the value of an --input key (or of --sub-statements).
// The value's kind picks the decoding, so that a strict decode's error
// (an unknown key, trailing data) is reported instead of falling through
// to another form.
func (p *Param) fromJSON(raw json.RawMessage) (any, error) {
	wrong := func(want string) error {
		return badInput("%q in --input must be %s, got %s", p.Name, want, abbrev(raw)).WithHint(p.Help)
	}
	strictly := func(v any) error {
		if err := DecodeStrict(raw, v); err != nil {
			return badInput("%s: %v", p.Name, err).WithHint(p.Help)
		}
		return nil
	}
	kind := jsonKind(raw)
	switch p.Type {
	case TypeTexts:
		if kind == '"' {
			var one string
			if err := strictly(&one); err != nil {
				return nil, err
			}
			return []string{one}, nil
		}
		var out []string
		if kind != '[' || DecodeStrict(raw, &out) != nil {
			return nil, wrong("a list of strings")
		}
		return nonNil(out), nil
	case TypeInts:
		var out []int
		if kind == '[' {
			if DecodeStrict(raw, &out) != nil {
				return nil, wrong("an integer or a list of integers")
			}
		} else {
			var one int
			if DecodeStrict(raw, &one) != nil {
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
		if DecodeStrict(raw, &n) != nil || n < 1 {
			return nil, wrong("a positive integer")
		}
		return n, nil
	case TypeRange:
		switch kind {
		case '{':
			var r Range
			if err := strictly(&r); err != nil {
				return nil, err
			}
			if r.End == 0 {
				r.End = r.Start
			}
			return p.checkRange(r)
		case '"':
			var s string
			if err := strictly(&s); err != nil {
				return nil, err
			}
			return p.parseRange(s)
		}
		var n int
		if DecodeStrict(raw, &n) != nil {
			return nil, wrong(`{"start": N, "end": M}, "N-M" or N`)
		}
		return p.checkRange(Range{n, n})
	case TypeSubs:
		var subs []SubSpec
		if err := DecodeStrict(raw, &subs); err != nil {
			return nil, badInput("%s must be a JSON array of {\"claim\": TEXT, \"premises\": [TEXT...]}: %v", p.Name, err).WithHint(`e.g. [{"claim": "...", "premises": ["..."]}]: ` + p.Help)
		}
		for i := range subs {
			if strings.TrimSpace(subs[i].Claim) == "" {
				return nil, badInput("%s[%d] has an empty claim", p.Name, i).WithHint("give every sub-statement a claim: " + p.Help)
			}
			subs[i].Premises = nonNil(subs[i].Premises)
		}
		return subs, nil
	default:
		var s string
		if kind != '"' || DecodeStrict(raw, &s) != nil {
			return nil, wrong("a string")
		}
		return s, p.check(s)
	}
}

func (p *Param) check(s string) error {
	if p.Type == TypeEnum {
		if err := model.OneOf(p.Name, s, p.Enum); err != nil {
			return &store.Error{Code: store.CodeInvalidInput, Msg: err.Error(), Hint: fmt.Sprintf("--%s is %s; pick one of the values the message lists", FlagName(p.Name), p.Help)}
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
		return 0, badInput("--%s must be a positive integer, got %q", FlagName(p.Name), s).WithHint("--" + FlagName(p.Name) + " is " + p.Help)
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
		return nil, badInput("--%s must be a sentence range such as 3-5 or 4, got %q", FlagName(p.Name), s).WithHint("--" + FlagName(p.Name) + " is " + p.Help)
	}
	return p.checkRange(Range{first, last})
}

func (p *Param) checkRange(r Range) (any, error) {
	if r.Start < 1 || r.End < r.Start {
		return nil, badInput("%s %d-%d is not a range: it needs 1 <= start <= end", p.Name, r.Start, r.End).WithHint("give the first and the last sentence, in that order, as `proofloop show ID --sentences` numbers them")
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

// DecodeStrict decodes one JSON value into v, refusing what encoding/json
// lets through: a key that v's structs do not name exactly, at any depth
// (encoding/json ignores unknown keys and matches "Claim" to claim); a key
// given twice in one object (the last would silently win); and anything
// after the value; and nesting deeper than store.MaxJSONDepth; and a text
// that model.CheckText refuses (checkJSONText), which encoding/json would
// have replaced by U+FFFD or taken as it is. Every JSON input a command takes goes through it. The
// error names the key, or quotes the trailing data.
func DecodeStrict(raw []byte, v any) error {
	if err := store.CheckJSONDepth(raw); err != nil {
		return err // before any decoding: a walk's memory grows with depth squared
	}
	if err := checkJSONText(raw); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // a token walk must not fail on numbers a float cannot hold
	if err := checkKeys(dec, reflect.TypeOf(v), ""); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("the JSON value is empty or cut short")
		}
		return err
	}
	end := dec.InputOffset()
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("trailing data after the JSON value: %q", abbrev(bytes.TrimSpace(raw[end:])))
	}
	return json.Unmarshal(raw, v)
}

// checkKeys reads one JSON value from dec, checking every object's keys
// against t, the Go type it will be decoded into (nil: any keys).
func checkKeys(dec *json.Decoder, t reflect.Type, path string) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := checkKeys(dec, elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case json.Delim('{'):
		fields := jsonFields(t)
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			at := k
			if path != "" {
				at = path + "." + k
			}
			if seen[k] {
				return fmt.Errorf("key %q is given twice", at)
			}
			seen[k] = true
			var ft reflect.Type
			if fields != nil {
				var ok bool
				if ft, ok = fields[k]; !ok {
					return fmt.Errorf("unknown key %q", at)
				}
			} else if t != nil && t.Kind() == reflect.Map {
				ft = t.Elem()
			}
			if err := checkKeys(dec, ft, at); err != nil {
				return err
			}
		}
	default:
		return nil // a scalar
	}
	_, err = dec.Token() // the closing ] or }
	return err
}

// jsonFields maps the JSON names of a struct's fields to their types; nil
// when t is not a struct.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// jsonKind is the first byte of a JSON value: '{', '[', '"', or another
// byte for a number, a literal or nothing.
func jsonKind(raw []byte) byte {
	if b := bytes.TrimSpace(raw); len(b) > 0 {
		return b[0]
	}
	return 0
}

// abbrev is a piece of input for a message, cut to 60 bytes: an input
// may be megabytes long.
func abbrev(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "..."
	}
	return string(b)
}
