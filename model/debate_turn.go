package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// DebateTurnOf derives whose turn it is on a debate as a Turn, the shape
// the index and the turn loop use for every item: the role of the
// participant who writes next, or the role a new participant must join
// as; nobody's once the debate is closed. It reads the protocol's
// WhoseTurn, the one derivation `debate wait` and `debate show` use too.
func DebateTurnOf(d *Debate) Turn {
	p, err := LookupProtocol(d.Protocol)
	if err != nil {
		return Turn{Reason: err.Error()}
	}
	s := p.WhoseTurn(d)
	switch {
	case s.Closed:
		t := Turn{Reason: "the debate is " + string(d.Status)}
		if d.Outcome != nil {
			t.Outcome = d.Outcome.Outcome
			t.Reason += ": " + d.Outcome.Outcome
		}
		return t
	case s.ParticipantID == "":
		return Turn{Role: Role(s.JoinRole), Reason: fmt.Sprintf("waits for %s to join", A(s.JoinRole))}
	}
	r := fmt.Sprintf("%s (%s) writes turn %d", s.ParticipantID, s.Role, s.TurnNumber)
	if s.Require != "" {
		r += "; it must carry " + s.Require
	}
	if s.Advice != "" {
		r += "; " + s.Advice
	}
	return Turn{Role: Role(s.Role), Reason: r}
}

// DebateRoles are the debate roles every debate of a protocol may use (an
// agora position's role is the debate's own), for checking a --role flag:
// each protocol's join order's roles, in protocol order, then their
// ExtraRoles.
func DebateRoles() []string {
	var out []string
	add := func(roles []string) {
		for _, r := range roles {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	for _, p := range Protocols {
		add(p.Roles)
	}
	for _, p := range Protocols {
		add(p.ExtraRoles)
	}
	return out
}

// IssueOf returns issue n of a statement, or nil.
func IssueOf(st *Statement, n int) *Issue {
	for i := range st.Validate.Issues {
		if st.Validate.Issues[i].IssueNumber == n {
			return &st.Validate.Issues[i]
		}
	}
	return nil
}

// ParseTurn decodes a turn as a writer gives it (debate turn --input). An
// unknown field is refused; turn_number, participant_id, role and at are
// ignored, since AppendTurn sets them.
func ParseTurn(data []byte) (*DebateTurn, error) {
	data = StripFence(data)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var t DebateTurn
	if err := dec.Decode(&t); err != nil {
		if strings.Contains(err.Error(), `unknown field "support"`) {
			return nil, &TurnError{Field: "support", Rule: "is not a key of the turn: a support item " + supportShape + " goes inside counterpoints[].support, novel_argument.support or stance_revision_support"}
		}
		return nil, &TurnError{Field: "input", Rule: "not a turn: " + err.Error()}
	}
	if dec.More() {
		return nil, &TurnError{Field: "input", Rule: "not a turn: more than one JSON value"}
	}
	t.TurnNumber, t.ParticipantID, t.Role, t.At = 0, "", "", ""
	return &t, nil
}

// StripFence returns the JSON inside a Markdown code fence (```json ...
// ``` or ``` ... ```) that wraps the whole input, as agora's upstream parser
// accepts it; any other input comes back unchanged, so prose is still
// refused by the decoder.
func StripFence(data []byte) []byte {
	s := bytes.TrimSpace(data)
	if !bytes.HasPrefix(s, []byte("```")) || !bytes.HasSuffix(s, []byte("```")) || len(s) < 6 {
		return data
	}
	body := s[3 : len(s)-3]
	nl := bytes.IndexByte(body, '\n')
	if nl < 0 {
		return data
	}
	if lang := strings.TrimSpace(string(body[:nl])); lang != "" && lang != "json" {
		return data
	}
	return body[nl+1:]
}
