package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
)

// Config is config.json. Durations are strings such as "15m".
type Config struct {
	Version          int     `json:"version"`
	MaxRounds        int     `json:"max_rounds"`
	VerifyQuorum     int     `json:"verify_quorum"`
	ForbidSelfCheck  bool    `json:"forbid_self_check"`
	RequireLease     bool    `json:"require_lease"`
	LeaseTTL         string  `json:"lease_ttl"`
	LockTimeout      string  `json:"lock_timeout"`
	MaxInputBytes    int64   `json:"max_input_bytes"`
	MaxSubstatements int     `json:"max_substatements"`
	KeepRuns         int     `json:"keep_runs"`
	MaxAgentFailures int     `json:"max_agent_failures"`
	MaxCostUSD       float64 `json:"max_cost_usd,omitempty"`    // per root problem, all runs; 0: no limit
	VerifyDistinct   string  `json:"verify_distinct,omitempty"` // "" is actor
	// Escalation is the ladder a statement climbs when its round budget is
	// spent (nil: model.DefaultEscalation); ReviewStatements has a checker
	// review each new statement before any proof.
	Escalation       []model.Rung `json:"escalation,omitempty"`
	ReviewStatements bool         `json:"review_statements,omitempty"`
	// VerifyMinReliability is the floor under a checker's measured catch
	// rate (docs/eval.md); nil for none.
	VerifyMinReliability *model.MinReliability `json:"verify_min_reliability,omitempty"`
	// Canaries plants labelled items among run's real work; nil for none.
	Canaries *CanaryConfig `json:"canaries,omitempty"`
	Agents   AgentTable    `json:"agents"`

	leaseTTL, lockTimeout time.Duration
}

// CanaryConfig is config.json's canaries: how often run plants a canary,
// and the labelled sets (a person's own files, absolute paths) it draws
// them from.
type CanaryConfig struct {
	Rate float64  `json:"rate"`
	Sets []string `json:"sets"`
}

// DefaultConfig is the config.json that init writes.
func DefaultConfig() Config {
	c := Config{Version: 1, MaxRounds: 5, VerifyQuorum: 1, ForbidSelfCheck: true,
		LeaseTTL: "15m", LockTimeout: "10s", MaxInputBytes: 4 << 20, MaxSubstatements: 50,
		KeepRuns: 20, MaxAgentFailures: 3}
	c.leaseTTL, c.lockTimeout = 15*time.Minute, 10*time.Second
	return c
}

// The accepted ranges of the settings that JSON Schema cannot bound
// (durations) or that the schema bounds too loosely to be safe. Each is
// checked on every load, so a bad edit is caught by the next command.
var (
	leaseTTLRange    = [2]time.Duration{time.Second, 24 * time.Hour}
	lockTimeoutRange = [2]time.Duration{0, 10 * time.Minute}
)

// ConfigRanges describes every bounded setting, for messages and docs.
var ConfigRanges = map[string]string{
	"max_rounds":         "from 1 to 1000",
	"verify_quorum":      "from 1 to 100",
	"lease_ttl":          "from 1s to 24h",
	"lock_timeout":       "from 0s to 10m",
	"max_input_bytes":    "from 1024 to 1073741824 (1 GiB)",
	"max_substatements":  "from 1 to 10000",
	"keep_runs":          "from 1 to 100000",
	"max_agent_failures": "from 1 to 1000",
	"escalation":         "that lists its levels, revise first, then replan and rewrite at most once each in that order, each with 1 to 1000 rounds or none",
}

// Policy is what the table's rules read of the settings: the round
// budgets, the ladder and the review of new statements.
func (c Config) Policy() model.Policy {
	esc := c.Escalation
	if esc == nil {
		esc = model.DefaultEscalation
	}
	return model.Policy{MaxRounds: c.MaxRounds, Escalation: esc, ReviewStatements: c.ReviewStatements}
}

// LeaseTTLDuration is lease_ttl, parsed and range-checked at load.
func (c Config) LeaseTTLDuration() time.Duration { return c.leaseTTL }

// LeaseTTLCeiling is how many times lease_ttl a claim's or refresh's --ttl
// may ask for.
const LeaseTTLCeiling = 4

// MaxLeaseTTL is the longest lease a claim or refresh may ask for:
// LeaseTTLCeiling times lease_ttl.
func (c Config) MaxLeaseTTL() time.Duration { return LeaseTTLCeiling * c.leaseTTL }

// LockTimeoutDuration is lock_timeout, parsed and range-checked at load.
func (c Config) LockTimeoutDuration() time.Duration { return c.lockTimeout }

// ParseConfig checks raw config.json against its schema and its ranges and
// returns it with defaults filled in. Every failure is a damaged store
// (exit 6) whose message names the key and the accepted range.
func ParseConfig(raw []byte) (Config, error) {
	if err := CheckJSONDepth(raw); err != nil {
		return Config{}, damaged(ConfigFile, err)
	}
	if err := schemas.Validate(schemas.Config, raw); err != nil {
		// Name the accepted range of each bounded key that failed.
		var ve *schemas.ValidationError
		if errors.As(err, &ve) {
			var ranges []string
			for _, f := range ve.Failures {
				key := strings.TrimPrefix(f.Path, "$.")
				if r, ok := ConfigRanges[key]; ok && !slices.Contains(ranges, key+" "+r) {
					ranges = append(ranges, key+" "+r)
				}
			}
			if len(ranges) > 0 {
				err = fmt.Errorf("%w (accepted: %s)", err, strings.Join(ranges, "; "))
			}
		}
		return Config{}, damaged(ConfigFile, err)
	}
	c := DefaultConfig()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Config{}, damaged(ConfigFile, err)
	}
	bad := func(key string, v any) error {
		return damaged(ConfigFile, fmt.Errorf("%s %v is out of range: it must be %s", key, v, ConfigRanges[key]))
	}
	dur := func(key, s string, r [2]time.Duration) (time.Duration, error) {
		d, err := time.ParseDuration(s)
		if err != nil || d < r[0] || d > r[1] {
			return 0, bad(key, fmt.Sprintf("%q", s))
		}
		return d, nil
	}
	var err error
	if c.leaseTTL, err = dur("lease_ttl", c.LeaseTTL, leaseTTLRange); err != nil {
		return Config{}, err
	}
	if c.lockTimeout, err = dur("lock_timeout", c.LockTimeout, lockTimeoutRange); err != nil {
		return Config{}, err
	}
	if err := checkAgents(c.Agents); err != nil {
		var ke *AgentKeyError
		if errors.As(err, &ke) {
			return Config{}, damaged(ConfigFile, err).WithHint(ke.Hint())
		}
		return Config{}, damaged(ConfigFile, err)
	}
	if c.Escalation != nil {
		if err := model.CheckEscalation(c.Escalation); err != nil {
			return Config{}, damaged(ConfigFile, err)
		}
	}
	for _, r := range []struct {
		key      string
		v, lo, h int64
	}{
		{"max_rounds", int64(c.MaxRounds), 1, 1000},
		{"verify_quorum", int64(c.VerifyQuorum), 1, 100},
		{"max_input_bytes", c.MaxInputBytes, 1024, 1 << 30},
		{"max_substatements", int64(c.MaxSubstatements), 1, 10000},
		{"keep_runs", int64(c.KeepRuns), 1, 100000},
		{"max_agent_failures", int64(c.MaxAgentFailures), 1, 1000},
	} {
		if r.v < r.lo || r.v > r.h {
			return Config{}, bad(r.key, r.v)
		}
	}
	return c, nil
}

// Config reads and checks config.json (ParseConfig). A command asks several
// times (lock timeout, quorum, budgets); the file is read and checked again
// only when its size or modification time changed, so a long `run` still
// sees an edit.
func (s *Store) Config() (Config, error) {
	s.cfgMu.Lock()
	defer s.cfgMu.Unlock()
	if s.backend != nil {
		return s.backendConfig(s.backend.ReadFile)
	}
	fi, err := s.root.Stat(ConfigFile)
	if err != nil {
		return Config{}, damaged(ConfigFile, err)
	}
	key := fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
	if s.cfg != nil && s.cfgKey == key {
		return *s.cfg, nil
	}
	raw, err := s.root.ReadFile(ConfigFile)
	if err != nil {
		return Config{}, damaged(ConfigFile, err)
	}
	c, err := ParseConfig(raw)
	if err != nil {
		return Config{}, err
	}
	s.cfg, s.cfgKey = &c, key
	return c, nil
}

// backendConfigTTL is how long a backend's config is used before it is
// read again: a command asks for it several times, and a long `run` still
// sees an edit within the second.
const backendConfigTTL = time.Second

// backendConfig reads config.json from the backend; the caller holds cfgMu.
func (s *Store) backendConfig(read func(name string) ([]byte, error)) (Config, error) {
	if s.cfg != nil && time.Since(s.cfgAt) < backendConfigTTL {
		return *s.cfg, nil
	}
	raw, err := read(ConfigFile)
	if err == nil && raw == nil {
		err = fmt.Errorf("%s has no %s", s.backend, ConfigFile)
	}
	if err != nil {
		return Config{}, damaged(ConfigFile, err)
	}
	c, err := ParseConfig(raw)
	if err != nil {
		return Config{}, err
	}
	s.cfg, s.cfgAt = &c, time.Now()
	return c, nil
}
