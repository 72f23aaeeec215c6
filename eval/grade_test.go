package eval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// TestGradeMeasured: the measured level of a statement's grade, derived
// when status reads it: a statement confirmed by a checker measured at
// verify_min_reliability is "measured checkers"; by a person, or by one
// measured on too few flawed proofs, it is the agents' word; and the
// grade follows the records, which change without the statement.
func TestGradeMeasured(t *testing.T) {
	root := filepath.Join(t.TempDir(), "contents")
	if _, err := store.Init(root); err != nil {
		t.Fatal(err)
	}
	cfg := store.DefaultConfig()
	cfg.VerifyMinReliability = &model.MinReliability{CatchRate: 0.3, MinSample: 3}
	raw, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(root, store.ConfigFile), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	good := model.AgentLabel{Agent: "good", Model: "m-good"}
	record := func(caught int) {
		t.Helper()
		if _, err := s.Update(store.TxOptions{Command: "eval"}, func(tx *store.Tx) error {
			tx.Record()
			return tx.AppendCheckerRecords([]model.CheckerRecord{{Source: model.RecordEval, At: tx.Now(), Role: model.RoleCheck,
				AgentLabel: good, Set: "s", Counts: model.Counts{Items: caught, CaughtFlawed: caught}}})
		}); err != nil {
			t.Fatal(err)
		}
	}
	confirm := func(id, actor string, l model.AgentLabel) {
		t.Helper()
		sk, _ := skills.Find("check-confirm-proof")
		in, err := skills.ParseInput(sk, nil, []byte(`{"statement_path":"`+id+`"}`), skills.Source{Max: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := skills.Execute(s, sk, store.TxOptions{Command: sk.Name, Actor: actor, Agent: l.Agent, Model: l.Model}, in); err != nil {
			t.Fatal(err)
		}
	}
	grade := func(id string) model.Grade {
		t.Helper()
		it := &loop.Item{ID: id}
		if err := loop.Proved(s, []*loop.Item{it}); err != nil {
			t.Fatal(err)
		}
		return it.Grade
	}
	items := Shipped().Items
	byAgent, err := PutUp(s, &items[0], "ann")
	if err != nil {
		t.Fatal(err)
	}
	byPerson, err := PutUp(s, &items[1], "ann")
	if err != nil {
		t.Fatal(err)
	}
	record(2) // two flawed proofs caught: measured on too few
	confirm(byAgent.Statement, "check-good-1", good)
	confirm(byPerson.Statement, "rita", model.AgentLabel{})
	if g := grade(byAgent.Statement); g != model.GradeAgents {
		t.Errorf("confirmed by a checker measured on 2 of the 3 flawed proofs the floor needs: grade %q; want agents' word", g)
	}
	record(4) // six caught in all: measured, at the floor
	if g := grade(byAgent.Statement); g != model.GradeMeasured {
		t.Errorf("confirmed by a checker measured at the floor: grade %q; want measured", g)
	}
	if g := grade(byPerson.Statement); g != model.GradeAgents {
		t.Errorf("confirmed by a person: grade %q; want agents' word", g)
	}
}
