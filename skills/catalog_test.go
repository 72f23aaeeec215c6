package skills

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

func TestCatalogFollowsRegistryAndTable(t *testing.T) {
	cat, err := Catalog()
	if err != nil {
		t.Fatal(err)
	}
	if len(cat) != len(Registry) {
		t.Fatalf("Catalog() has %d entries; want %d", len(cat), len(Registry))
	}
	for i, sk := range Registry {
		e, r := cat[i], sk.Rule()
		if e.Name != sk.Name || e.Purpose != sk.Purpose || e.Target != sk.Target {
			t.Errorf("entry %d = %s %q target %s; want %s %q target %s", i, e.Name, e.Purpose, e.Target, sk.Name, sk.Purpose, sk.Target)
		}
		if !slices.Equal(e.Roles, r.Roles) || e.Kind != r.Kind || e.Leaves != r.Leaves {
			t.Errorf("%s: roles %v kind %s leaves %q; want the table's %v %s %q", sk.Name, e.Roles, e.Kind, e.Leaves, r.Roles, r.Kind, r.Leaves)
		}
		if len(e.ActsOn) != len(r.BySource()) {
			t.Fatalf("%s acts on %d sets; want %d", sk.Name, len(e.ActsOn), len(r.BySource()))
		}
		for j, f := range r.BySource() {
			if e.ActsOn[j].Source != f.Source || !slices.Equal(e.ActsOn[j].Statuses, f.Statuses) {
				t.Errorf("%s acts on %+v; want %+v", sk.Name, e.ActsOn[j], f)
			}
		}
		var guards []string
		for _, g := range e.Guards {
			guards = append(guards, g.Name)
		}
		var want []string
		for _, g := range r.Guards {
			want = append(want, g.Name)
		}
		if !slices.Equal(guards, want) {
			t.Errorf("%s guards %v; want %v", sk.Name, guards, want)
		}
		if len(e.Params) != len(sk.Params) {
			t.Fatalf("%s has %d parameters; want %d", sk.Name, len(e.Params), len(sk.Params))
		}
		for j, p := range sk.Params {
			ep := e.Params[j]
			if ep.Name != p.Name || ep.Flag != "--"+strings.ReplaceAll(p.Name, "_", "-") || ep.Type != p.Type || ep.Required != p.Required || !slices.Equal(ep.Enum, p.Enum) || ep.Help != p.Help {
				t.Errorf("%s parameter %+v; want %+v", sk.Name, ep, p)
			}
			if ep.List != (p.Type == TypeTexts || p.Type == TypeInts) {
				t.Errorf("%s parameter %s list = %v for type %s", sk.Name, p.Name, ep.List, p.Type)
			}
		}
		if !strings.HasPrefix(e.Example, "proofloop "+sk.Name+" ") {
			t.Errorf("%s example %q does not start with its command", sk.Name, e.Example)
		}
		if n := len(e.Refusals); n != len(sk.Refusals)+len(CommonRefusals) {
			t.Errorf("%s has %d refusals; want its %d and the %d common ones", sk.Name, n, len(sk.Refusals), len(CommonRefusals))
		}
	}
}

// TestCatalogJSONHasNoNulls: JSON output is an API, and an empty list is
// [], not null.
func TestCatalogJSONHasNoNulls(t *testing.T) {
	cat, err := Catalog()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(cat)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "null") {
		t.Errorf("the catalog's JSON has a null: %s", b)
	}
	var back []map[string]any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"name", "roles", "purpose", "parameters", "acts_on", "leaves", "guards", "example", "example_input", "refusals"} {
		if _, ok := back[0][key]; !ok {
			t.Errorf("catalog entry has no %q: %v", key, back[0])
		}
	}
}

// TestCatalogDocTexts: every skill has the texts the docs need, and a
// refusal for each guard of its rule, so a new guard cannot go
// undocumented.
func TestCatalogDocTexts(t *testing.T) {
	known := map[store.Code]bool{}
	for _, e := range ExitCodes {
		known[e.Code] = true
	}
	for _, sk := range Registry {
		for name, v := range map[string]string{"When": sk.When, "WhenNot": sk.WhenNot, "Output": sk.Output, "ExampleOutput": sk.ExampleOutput} {
			if strings.TrimSpace(v) == "" {
				t.Errorf("%s has no %s", sk.Name, name)
			}
		}
		var guards []string
		for _, r := range sk.Refusals {
			if !known[r.Code] {
				t.Errorf("%s refusal %q has an unknown code %s", sk.Name, r.When, r.Code)
			}
			if r.When == "" || r.Do == "" {
				t.Errorf("%s refusal %+v lacks when or do", sk.Name, r)
			}
			if r.Guard != "" {
				if r.Code != store.CodeGuardFailed {
					t.Errorf("%s refusal for guard %s has code %s; want guard_failed", sk.Name, r.Guard, r.Code)
				}
				guards = append(guards, r.Guard)
			}
		}
		for _, g := range sk.Rule().Guards {
			if !slices.Contains(guards, g.Name) {
				t.Errorf("%s: guard %s has no refusal saying what to do", sk.Name, g.Name)
			}
		}
		if !json.Valid([]byte(sk.ExampleOutput)) {
			t.Errorf("%s ExampleOutput is not JSON: %s", sk.Name, sk.ExampleOutput)
		}
	}
	for _, r := range CommonRefusals {
		if !known[r.Code] || r.When == "" || r.Do == "" {
			t.Errorf("common refusal %+v: unknown code or missing text", r)
		}
	}
}

func TestCatalogEveryEnumValueHasAMeaning(t *testing.T) {
	for _, sk := range Registry {
		for _, p := range sk.Params {
			for _, v := range p.Enum {
				if ValueMeanings[p.Name][v] == "" {
					t.Errorf("%s --%s: value %s has no meaning in ValueMeanings", sk.Name, FlagName(p.Name), v)
				}
			}
		}
	}
}

func TestCatalogRoles(t *testing.T) {
	want := []model.Role{model.RoleSolve, model.RoleProve, model.RoleCheck, model.RoleFix}
	if got := Roles(); !slices.Equal(got, want) {
		t.Errorf("Roles() = %v; want %v", got, want)
	}
	// Each role's skills are the registry's skills whose row of the
	// transition table names the role, in registry order.
	for _, r := range want {
		var got, wantNames []string
		for _, sk := range ForRole(r) {
			got = append(got, sk.Name)
		}
		for _, sk := range Registry {
			if row, ok := model.Lookup(sk.Name); ok && slices.Contains(row.Roles, r) {
				wantNames = append(wantNames, sk.Name)
			}
		}
		if len(got) == 0 || !slices.Equal(got, wantNames) {
			t.Errorf("ForRole(%s) = %v; want the registry's skills whose row names %s, %v", r, got, r, wantNames)
		}
	}
	if got := ForRole(model.RoleDecide); len(got) != 0 {
		t.Errorf("ForRole(decide) = %d skills; want none (decide is a command, not a skill)", len(got))
	}
}

// TestCatalogExampleInputRoundTrip: the --input form of each example,
// parsed back, gives the skill exactly the values of the flag form.
func TestCatalogExampleInputRoundTrip(t *testing.T) {
	for _, sk := range Registry {
		js, err := ExampleInput(sk)
		if err != nil {
			t.Errorf("ExampleInput(%s): %v", sk.Name, err)
			continue
		}
		fromJSON, err := ParseInput(sk, nil, []byte(js), Source{Stdin: strings.NewReader(""), Max: 1 << 20})
		if err != nil {
			t.Errorf("%s: the --input form %s does not parse: %v", sk.Name, js, err)
			continue
		}
		args, _ := ExampleArgs(sk)
		flags := map[string][]string{}
		for i := 0; i+1 < len(args); i += 2 {
			k := strings.ReplaceAll(strings.TrimPrefix(args[i], "--"), "-", "_")
			flags[k] = append(flags[k], args[i+1])
		}
		fromFlags, err := ParseInput(sk, flags, nil, Source{Stdin: strings.NewReader(""), Max: 1 << 20})
		if err != nil {
			t.Fatalf("%s: flag form: %v", sk.Name, err)
		}
		if !reflect.DeepEqual(fromJSON.vals, fromFlags.vals) {
			t.Errorf("%s: --input gives %v; flags give %v", sk.Name, fromJSON.vals, fromFlags.vals)
		}
		if !strings.HasPrefix(js, "{\n  \"") || !strings.HasSuffix(js, "\n}") {
			t.Errorf("%s: --input form is not one key per line: %s", sk.Name, js)
		}
	}
}

func TestCatalogExampleInputRefusesBadExamples(t *testing.T) {
	base := *stateMarkFalse
	for _, ex := range []string{
		`--statement-path stmt_x --source maybe --counterexample "n = 0"`, // bad enum
		`--statement-path stmt_x --source prove`,                          // missing required
		`--no-such-flag x`,                                                // unknown flag
		`--statement-path`,                                                // flag without value
		`stmt_x`,                                                          // not a flag
		`--counterexample "unclosed`,                                      // bad quoting
	} {
		sk := base
		sk.Example = ex
		if js, err := ExampleInput(&sk); err == nil {
			t.Errorf("ExampleInput with example %q = %s; want an error", ex, js)
		}
	}
}

func TestCatalogExampleChain(t *testing.T) {
	for _, tc := range []struct {
		skill string
		want  []string
	}{
		{"prob-wrapup-statement", nil},
		{"state-complete-proof", []string{"prob-wrapup-statement"}},
		{"prob-finish-up", []string{"prob-wrapup-statement", "state-complete-proof", "check-confirm-proof"}},
		{"fix-patch-proof", []string{"prob-wrapup-statement", "state-complete-proof", "check-reject-proof"}},
	} {
		sk, _ := Find(tc.skill)
		chain, err := ExampleChain(sk)
		if err != nil {
			t.Fatalf("ExampleChain(%s): %v", tc.skill, err)
		}
		var got []string
		for _, c := range chain {
			got = append(got, c.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("ExampleChain(%s) = %v; want %v", tc.skill, got, tc.want)
		}
	}
	for _, sk := range Registry {
		if _, err := ExampleChain(sk); err != nil {
			t.Errorf("ExampleChain(%s): %v", sk.Name, err)
		}
	}
	self := Skill{Name: "prob-wrapup-statement", ExampleAfter: "prob-wrapup-statement"}
	if _, err := ExampleChain(&self); err == nil {
		t.Error("ExampleChain of a skill that runs after itself: no error; want a loop error")
	}
	unknown := Skill{Name: "x", ExampleAfter: "no-such-skill"}
	if _, err := ExampleChain(&unknown); err == nil {
		t.Error("ExampleChain after an unknown skill: no error; want one")
	}
}

func TestCatalogSplitArgs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`a b  c`, []string{"a", "b", "c"}},
		{`--x "two words" --y 'it''s'`, []string{"--x", "two words", "--y", "its"}},
		{`"a \"q\" \\ \$"`, []string{`a "q" \ $`}},
		{`'$HOME and "x"'`, []string{`$HOME and "x"`}},
		{`a\ b`, []string{"a b"}},
		{`"" x`, []string{"", "x"}},
		{`'[{"claim": "1 = 1^2."}]'`, []string{`[{"claim": "1 = 1^2."}]`}},
		{`"n <= 10; n > 0"`, []string{"n <= 10; n > 0"}},
	} {
		got, err := SplitArgs(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("SplitArgs(%s) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`"unclosed`, `'unclosed`, `trailing\`, `a | b`, `a > f`, `$HOME`, `"$HOME"`, "\"`x`\"", `a*`, `{a,b}`, `a;b`} {
		if got, err := SplitArgs(bad); err == nil {
			t.Errorf("SplitArgs(%s) = %q; want an error", bad, got)
		}
	}
}

// TestCatalogExampleSetup: every example's set-up starts from an empty
// folder (init, then the example problem), runs its chain's examples in
// order, each as an actor of its own role, so that no proof is checked by
// its author, and every line is one a shell and ParseInput accept.
func TestCatalogExampleSetup(t *testing.T) {
	for _, sk := range Registry {
		lines, err := ExampleSetup(sk)
		if err != nil {
			t.Fatalf("ExampleSetup(%s): %v", sk.Name, err)
		}
		chain, _ := ExampleChain(sk)
		if len(lines) != 2+len(chain) || lines[0] != "proofloop init" || lines[1] != "proofloop "+ExampleProblem {
			t.Errorf("ExampleSetup(%s) = %q; want init, new-problem and %d examples", sk.Name, lines, len(chain))
			continue
		}
		actors := map[model.Role]string{}
		for i, prev := range chain {
			args, err := SplitArgs(lines[2+i])
			if err != nil {
				t.Errorf("%s set-up line %q: %v", sk.Name, lines[2+i], err)
				continue
			}
			n := len(args)
			if n < 4 || args[0] != "proofloop" || args[1] != prev.Name || args[n-2] != "--actor" {
				t.Errorf("%s set-up line %q is not `proofloop %s ... --actor NAME`", sk.Name, lines[2+i], prev.Name)
				continue
			}
			role := prev.Rule().Roles[0]
			if a, ok := actors[role]; ok && a != args[n-1] {
				t.Errorf("%s set-up: role %s acts as %s and %s", sk.Name, role, a, args[n-1])
			}
			actors[role] = args[n-1]
			if !strings.HasPrefix(lines[2+i], "proofloop "+prev.Name+" "+prev.Example+" ") {
				t.Errorf("%s set-up line %q is not %s's own example", sk.Name, lines[2+i], prev.Name)
			}
		}
		seen := map[string]model.Role{}
		for r, a := range actors {
			if other, dup := seen[a]; dup {
				t.Errorf("%s set-up: roles %s and %s both act as %s", sk.Name, r, other, a)
			}
			seen[a] = r
		}
	}
	confirm, _ := Find("check-confirm-proof")
	lines, _ := ExampleSetup(confirm)
	if last := lines[len(lines)-1]; !strings.Contains(last, "state-complete-proof") || !strings.HasSuffix(last, " --actor prover") {
		t.Errorf("check-confirm-proof's set-up ends %q; want the proof written by the actor prover", last)
	}
}
