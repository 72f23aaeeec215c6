package main

import (
	"fmt"
	"strings"

	"github.com/proofloop/proofloop/model"
)

// protocolRow is one debate protocol as `transitions` prints it: the data
// of model.Protocols, which the engine itself runs on.
type protocolRow struct {
	Name string `json:"name"`
	Seed string `json:"seed"`
	// StartFlags are the protocol's own flags of `debate start`: what
	// make demo reads to start one debate of each protocol.
	StartFlags string     `json:"start_flags"`
	Summary    string     `json:"summary"`
	Roles      []string   `json:"roles"` // join order; agora's come from --position
	Limit      limitRow   `json:"limit"`
	Outcomes   []string   `json:"outcomes"`
	Fields     []fieldRow `json:"fields"`
}

type limitRow struct {
	N    int    `json:"n"`
	Unit string `json:"unit"`
	Soft bool   `json:"soft"`
}

type fieldRow struct {
	Name     string   `json:"name"`
	In       string   `json:"in,omitempty"` // where a nested item lives; empty for a key of the turn
	Type     string   `json:"type"`
	Roles    []string `json:"roles"`            // empty: every role
	Except   []string `json:"except,omitempty"` // roles that never write it
	Required bool     `json:"required"`
	Enum     []string `json:"enum"`
	Rule     string   `json:"rule"`
}

func protocolRows() []protocolRow {
	var out []protocolRow
	for _, p := range model.Protocols {
		roles := p.Roles
		if roles == nil {
			roles = []string{"one per --position ROLE=TEXT", model.RoleMediator + " (asked for after repeated counters)", model.RoleResearcher + " (writes the research turns of --research N)"}
		}
		var fields []fieldRow
		for _, f := range p.Fields {
			fields = append(fields, fieldRow{f.Name, f.In, f.Type, append([]string{}, f.Roles...), f.Except, f.Required, append([]string{}, f.Enum...), f.Rule})
		}
		out = append(out, protocolRow{p.Name, p.Seed, p.StartFlags, p.Summary, roles, limitRow{p.Limit.N, p.Limit.Unit, p.Limit.Soft}, p.Outcomes, fields})
	}
	return out
}

// printProtocols prints each protocol and its turn fields for a person,
// wrapped to width; a nested item says where it lives.
func (a *app) printProtocols(width int) {
	for i, p := range protocolRows() {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		soft := ""
		if p.Limit.Soft {
			soft = " (soft)"
		}
		a.hang(width, "", "  ", fmt.Sprintf("%s — seed %s: %s", p.Name, p.Seed, p.Summary))
		a.hang(width, "  ", "    ", fmt.Sprintf("roles: %s; limit: %d %s%s; outcomes: %s", strings.Join(p.Roles, ", "), p.Limit.N, p.Limit.Unit, soft, strings.Join(p.Outcomes, ", ")))
		for _, f := range model.Protocols[i].Fields {
			a.hang(width, "  ", "      ", fieldLine(f, true))
		}

	}
}

// fieldLine says what a turn field holds, for `transitions --protocols`
// and `prime --role` (who writes it only when who is set): "stance: string
// (any role, required); one of A, B; rule".
func fieldLine(f model.Field, who bool) string {
	var tags []string
	if who {
		tags = append(tags, "any role")
		if len(f.Roles) > 0 {
			tags[0] = strings.Join(f.Roles, ", ")
		}
		if len(f.Except) > 0 {
			tags[0] += " but " + strings.Join(f.Except, ", ")
		}
	}
	if f.Required {
		tags = append(tags, "required")
	}
	s := f.Name
	if f.In != "" {
		s += " (inside " + f.In + ", not a key of the turn)"
	}
	s += ": " + f.Type
	if len(tags) > 0 {
		s += " (" + strings.Join(tags, ", ") + ")"
	}
	if len(f.Enum) > 0 {
		s += "; one of " + strings.Join(f.Enum, ", ")
	}
	return s + "; " + f.Rule
}
