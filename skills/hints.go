package skills

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// A refusal of the workflow rules says what to do now. The hint of a
// failed guard is the skill's refusal of that guard (Skill.Refusals), the
// very text the generated skill docs quote; the hint of a wrong status
// names the role whose turn it is, from the item as the index derives it.

// explain fills in the hint of a refusal of the transition table that a
// call of skill on id met; token is the lease the call presented.
func explain(s *store.Store, skill, id, token string, err error) error {
	var te *model.TransitionError
	var ge *model.GuardError
	switch {
	case errors.As(err, &te) && te.Next == "":
		te.Next = transitionHint(s, te, id, callerRoles(s, te, id, token))
	case errors.As(err, &ge) && ge.Next == "":
		ge.Next = GuardHint(skill, ge.Guard)
	}
	return err
}

// GuardHint is what to do when guard of skill fails: the Do of the skill's
// refusal of that guard, or "" when the registry has none (a test keeps
// every guard of model.Table covered).
func GuardHint(skill, guard string) string {
	refusals := decideRefusals
	if sk, ok := Find(skill); ok {
		refusals = sk.Refusals
	} else if skill != "decide" {
		return ""
	}
	for _, r := range refusals {
		if r.Code == store.CodeGuardFailed && r.Guard == guard {
			return r.Do
		}
	}
	return ""
}

// callerRoles is the role the caller acts in: its lease's, when it
// presented the live lease of the item; else the role its call implies
// (the source it gave, or the skill's roles).
func callerRoles(s *store.Store, te *model.TransitionError, id, token string) []model.Role {
	if token != "" {
		if l, err := s.ReadLease(id); err == nil && l != nil && l.Token == token && l.Live(s.Now()) {
			return []model.Role{model.Role(l.Role)}
		}
	}
	if te.Source != "" {
		return []model.Role{model.Role(te.Source)}
	}
	if r, ok := model.Lookup(te.Skill); ok {
		return r.Roles
	}
	return nil
}

// transitionHint names whose turn it is on id and what the caller does now.
func transitionHint(s *store.Store, te *model.TransitionError, id string, caller []model.Role) string {
	release := fmt.Sprintf("release it and end your turn (`proofloop release %s` if you hold its lease)", id)
	var names []string
	for _, r := range caller {
		names = append(names, string(r))
	}
	you := strings.Join(names, " or ")
	// The item's row of the index: whose turn it is, derived as status
	// shows it, in one read of one key.
	var it *store.Row
	s.View(func(v *store.IndexView) error {
		var err error
		it, err = v.Row(id)
		return err
	})
	switch {
	case it == nil:
		return fmt.Sprintf("%s is %s: re-read it (`proofloop show %s`); if none of the skills allowed now is %s's, %s", id, te.Status, id, you, release)
	case it.Role == "":
		for _, r := range caller {
			if may := allowedFor(te.Kind, te.Status, r); len(may) > 0 && !strings.HasPrefix(may[0], "`") {
				return fmt.Sprintf("no role has a turn on %s now (%s); as %s you may still use %s, only when its rule applies (`proofloop %s --help`); else %s",
					id, it.Reason, r, strings.Join(may, " or "), strings.Fields(may[0])[0], release)
			}
		}
		return fmt.Sprintf("no role has a turn on %s now (%s): %s", id, it.Reason, release)
	case slices.Contains(caller, it.Role):
		return fmt.Sprintf("it is %s's turn on %s (%s), but not with %s: use %s, after re-reading it (`proofloop show %s`)",
			it.Role, id, it.Reason, te.Skill, strings.Join(allowedFor(te.Kind, te.Status, it.Role), " or "), id)
	case it.Role == model.RoleDecide:
		return fmt.Sprintf("it is decide's turn on %s (%s): a person runs `proofloop decide %s`; not %s's turn: %s", id, it.Reason, id, you, release)
	}
	h := fmt.Sprintf("it is %s's turn on %s (%s), not %s's: %s", it.Role, id, it.Reason, you, release)
	for _, r := range caller {
		if may := allowedFor(te.Kind, te.Status, r); !strings.HasPrefix(may[0], "`") {
			h += fmt.Sprintf("; as %s, only %s still applies here, and only when its rule does", r, strings.Join(may, " or "))
		}
	}
	return h
}

// allowedFor lists the skills that role may use on a document of kind k
// in status st, in table order, with the source it must give if any.
func allowedFor(k model.Kind, st model.Status, role model.Role) []string {
	var out []string
	for i := range model.Table {
		r := &model.Table[i]
		if r.Kind != k || !slices.Contains(r.Roles, role) {
			continue
		}
		for _, f := range r.From {
			if slices.Contains(f.Statuses, st) && (f.Source == "" || model.Role(f.Source) == role) {
				name := r.Skill
				if f.Source != "" {
					name += " --source " + string(f.Source)
				}
				out = append(out, name)
				break
			}
		}
	}
	if len(out) == 0 {
		return []string{"`proofloop prime --role " + string(role) + "` to see what applies"}
	}
	return out
}

// CodeHint is what to do about a refusal of code c when the error brought
// no hint of its own: the Do of CommonRefusals, which the generated docs
// quote, else the code's meaning in ExitCodes.
func CodeHint(c store.Code) string {
	for _, r := range CommonRefusals {
		if r.Code == c {
			return r.Do
		}
	}
	for _, e := range ExitCodes {
		if e.Code == c {
			return e.Meaning
		}
	}
	return ""
}
