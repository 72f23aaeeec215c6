package formal

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/proofloop/proofloop/model"
)

// Job is one check: a statement's formal texts, the theorem, the axioms
// config.json permits, and the checker to run.
type Job struct {
	System    string
	Theorem   string
	Statement string
	Proof     string
	Permitted []string
	// Argv is the configured command line (formal.checkers.SYSTEM), Ext
	// the extension of the files it reads.
	Argv   []string
	Ext    string
	Limits Limits
	// Warn receives what the operator must know (a weaker sandbox).
	Warn func(string)
}

// Outcome is what the check found: the verdict's content, and where the
// first error is, for the issue that quotes it.
type Outcome struct {
	OK       bool
	Reason   string
	Axioms   []string
	Output   string
	Version  string
	Duration time.Duration
	Sandbox  string
	// Target is the text the refusal is about: model.TargetFormalStatement
	// or model.TargetFormalProof; Line is the line of it the checker
	// named (0 when none) and Error the checker's message, quoted.
	Target string
	Line   int
	Error  string
}

// Check runs the job's checker: Coq's comparator built in, any other
// system by the result contract. The texts are checked for refused words
// first, so none of them runs. An error is the engine's failure to run a
// check at all (no scratch folder, no checker), not a refusal of the proof.
func Check(job Job) (*Outcome, error) {
	if job.Warn == nil {
		job.Warn = func(string) {}
	}
	if len(job.Argv) == 0 {
		return nil, fmt.Errorf("formal.checkers.%s has no command", job.System)
	}
	dir, err := os.MkdirTemp(scratchParent(), "proofloop-formal-")
	if err != nil {
		return nil, fmt.Errorf("scratch folder: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, err
	}
	if err := prepareDir(dir); err != nil {
		return nil, fmt.Errorf("scratch folder: %w", err)
	}
	version := Version(job.Argv[0])
	var o *Outcome
	if job.System == "coq" {
		o, err = checkCoq(dir, job)
	} else {
		o, err = checkContract(dir, job)
	}
	if err != nil {
		return nil, err
	}
	o.Version = version
	o.Output = Bound(o.Output, model.MaxVerdictOutput)
	if o.OK {
		if extra := notPermitted(o.Axioms, job.Permitted); len(extra) > 0 {
			o.OK, o.Target = false, model.TargetFormalProof
			o.Reason = fmt.Sprintf("it rests on axioms formal.axioms does not permit: %s", strings.Join(extra, ", "))
			o.Error = "Axioms: " + strings.Join(extra, ", ")
		}
	}
	return o, nil
}

// notPermitted lists the axioms of used not in permitted.
func notPermitted(used, permitted []string) []string {
	var out []string
	for _, a := range used {
		if !slices.Contains(permitted, a) {
			out = append(out, a)
		}
	}
	return out
}

// refused is the outcome of a text refused before any run.
func refused(target string, err error) *Outcome {
	o := &Outcome{Target: target, Reason: "refused before any run: " + err.Error(), Error: err.Error(), Sandbox: "not run"}
	if r, ok := err.(*Refusal); ok {
		o.Line = r.Line
	}
	if l, ok := err.(*LexError); ok {
		o.Line = l.Line
	}
	o.Output = o.Reason
	return o
}

// Bound cuts s to at most n bytes, keeping its start and, mostly, its end
// (where a checker's error and the engine's check are), at rune boundaries.
func Bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head := n / 4
	note := fmt.Sprintf("\n[... %d bytes cut ...]\n", len(s)-n)
	tail := n - head - len(note)
	for head > 0 && !utf8Start(s[head]) {
		head--
	}
	from := len(s) - tail
	for from < len(s) && !utf8Start(s[from]) {
		from++
	}
	return s[:head] + note + s[from:]
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

var versions sync.Map // checker command -> version

// versionRe finds a version number in a checker's --version.
var versionRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[0-9]+(\.[0-9]+)+`) })

// Version is the version of a checker, from `COMMAND --version` (the
// first number like 8.16.1 it prints), asked once per process; "" when it
// names none.
func Version(command string) string {
	if v, ok := versions.Load(command); ok {
		return v.(string)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, command, "--version").CombinedOutput()
	v := versionRe().FindString(string(out))
	versions.Store(command, v)
	return v
}
