package loop

import (
	"context"
	"fmt"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// A person guides the agents: a hint for provers or fixers, or an extra
// verification rule for checkers, for every item or for one, in every
// round or in one. Guidance lives in the event log alone: `guide` appends
// a guide event, `guide --withdraw N` a guide-withdraw event, and what is
// in force is derived from them. Its number is the seq of its event.
const (
	GuideCommand    = "guide"
	WithdrawCommand = "guide-withdraw"
)

// GuideRoles are the roles guidance is for.
var GuideRoles = []model.Role{model.RoleProve, model.RoleCheck, model.RoleFix}

// Guidance is one piece of guidance in force.
type Guidance struct {
	Number int        `json:"number"` // the seq of its guide event
	Role   model.Role `json:"role"`
	ID     string     `json:"id,omitempty"`    // "" for every item
	Round  int        `json:"round,omitempty"` // 0 for every round
	Text   string     `json:"text"`
	Actor  string     `json:"actor"`
	At     string     `json:"at"`
}

// Guide records g and returns its number.
func Guide(s *store.Store, opts store.TxOptions, g Guidance) (int, error) {
	if strings.TrimSpace(g.Text) == "" {
		return 0, store.Errorf(store.CodeUsage, "guide needs the TEXT of the guidance").WithHint(`e.g. proofloop guide --role check "Check every inequality's direction."`)
	}
	if g.ID != "" {
		if _, err := s.Read(g.ID); err != nil {
			return 0, err
		}
	}
	opts.Command = GuideCommand
	c, err := s.Update(opts, func(tx *store.Tx) error {
		tx.Record()
		tx.Detail("guidance", map[string]any{"role": g.Role, "id": g.ID, "round": g.Round, "text": g.Text})
		return nil
	})
	if err != nil {
		return 0, err
	}
	return c.Seq, nil
}

// Withdraw ends guidance n; guidance not in force is refused.
func Withdraw(ctx context.Context, s *store.Store, opts store.TxOptions, n int) (*Guidance, error) {
	all, err := AllGuidance(ctx, s)
	if err != nil {
		return nil, err
	}
	for _, g := range all {
		if g.Number == n {
			opts.Command = WithdrawCommand
			_, err := s.Update(opts, func(tx *store.Tx) error {
				tx.Record()
				tx.Detail("withdrawn", n)
				return nil
			})
			return &g, err
		}
	}
	return nil, store.Errorf(store.CodeNotFound, "no guidance %d is in force", n).
		WithHint("`proofloop guide --list` lists the guidance in force with its numbers")
}

// AllGuidance is the guidance in force, in the order it was given.
func AllGuidance(ctx context.Context, s *store.Store) ([]Guidance, error) {
	var out []Guidance
	err := Events(ctx, s, 0, false, func(seq int, line []byte) error {
		ev := gjson.ParseBytes(line)
		switch ev.Get("command").String() {
		case GuideCommand:
			d := ev.Get("detail.guidance")
			out = append(out, Guidance{Number: seq, Role: model.Role(d.Get("role").String()), ID: d.Get("id").String(),
				Round: int(d.Get("round").Int()), Text: d.Get("text").String(), Actor: ev.Get("actor").String(), At: ev.Get("time").String()})
		case WithdrawCommand:
			n := int(ev.Get("detail.withdrawn").Int())
			for i := range out {
				if out[i].Number == n {
					out = append(out[:i], out[i+1:]...)
					break
				}
			}
		}
		return nil
	})
	return out, err
}

// GuidanceFor is the guidance in force for role: global guidance, and when
// id is given, the item's, for every round or for round.
func GuidanceFor(ctx context.Context, s *store.Store, role model.Role, id string, round int) ([]Guidance, error) {
	all, err := AllGuidance(ctx, s)
	if err != nil {
		return nil, err
	}
	var out []Guidance
	for _, g := range all {
		if g.Role != role || (g.ID != "" && g.ID != id) || (g.Round != 0 && g.Round != round) {
			continue
		}
		out = append(out, g)
	}
	return out, nil
}

// Line is a guidance for a person or an agent to read.
func (g Guidance) Line() string {
	scope := "every item"
	if g.ID != "" {
		scope = g.ID
	}
	if g.Round > 0 {
		scope += fmt.Sprintf(", round %d", g.Round)
	}
	return fmt.Sprintf("[%d] (%s; by %s) %s", g.Number, scope, g.Actor, g.Text)
}
