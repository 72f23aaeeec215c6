package store

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetConfig: a change is written through the journal with one
// config-set event, is seen at once by Config, and a refused one writes
// nothing.
func TestSetConfig(t *testing.T) {
	s, dir := testStore(t)
	opts := TxOptions{Command: ConfigSetCommand, Actor: "ops"}
	ch, err := s.SetConfig(opts, "lease_ttl", ParseConfigValue("30m"))
	if err != nil {
		t.Fatal(err)
	}
	if ch.Seq != 1 || string(ch.Before) != `"15m"` || string(ch.After) != `"30m"` {
		t.Errorf("SetConfig(lease_ttl 30m) = %+v; want seq 1, before \"15m\", after \"30m\"", ch)
	}
	// Config sees the edit at once, though the file's size did not change
	// and its modification time may not have either.
	if c, err := s.Config(); err != nil || c.LeaseTTL != "30m" {
		t.Errorf("Config() after set = %q, %v; want 30m", c.LeaseTTL, err)
	}
	events, _ := os.ReadFile(filepath.Join(dir, EventsFile))
	var ev Event
	if err := json.Unmarshal(events, &ev); err != nil || ev.Command != "config-set" || ev.Actor == nil || *ev.Actor != "ops" ||
		ev.Detail["key"] != "lease_ttl" || ev.Detail["after"] != "30m" || ev.Detail["before"] != "15m" {
		t.Errorf("event = %s (%v); want one config-set by ops, lease_ttl 15m -> 30m", events, err)
	}
	if _, err := os.Stat(filepath.Join(dir, JournalFile)); !os.IsNotExist(err) {
		t.Errorf("a journal is left after the commit: %v", err)
	}

	before, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
	for _, tc := range []struct {
		key, value string
		code       Code
		says       string
	}{
		{"lease_ttl", "0s", CodeInvalidInput, "it must be from 1s to 24h"},
		{"max_rounds", "1001", CodeInvalidInput, "max_rounds"},
		{"version", "2", CodeInvalidInput, "version"},
		{"no_such", "1", CodeInvalidInput, `no setting "no_such"`},
		{"agents.a.b", "x", CodeInvalidInput, "an agent role"},
		{"agents.*", "x", CodeInvalidInput, "an agent role"},
		{"agents.#", "x", CodeInvalidInput, "an agent role"},
		{"max_rounds.x", "1", CodeInvalidInput, "single value"},
	} {
		_, err := s.SetConfig(opts, tc.key, ParseConfigValue(tc.value))
		if CodeOf(err) != tc.code || err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("SetConfig(%s %s) = %v; want %s saying %q", tc.key, tc.value, err, tc.code, tc.says)
		}
	}
	after, _ := os.ReadFile(filepath.Join(dir, ConfigFile))
	events2, _ := os.ReadFile(filepath.Join(dir, EventsFile))
	if string(after) != string(before) || string(events2) != string(events) {
		t.Errorf("a refused SetConfig changed config.json or the events:\n%s", after)
	}

	// The same value: nothing written. null: the key goes.
	if ch, err := s.SetConfig(opts, "lease_ttl", ParseConfigValue(`"30m"`)); err != nil || ch.Seq != 0 {
		t.Errorf("SetConfig to the same value = %+v, %v; want seq 0", ch, err)
	}
	if ch, err := s.SetConfig(opts, "lease_ttl", ParseConfigValue("null")); err != nil || ch.Seq != 2 || ch.After != nil {
		t.Errorf("SetConfig(lease_ttl null) = %+v, %v; want seq 2, removed", ch, err)
	}
	if raw, _ := os.ReadFile(filepath.Join(dir, ConfigFile)); strings.Contains(string(raw), "lease_ttl") {
		t.Errorf("lease_ttl still in config.json after null:\n%s", raw)
	}
	if v, err := s.GetConfig("lease_ttl"); err != nil || string(v) != `"15m"` {
		t.Errorf("GetConfig(lease_ttl) after removal = %s, %v; want the default \"15m\"", v, err)
	}
}

// TestSetConfigRepairs: on a config.json that fails a range, setting that
// key to a good value repairs it; setting another key is refused as
// damaged.
func TestSetConfigRepairs(t *testing.T) {
	s, dir := testStore(t)
	os.WriteFile(filepath.Join(dir, ConfigFile), []byte(`{"version": 1, "verify_quorum": 0}`), 0o644)
	if _, err := s.SetConfig(TxOptions{}, "max_rounds", ParseConfigValue("3")); CodeOf(err) != CodeStoreDamaged {
		t.Errorf("SetConfig(max_rounds) on a damaged config = %v; want store_damaged", err)
	}
	if _, err := s.SetConfig(TxOptions{}, "verify_quorum", ParseConfigValue("2")); err != nil {
		t.Fatalf("SetConfig(verify_quorum 2) on a damaged config = %v; want the repair", err)
	}
	if c, err := s.Config(); err != nil || c.VerifyQuorum != 2 {
		t.Errorf("Config() after the repair = %+v, %v", c, err)
	}
	os.WriteFile(filepath.Join(dir, ConfigFile), []byte(`not json`), 0o644)
	if _, err := s.SetConfig(TxOptions{}, "verify_quorum", ParseConfigValue("2")); CodeOf(err) != CodeStoreDamaged {
		t.Errorf("SetConfig on a config.json that is not JSON = %v; want store_damaged", err)
	}
}

func TestParseConfigValue(t *testing.T) {
	for in, want := range map[string]string{
		"7": "7", "30m": `"30m"`, "false": "false", `"x"`: `"x"`, "sh a.sh": `"sh a.sh"`,
		`{"check": "x"}`: `{"check": "x"}`, "": `""`, "null": "null",
	} {
		if got := string(ParseConfigValue(in)); got != want {
			t.Errorf("ParseConfigValue(%q) = %s; want %s", in, got, want)
		}
	}
}
