package store

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/model"
)

// TestAgentKeys: a key of agents names a role (workflow, or one a protocol
// defines) or a protocol with its roles below it (agora's positions any
// name); anything else is refused at load (store_damaged) naming the key,
// with the nearest name or, for an old plain agora position, its new key.
// config set refuses the same keys before writing (invalid_input).
func TestAgentKeys(t *testing.T) {
	for _, tc := range []struct {
		agents string
		want   string // "" when valid; else a part of the message
	}{
		{`{"solve": "a", "judge": "b", "participant": "c", "mediator": "d", "researcher": "e"}`, ""},
		{`{"panel": {"judge": "a", "proponent": "b"}, "agora": {"bull": "c", "mediator": "d"}}`, ""},
		{`{"socratic": {"participant": [{"name": "x", "command": "a"}, {"name": "y", "command": "b"}]}}`, ""},
		{`{"solv": "a"}`, "agents.solv names no role and no protocol (did you mean agents.solve?)"},
		{`{"bull": "a"}`, "agents.bull names no role and no protocol (an agora position's agent is agents.agora.bull)"},
		{`{"panel": {"jugde": "a"}}`, "agents.panel.jugde: panel has no role jugde; its roles are proponent, opponent, judge (did you mean agents.panel.judge?)"},
		{`{"panle": {"judge": "a"}}`, "agents.panle names no role and no protocol (did you mean agents.panel?)"},
		{`{"judge": {"x": "a"}}`, "agents.judge is a role, whose value is a command line or a list of agents"},
		{`{"panel": "a"}`, "agents.panel is a protocol, whose value is an object of its roles' agents"},
		{`{"bull": "a", "bear": "b"}`, "agents.bear names no role and no protocol (an agora position's agent is agents.agora.bear); agents.bull names"},
		{`{"panel": {"judge": [{"command": "a"}, {"command": "b"}]}}`, "agents.panel.judge[0] has no name"},
	} {
		_, err := ParseConfig([]byte(`{"version": 1, "agents": ` + tc.agents + `}`))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("ParseConfig(agents %s) = %v; want nil", tc.agents, err)
		case tc.want != "" && (CodeOf(err) != CodeStoreDamaged || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("ParseConfig(agents %s) = %v; want store_damaged saying %q", tc.agents, err, tc.want)
		}
	}
	for key, want := range map[string]string{
		"agents.check":            "",
		"agents.panel.judge":      "",
		"agents.agora.bull":       "",
		"agents.solv":             "did you mean agents.solve?",
		"agents.panel.judge.x":    "too deep",
		"agents.judge.x":          "agents.judge is a role",
		"agents.nope.judge":       "nope is no protocol",
		"agents.panel.Judge":      "each part of an agent key is a-z first",
		"agents.agora.b*":         "each part of an agent key is a-z first",
		"agents.dialectic.judge":  "dialectic has no role judge; its roles are main, partner",
		"agents.agora.researcher": "",
	} {
		_, err := ConfigPath(key, false)
		switch {
		case want == "" && err != nil:
			t.Errorf("configPath(%s) = %v; want nil", key, err)
		case want != "" && (CodeOf(err) != CodeInvalidInput || !strings.Contains(err.Error(), want)):
			t.Errorf("configPath(%s) = %v; want invalid_input saying %q", key, err, want)
		}
	}
	if _, err := ConfigPath("agents.bull", true); err != nil {
		t.Errorf("configPath(agents.bull) for a removal = %v; want it allowed: an old key must be removable", err)
	}
}

// TestAgentTableFor: a debate's role takes its protocol's own agents
// first, then the plain role's when the protocol defines that role; a
// role a debate names (an agora position) only its protocol's.
func TestAgentTableFor(t *testing.T) {
	c, err := ParseConfig([]byte(`{"version": 1, "agents": {"judge": "plain judge", "check": "checker",
		"panel": {"proponent": "panel proponent"}, "agora": {"judge": "agora judge"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ protocol, role, cmd, key string }{
		{"", "check", "checker", "check"},
		{"panel", "judge", "plain judge", "judge"},
		{"panel", "proponent", "panel proponent", "panel.proponent"},
		{"agora", "judge", "agora judge", "agora.judge"},
		{"agora", "bull", "", ""},
		{"socratic", "judge", "", ""}, // socratic has no judge: the plain key is not its
		{"", "judge", "plain judge", "judge"},
	} {
		a, key := c.Agents.For(tc.protocol, tc.role)
		if a.Command() != tc.cmd || key != tc.key {
			t.Errorf("For(%q, %q) = %q from %q; want %q from %q", tc.protocol, tc.role, a.Command(), key, tc.cmd, tc.key)
		}
	}
	if got := c.Agents.Keys(); !slices.Equal(got, []string{"agora.judge", "check", "judge", "panel.proponent"}) {
		t.Errorf("Keys() = %v", got)
	}
	b, _ := json.Marshal(c.Agents)
	if want := `{"agora":{"judge":"agora judge"},"check":"checker","judge":"plain judge","panel":{"proponent":"panel proponent"}}`; string(b) != want {
		t.Errorf("agents marshal as %s; want %s", b, want)
	}
	if b, _ := json.Marshal(DefaultConfig().Agents); string(b) != "{}" {
		t.Errorf("no agents marshal as %s; want {}", b)
	}
}

// TestAgentNamesAreDistinct: a plain key of agents must read as a role or
// as a protocol, never both.
func TestAgentNamesAreDistinct(t *testing.T) {
	for _, p := range model.ProtocolNames() {
		if isAgentRole(p) {
			t.Errorf("%s is a protocol and a role: agents.%s would be ambiguous", p, p)
		}
	}
}

// TestSetConfigMovesOldAgentKeys: a config.json with two plain agora
// positions (an older layout) is damaged; config set removes them one by
// one and sets the new keys in any order, each write adding no bad key,
// and a set that adds one is refused. File store only: it damages
// config.json by hand.
func TestSetConfigMovesOldAgentKeys(t *testing.T) {
	s, dir := testStore(t)
	os.WriteFile(filepath.Join(dir, ConfigFile), []byte(`{"version": 1, "agents": {"bull": "a", "bear": "b"}}`), 0o644)
	_, err := s.Config()
	if CodeOf(err) != CodeStoreDamaged || !strings.Contains(HintOf(err), "config set agents.bear null") {
		t.Fatalf("Config() = %v (hint %q); want store_damaged saying how to remove agents.bear", err, HintOf(err))
	}
	if _, err := s.SetConfig(TxOptions{}, "max_rounds", ParseConfigValue("0")); CodeOf(err) == "" {
		t.Errorf("SetConfig(max_rounds 0) on the old config = nil; want it refused")
	}
	for _, step := range [][2]string{{"agents.agora.bull", "a"}, {"agents.bull", "null"}, {"agents.bear", "null"}, {"agents.agora.bear", "b"}} {
		if _, err := s.SetConfig(TxOptions{}, step[0], ParseConfigValue(step[1])); err != nil {
			t.Fatalf("SetConfig(%s %s) = %v; want it written", step[0], step[1], err)
		}
	}
	c, err := s.Config()
	if err != nil {
		t.Fatal(err)
	}
	if a, key := c.Agents.For("agora", "bear"); a.Command() != "b" || key != "agora.bear" {
		t.Errorf("after the moves agora's bear is %q from %q", a.Command(), key)
	}
}
