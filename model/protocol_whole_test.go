package model

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestProtocolsAreWhole checks that every protocol carries everything the
// engine, the transcript, the generated files and the help read from it:
// a protocol that lacks one fails here, never with a panic elsewhere.
func TestProtocolsAreWhole(t *testing.T) {
	names, paths := map[string]bool{}, map[string]bool{}
	for _, p := range Protocols {
		if p.Name == "" || names[p.Name] {
			t.Errorf("protocol %q: a name must be set and unique", p.Name)
		}
		names[p.Name] = true
		if p.Layout == nil {
			t.Errorf("%s has no transcript Layout", p.Name)
		}
		if p.terminal == nil || p.validate == nil {
			t.Errorf("%s lacks its terminal or validate rule", p.Name)
		}
		if !strings.HasPrefix(p.Help, p.Name+" (") {
			t.Errorf("%s Help = %q; want a `debate start --help` line that starts with %q", p.Name, p.Help, p.Name+" (")
		}
		if len(p.Fields) == 0 || len(p.Outcomes) == 0 || p.Limit.N < 1 || p.Invalidated == "" || !slices.Contains(p.Outcomes, p.Invalidated) {
			t.Errorf("%s: fields %d, outcomes %v, limit %+v, invalidated %q; want fields, outcomes with the invalidated one, a limit", p.Name, len(p.Fields), p.Outcomes, p.Limit, p.Invalidated)
		}
		var ruled []string
		for _, o := range p.Outcomes {
			if o != p.Invalidated && o != p.Timeout {
				ruled = append(ruled, o)
			}
		}
		if got := slices.Sorted(maps.Keys(p.CloseRules)); !slices.Equal(got, slices.Sorted(slices.Values(ruled))) {
			t.Errorf("%s CloseRules cover %v; want exactly the outcomes with a rule, %v", p.Name, got, ruled)
		}
		d := p.Doc
		if d.Path == "" || d.Name == "" || d.Description == "" || d.Guide == "" || paths[d.Path] {
			t.Errorf("%s Doc = %+v; want a unique path, a name, a description and a guide", p.Name, d)
		}
		paths[d.Path] = true
		e := d.Example
		if e.ID == "" || len(e.Steps) < 3 || !slices.Contains(p.Outcomes, e.Outcome) {
			t.Errorf("%s example: id %q, %d steps, outcome %q; want an id, steps, and one of %v", p.Name, e.ID, len(e.Steps), e.Outcome, p.Outcomes)
		}
		if len(p.Roles) > 0 && p.TurnCommands != nil {
			for _, r := range p.Roles {
				if len(p.TurnCommands[r]) == 0 {
					t.Errorf("%s: role %s has no turn command", p.Name, r)
				}
			}
		}
	}
}

// TestTurnShapeReadsAsASentence checks the turn format that prime prints and
// every refused turn's hint ends with: the article agrees with the
// protocol's name, and a role whose fields are all optional (review's
// reviewer) gets no empty "with ;".
func TestTurnShapeReadsAsASentence(t *testing.T) {
	for _, p := range Protocols {
		roles := p.Roles
		if len(roles) == 0 {
			roles = []string{"a"} // agora's roles are its positions
		}
		for _, role := range roles {
			got := p.TurnShape(role)
			if !strings.HasPrefix(got, A(p.Name)+" turn is ") {
				t.Errorf("%s.TurnShape(%s) = %q; want it to start with %q", p.Name, role, got, A(p.Name)+" turn is ")
			}
			if strings.Contains(got, "with ;") || strings.Contains(got, "with  ") || strings.HasSuffix(got, "with ") {
				t.Errorf("%s.TurnShape(%s) = %q; want no empty field list", p.Name, role, got)
			}
		}
	}
	if got, want := Review.TurnShape(RoleReviewer), "a review turn is a JSON object (--input FILE|-) with any of: body string (Markdown), points [{point, text}], follow_ups [{point, text}], consensus {agreed[], action_items[], disagreements[{point, text}]}"; got != want {
		t.Errorf("Review.TurnShape(reviewer) = %q; want %q", got, want)
	}
	if got := Agora.TurnShape("a"); !strings.HasPrefix(got, "an agora turn is a JSON object (--input FILE|-) with ") {
		t.Errorf("Agora.TurnShape = %q; want it to start with \"an agora turn\"", got)
	}
	// A --body on a JSON protocol's turn is refused with the same article.
	d := newDebate(&Agora, func(d *Debate) {
		d.Positions = []Position{{Role: "a", Text: "A"}, {Role: "b", Text: "B"}}
	})
	joinAll(t, &Agora, d, "x", "y")
	err := Agora.ValidateTurn(d, "p1", &DebateTurn{Body: "prose"}, nil)
	if err == nil || !strings.Contains(err.Error(), "an agora turn is a JSON object, not --body text") {
		t.Errorf("an agora turn with a body: %v; want a refusal saying \"an agora turn is a JSON object, not --body text\"", err)
	}
}

// TestNoProtocolNamedOutsideModel: nothing outside model/ switches on a
// protocol's name or reaches for one protocol's value; what differs between
// protocols is a field or method of model.Protocol (Disputes, UserTurns,
// OnePerSource, Layout, ...). It reads the Go sources of the packages that
// use the protocols, tests aside.
func TestNoProtocolNamedOutsideModel(t *testing.T) {
	var pats []*regexp.Regexp
	for _, p := range Protocols {
		q := regexp.QuoteMeta(p.Name)
		pats = append(pats, regexp.MustCompile(`(==|!=|case)\s*"`+q+`"`),
			regexp.MustCompile(`"`+q+`"\s*(==|!=)`),
			regexp.MustCompile(`\bmodel\.`+strings.ToUpper(q[:1])+q[1:]+`\b`))
	}
	files := 0
	for _, dir := range []string{"../loop", "../cmd", "../skills", "../report"} {
		err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			for i, line := range strings.Split(string(b), "\n") {
				for _, re := range pats {
					if re.MatchString(line) {
						t.Errorf("%s:%d names a protocol: %s", path, i+1, strings.TrimSpace(line))
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if files < 50 {
		t.Errorf("read %d Go files; want the sources of loop, cmd, skills and report", files)
	}
}

// TestRefusalsNameEveryProtocol: the refusals that name protocols (a
// dispute outside a disputing protocol, --body outside a protocol with a
// body) name every protocol the rule admits, from model.Protocols. They were
// once written out and missed panel; this fails on a list written by hand
// once a protocol joins it.
func TestRefusalsNameEveryProtocol(t *testing.T) {
	for _, p := range Protocols {
		if !p.Disputes {
			err := p.CheckStart(&Debate{Topic: "t", MaxTurns: 5, About: &DisputeLink{Statement: "stmt_a_wrap", IssueNumber: 1}})
			for _, q := range Protocols {
				if q.Disputes && (err == nil || !strings.Contains(err.Error(), q.Name)) {
					t.Errorf("%s with --about: %v; want a refusal that names %s, which disputes", p.Name, err, q.Name)
				}
			}
		}
		if !p.HasField("body") {
			err := p.checkFields("x", &DebateTurn{Body: "x"})
			for _, q := range Protocols {
				if q.HasField("body") && (err == nil || !strings.Contains(err.Error(), q.Name)) {
					t.Errorf("%s with --body: %v; want a refusal that names %s, whose turns have a body", p.Name, err, q.Name)
				}
			}
		}
	}
}
