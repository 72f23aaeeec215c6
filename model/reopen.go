package model

// The reopen row of the transition table: a checker's late finding against
// a true statement's accepted proof. It has check-reject-proof's guards
// (sentence in range, quote found, not the proof's author), the very same
// values, so a change of those rules applies to both; it is appended here,
// after the seed's rows, so that it reads as the extra check action it is.
func init() {
	reject, ok := Lookup("check-reject-proof")
	if !ok {
		panic("model: the transition table has no check-reject-proof row")
	}
	Table = append(Table, Rule{Skill: "reopen", Roles: []Role{RoleCheck}, Kind: KindStatement,
		From:   []From{{Statuses: []Status{StatementTrue}}},
		Leaves: string(StatementHasGap) + ", in a new round" + climbNote,
		Guards: reject.Guards})
}
