package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/proofloop/proofloop/model"
)

// FormalConfig is config.json's formal: what a kernel pass does for truth,
// and how the engine runs a proof checker (docs/formal.md). Every key of it
// is a person's setting: an agent that could set the checker to `true` or
// permit an axiom would grade its own proof.
type FormalConfig struct {
	Policy   model.FormalPolicy `json:"policy"`
	Timeout  string             `json:"timeout"`
	MemoryMB int                `json:"memory_mb"`
	Axioms   []string           `json:"axioms"`
	Checkers map[string]Checker `json:"checkers"`

	timeout time.Duration
}

// Checker is the command that checks one system's proofs: a command line
// (split on spaces, run without a shell, the file to check appended) and
// the extension of the files it reads. config.json gives either the command
// line alone or {command, extension}.
type Checker struct {
	Command   string `json:"command"`
	Extension string `json:"extension,omitempty"`
}

// UnmarshalJSON reads a command line or a {command, extension} object.
func (c *Checker) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &c.Command)
	}
	type plain Checker
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode((*plain)(c))
}

// MarshalJSON writes a checker without an extension as its command line.
func (c Checker) MarshalJSON() ([]byte, error) {
	if c.Extension == "" {
		return json.Marshal(c.Command)
	}
	type plain Checker
	return json.Marshal(plain(c))
}

// Argv is the checker's command line split on spaces.
func (c Checker) Argv() []string { return strings.Fields(c.Command) }

// Ext is the extension of the files the checker reads: its own, else "v"
// for coq, else the system's name.
func (c Checker) Ext(system string) string {
	switch {
	case c.Extension != "":
		return c.Extension
	case system == "coq":
		return "v"
	}
	return system
}

// The reference checker: Debian's coq package puts coqc on the PATH.
const (
	DefaultCoqCommand = "coqc -q"
	// DefaultFormalTimeout bounds one check (formal.timeout).
	DefaultFormalTimeout = "60s"
	// DefaultFormalMemoryMB bounds the checker's address space (formal.memory_mb).
	DefaultFormalMemoryMB = 2048
)

// defaultFormal is the formal setting in effect when config.json leaves
// it out: the policy off, Coq's checker.
func defaultFormal() FormalConfig {
	return FormalConfig{Policy: model.PolicyOff, Timeout: DefaultFormalTimeout, MemoryMB: DefaultFormalMemoryMB,
		Axioms: []string{}, Checkers: map[string]Checker{"coq": {Command: DefaultCoqCommand}}, timeout: time.Minute}
}

// formalTimeoutRange bounds formal.timeout.
var formalTimeoutRange = [2]time.Duration{time.Second, time.Hour}

// TimeoutDuration is formal.timeout, parsed and range-checked at load.
func (f FormalConfig) TimeoutDuration() time.Duration { return f.timeout }

// FormalPolicyValues lists formal.policy's values, for the schema.
var FormalPolicyValues = model.FormalPolicies

// checkFormal parses formal.timeout and checks what the schema cannot:
// a checker's command is not empty.
func checkFormal(f *FormalConfig) error {
	d, err := time.ParseDuration(f.Timeout)
	if err != nil || d < formalTimeoutRange[0] || d > formalTimeoutRange[1] {
		return fmt.Errorf("formal.timeout %q is out of range: it must be %s", f.Timeout, ConfigRanges["formal.timeout"])
	}
	f.timeout = d
	for name, c := range f.Checkers {
		if len(c.Argv()) == 0 {
			return fmt.Errorf("formal.checkers.%s has an empty command", name)
		}
	}
	return nil
}
