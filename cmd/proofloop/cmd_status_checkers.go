package main

import (
	"github.com/proofloop/proofloop/eval"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// statusCheckers prints each agent's measured record (checkers.jsonl): on
// the canaries settled in live runs and on the eval runs recorded, and
// where it stands against verify_min_reliability. With --json it also
// lists the settled canaries themselves.
func (a *app) statusCheckers(s *store.Store) error {
	recs, err := s.CheckerRecords()
	if err != nil {
		return err
	}
	cfg, err := s.Config()
	if err != nil {
		return err
	}
	rows := eval.Checkers(recs, cfg)
	if a.json {
		canaries := []model.CheckerRecord{}
		for _, r := range recs {
			if r.Canary != nil {
				canaries = append(canaries, r)
			}
		}
		return a.writeJSON(map[string]any{"ok": true, "command": "status", "checkers": rows, "canaries": canaries,
			"verify_min_reliability": cfg.VerifyMinReliability})
	}
	eval.WriteCheckers(a.stdout, rows, cfg)
	return nil
}
