package formal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/proofloop/proofloop/model"
)

// The result contract of a checker other than Coq's (docs/formal.md): the
// engine writes the formal statement to Statement.EXT and the proof to
// Proof.EXT in a fresh scratch folder, and runs the configured command
// there with three more arguments, Statement.EXT Proof.EXT THEOREM, in the
// same sandbox as Coq's. The command does the comparator's work for its
// system: it accepts only a proof that compiles, declares THEOREM with the
// statement's type, and admits nothing. Its last line on stdout is one
// JSON object:
//
//	{"ok": true, "axioms": ["propext", "Quot.sound"]}
//	{"ok": false, "reason": "...", "errors": [{"file": "Proof.lean", "line": 3, "message": "..."}]}
//
// The engine accepts only exit 0 with "ok": true, and then only the axioms
// formal.axioms permits.
type contractResult struct {
	OK     *bool    `json:"ok"`
	Axioms []string `json:"axioms"`
	Reason string   `json:"reason"`
	Errors []struct {
		File    string `json:"file"`
		Line    int    `json:"line"`
		Message string `json:"message"`
	} `json:"errors"`
}

// theoremRe is what a theorem's name may be when it reaches a checker's
// command line: a (qualified) identifier, never an option or a path.
var theoremRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_'.]*$`) })

// ValidTheorem checks a theorem name given for a system other than Coq.
func ValidTheorem(name string) error {
	if len(name) > 200 || !theoremRe().MatchString(name) {
		return fmt.Errorf("theorem %q is not an identifier (letters, digits, _, ' and dots, a letter or _ first)", name)
	}
	return nil
}

func checkContract(dir string, job Job) (*Outcome, error) {
	if err := ValidTheorem(job.Theorem); err != nil {
		return refused(model.TargetFormalStatement, err), nil
	}
	stmt, proof := "Statement."+job.Ext, "Proof."+job.Ext
	for name, text := range map[string]string{stmt: job.Statement, proof: job.Proof} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	r, err := runSandboxed(dir, append(append([]string{}, job.Argv...), stmt, proof, job.Theorem), job.Limits, job.Warn)
	if err != nil {
		return nil, err
	}
	o := &Outcome{Duration: r.duration, Sandbox: r.sandbox, Output: string(r.output), Target: model.TargetFormalProof}
	if r.timedOut {
		o.Reason = fmt.Sprintf("the checker did not finish within formal.timeout (%s): its process group was killed", job.Limits.Timeout)
		o.Error = o.Reason
		return o, nil
	}
	var res contractResult
	lines := strings.Split(strings.TrimSpace(string(r.output)), "\n")
	last := []byte(lines[len(lines)-1])
	dec := json.NewDecoder(bytes.NewReader(last))
	dec.DisallowUnknownFields()
	err = dec.Decode(&res)
	if err == nil && dec.InputOffset() != int64(len(bytes.TrimSpace(last))) {
		err = fmt.Errorf("data after the JSON object")
	}
	if err != nil || res.OK == nil {
		o.Reason = fmt.Sprintf("the checker (exit %d) did not end with the contract's JSON line", r.exit)
		o.Error = lastLines(string(r.output), 3)
		return o, nil
	}
	if r.exit == 0 && *res.OK {
		o.OK, o.Axioms = true, res.Axioms
		return o, nil
	}
	o.Reason = res.Reason
	if o.Reason == "" {
		o.Reason = fmt.Sprintf("the checker refused the proof (exit %d)", r.exit)
	}
	o.Error = o.Reason
	if len(res.Errors) > 0 {
		e := res.Errors[0]
		o.Line, o.Error = e.Line, fmt.Sprintf("File %q, line %d: %s", e.File, e.Line, e.Message)
		if e.File == stmt {
			o.Target = model.TargetFormalStatement
		}
	}
	return o, nil
}
