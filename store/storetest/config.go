package storetest

import (
	"strings"
	"testing"

	"github.com/proofloop/proofloop/store"
)

// testSetConfig: a change is committed with one config-set event and seen
// at once by Config; a refused one writes nothing; the same value writes
// nothing; null removes the key, back to its default.
func testSetConfig(t *testing.T, s *store.Store) {
	opts := store.TxOptions{Command: store.ConfigSetCommand, Actor: "ops"}
	ch, err := s.SetConfig(opts, "lease_ttl", store.ParseConfigValue("30m"))
	if err != nil {
		t.Fatal(err)
	}
	if ch.Seq != 1 || string(ch.Before) != `"15m"` || string(ch.After) != `"30m"` {
		t.Errorf("SetConfig(lease_ttl 30m) = %+v; want seq 1, before \"15m\", after \"30m\"", ch)
	}
	if c, err := s.Config(); err != nil || c.LeaseTTL != "30m" {
		t.Errorf("Config() after set = %q, %v; want 30m", c.LeaseTTL, err)
	}
	before := state(t, s)
	for _, tc := range []struct{ key, value, says string }{
		{"lease_ttl", "0s", "it must be from 1s to 24h"},
		{"max_rounds", "1001", "max_rounds"},
		{"version", "2", "version"},
		{"no_such", "1", `no setting "no_such"`},
		{"agents.a.b", "x", "a is no protocol"},
		{"agents.solv", "x", "did you mean agents.solve?"},
		{"agents.panel.jugde", "x", "did you mean agents.panel.judge?"},
		{"agents.bull", "x", "an agora position's agent is agents.agora.bull"},
		{"agents.Check", "x", "each part of an agent key is a-z first"},
		{"agents.judge", `{"a": "x"}`, "agents.judge is a role"},
		{"max_rounds.x", "1", "single value"},
	} {
		_, err := s.SetConfig(opts, tc.key, store.ParseConfigValue(tc.value))
		if store.CodeOf(err) != store.CodeInvalidInput || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("SetConfig(%s %s) = %v; want invalid_input saying %q", tc.key, tc.value, err, tc.says)
		}
	}
	if ch, err := s.SetConfig(opts, "lease_ttl", store.ParseConfigValue(`"30m"`)); err != nil || ch.Seq != 0 {
		t.Errorf("SetConfig to the same value = %+v, %v; want seq 0", ch, err)
	}
	sameState(t, "refused and unchanged SetConfig", s, before)
	if ch, err := s.SetConfig(opts, "lease_ttl", store.ParseConfigValue("null")); err != nil || ch.Seq != 2 || ch.After != nil {
		t.Errorf("SetConfig(lease_ttl null) = %+v, %v; want seq 2, removed", ch, err)
	}
	if v, err := s.GetConfig("lease_ttl"); err != nil || string(v) != `"15m"` {
		t.Errorf("GetConfig(lease_ttl) after removal = %s, %v; want the default \"15m\"", v, err)
	}
	if c, err := s.Config(); err != nil || c.LeaseTTL != "" && c.LeaseTTL != "15m" {
		t.Errorf("Config().LeaseTTL after removal = %q, %v; want the default", c.LeaseTTL, err)
	}
}
