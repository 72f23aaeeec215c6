package store

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSetConfigRepairs: on a config.json that fails a range, setting that
// key to a good value repairs it; setting another key is refused as
// damaged. File store only: it damages config.json by hand, which a
// backend's config cannot be (SetConfig's behaviour is in the conformance
// suite).
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
