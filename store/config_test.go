package store

import (
	"strings"
	"testing"
)

// TestParseConfigRanges: every bounded setting is refused outside its range
// as a damaged store, naming the key and the range; the edges are accepted.
func TestParseConfigRanges(t *testing.T) {
	for _, tc := range []struct {
		body string
		key  string // "" when the config is valid
	}{
		{`"lease_ttl": "1s"`, ""},
		{`"lease_ttl": "24h"`, ""},
		{`"lease_ttl": "0s"`, "lease_ttl"},
		{`"lease_ttl": "999ms"`, "lease_ttl"},
		{`"lease_ttl": "25h"`, "lease_ttl"},
		{`"lock_timeout": "0s"`, ""},
		{`"lock_timeout": "10m"`, ""},
		{`"lock_timeout": "11m"`, "lock_timeout"},
		{`"lock_timeout": "99999999999999999h"`, "lock_timeout"},
		{`"verify_quorum": 0`, "verify_quorum"},
		{`"max_rounds": 0`, "max_rounds"},
		{`"max_input_bytes": 1023`, "max_input_bytes"},
		{`"max_input_bytes": 1024`, ""},
		{`"max_substatements": 0`, "max_substatements"},
		{`"keep_runs": 0`, "keep_runs"},
		{`"max_agent_failures": 0`, "max_agent_failures"},
		{`"no_such_key": 1`, "no_such_key"},
	} {
		_, err := ParseConfig([]byte(`{"version": 1, ` + tc.body + `}`))
		if tc.key == "" {
			if err != nil {
				t.Errorf("ParseConfig(%s) = %v; want nil", tc.body, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("ParseConfig(%s) = nil; want an error naming %s", tc.body, tc.key)
			continue
		}
		if CodeOf(err) != CodeStoreDamaged || !strings.Contains(err.Error(), tc.key) {
			t.Errorf("ParseConfig(%s) = %v (code %s); want store_damaged naming %s", tc.body, err, CodeOf(err), tc.key)
		}
		if r, ok := ConfigRanges[tc.key]; ok && !strings.Contains(err.Error(), r) {
			t.Errorf("ParseConfig(%s) = %v; want the range %q in the message", tc.body, err, r)
		}
	}
}

// TestParseConfigDefaults: a minimal config takes every default.
func TestParseConfigDefaults(t *testing.T) {
	c, err := ParseConfig([]byte(`{"version": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	d := DefaultConfig()
	if c.MaxInputBytes != 4<<20 || c.MaxSubstatements != 50 || c.KeepRuns != 20 || c.MaxAgentFailures != 3 ||
		c.LeaseTTLDuration() != d.LeaseTTLDuration() || c.LockTimeoutDuration() != d.LockTimeoutDuration() {
		t.Errorf("ParseConfig({version:1}) = %+v; want the defaults %+v", c, d)
	}
}
