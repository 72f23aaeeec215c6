package eval

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
)

// TestConfirmationBelowTheFloor: under verify_min_reliability, a checker
// measured below the floor (agent yes: 0 of 2 flawed proofs caught)
// confirms on the record, with why, and its confirmation counts toward no
// quorum: the statement still awaits verification and its check turn's
// reason says why. A checker measured on fewer than min_sample (agent few),
// or named by neither agent nor model (a person), counts.
func TestConfirmationBelowTheFloor(t *testing.T) {
	root := filepath.Join(t.TempDir(), "contents")
	if _, err := store.Init(root); err != nil {
		t.Fatal(err)
	}
	cfg := store.DefaultConfig()
	cfg.VerifyQuorum = 2
	cfg.VerifyMinReliability = &model.MinReliability{CatchRate: 0.5, MinSample: 2}
	raw, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(root, store.ConfigFile), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	yes, few := model.AgentLabel{Agent: "yes", Model: "m-yes"}, model.AgentLabel{Agent: "few", Model: "m-few"}
	if _, err := s.Update(store.TxOptions{Command: "eval"}, func(tx *store.Tx) error {
		tx.Record()
		return tx.AppendCheckerRecords([]model.CheckerRecord{
			{Source: model.RecordEval, At: tx.Now(), Role: model.RoleCheck, AgentLabel: yes, Set: "s", Counts: model.Counts{Items: 2, MissedFlawed: 2}},
			{Source: model.RecordEval, At: tx.Now(), Role: model.RoleCheck, AgentLabel: few, Set: "s", Counts: model.Counts{Items: 1, MissedFlawed: 1}}})
	}); err != nil {
		t.Fatal(err)
	}
	it := Shipped().Items[0]
	placed, err := PutUp(s, &it, "ann")
	if err != nil {
		t.Fatal(err)
	}
	confirm := func(actor string, l model.AgentLabel) *skills.Result {
		t.Helper()
		sk, _ := skills.Find("check-confirm-proof")
		in, err := skills.ParseInput(sk, nil, []byte(`{"statement_path":"`+placed.Statement+`"}`), skills.Source{Max: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		r, err := skills.Execute(s, sk, store.TxOptions{Command: sk.Name, Actor: actor, Agent: l.Agent, Model: l.Model}, in)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := confirm("check-yes-1", yes)
	why := "agent yes (model m-yes) caught 0 of 2 flawed proofs (95% interval 0.00-0.66), below verify_min_reliability 0.50"
	if r.Extra["counted"] != false || r.Extra["uncounted"] != why || r.Extra["confirmations"] != 0 || r.Status != model.StatementAwaitingVerification {
		t.Errorf("the confirmation below the floor: %+v %v", r.Extra, r.Status)
	}
	snap, err := loop.Load(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := snap.Items[placed.Statement].Reason; !strings.Contains(got, "; 1 confirmation not counted: "+why) {
		t.Errorf("the check turn's reason = %q; want it to say why a confirmation does not count", got)
	}
	if r := confirm("check-few-1", few); r.Extra["counted"] != nil || r.Extra["confirmations"] != 1 {
		t.Errorf("an unmeasured checker's confirmation: %+v", r.Extra)
	}
	if r := confirm("rita", model.AgentLabel{}); r.Extra["confirmations"] != 2 || r.Status != model.StatementTrue {
		t.Errorf("a person's confirmation: %+v %v; want the second, and true", r.Extra, r.Status)
	}
}
