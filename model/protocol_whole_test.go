package model

import (
	"maps"
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
