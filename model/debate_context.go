package model

import "strconv"

// DebateContext is what a participant of one role is told about a debate
// when its turn starts: seed 004's context injection (DIALOGUE, TURN, YOUR
// ROLE, YOUR POSITION, TOPIC, OPPONENT SAID), which `prime --role R --id
// ID` prints for any debate role.
type DebateContext struct {
	ID   string `json:"id"`
	Turn int    `json:"turn"`
	Role string `json:"role"`
	// Position is the text of the role's agora position, "" for a role
	// that argues none.
	Position string `json:"position,omitempty"`
	Topic    string `json:"topic"`
	// OpponentSaid is the latest message of another role, "" before one.
	OpponentSaid string `json:"opponent_said,omitempty"`
}

// ContextOf is d as a participant of role sees it at the start of its
// turn.
func ContextOf(d *Debate, role string) DebateContext {
	c := DebateContext{ID: d.ID, Turn: len(d.Turns) + 1, Role: role, Topic: d.Topic}
	for _, p := range d.Positions {
		if p.Role == role {
			c.Position = p.Text
		}
	}
	for i := len(d.Turns) - 1; i >= 0; i-- {
		if t := d.Turns[i]; t.Role != role && t.Message != "" {
			c.OpponentSaid = t.Message
			break
		}
	}
	return c
}

// Lines renders c as seed 004's context block, one "NAME: value" a line,
// each value folded to one line; the lines it has no value for are left
// out.
func (c DebateContext) Lines() []string {
	out := []string{"DIALOGUE: " + c.ID, "TURN: " + strconv.Itoa(c.Turn), "YOUR ROLE: " + c.Role}
	if c.Position != "" {
		out = append(out, "YOUR POSITION: "+OneLine(c.Position))
	}
	out = append(out, "TOPIC: "+OneLine(c.Topic))
	if c.OpponentSaid != "" {
		out = append(out, "OPPONENT SAID: "+OneLine(c.OpponentSaid))
	}
	return out
}
