package formal

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/proofloop/proofloop/model"
)

// Coq's check, comparator style: one file holds the formal statement in a
// module, the formal proof in another, and the engine's check after them:
//
//	Module proofloop_statement. <statement> End proofloop_statement.
//	Module proofloop_proof. <proof> End proofloop_proof.
//	Definition proofloop_check : <the type of proofloop_statement.T> := @proofloop_proof.T.
//	Print Assumptions proofloop_check.
//
// It compiles only when the proof compiles and its T has the statement's
// T's type (up to conversion, with the statement's own definitions: a proof
// that redefines them differently, or proves another type under the same
// name, is refused); Print Assumptions then lists every axiom the proof
// rests on, an Admitted lemma included, and each must be permitted. A random
// marker before it tells the engine's Print Assumptions from anything the
// proof printed. Neither text may name proofloop_ (Reserved), so neither
// can close the engine's modules or declare its check.
const (
	statementModule = "proofloop_statement"
	proofModule     = "proofloop_proof"
	checkFile       = "Proofloop.v"
)

// coqFile is the engine's check file and the lines where each text starts.
type coqFile struct {
	text               string
	stmtFrom, stmtTo   int // the statement's lines in the file, first and last
	proofFrom, proofTo int
	marker             string
	checkLine          int
}

func buildCoqFile(job Job) (*coqFile, error) {
	var nonce [8]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, err
	}
	f := &coqFile{marker: "proofloop_marker_" + hex.EncodeToString(nonce[:])}
	var b strings.Builder
	line := 1
	add := func(s string) {
		b.WriteString(s)
		line += strings.Count(s, "\n")
	}
	add("Set Warnings \"-require-in-module\".\n")
	add("Module " + statementModule + ".\n")
	f.stmtFrom = line
	add(strings.TrimRight(job.Statement, " \t\r\n") + "\n")
	f.stmtTo = line - 1
	add("End " + statementModule + ".\nModule " + proofModule + ".\n")
	f.proofFrom = line
	add(strings.TrimRight(job.Proof, " \t\r\n") + "\n")
	f.proofTo = line - 1
	add("End " + proofModule + ".\n")
	f.checkLine = line
	add(fmt.Sprintf("Definition proofloop_check : ltac:(let t := type of @%s.%s in exact t) := @%s.%s.\n",
		statementModule, job.Theorem, proofModule, job.Theorem))
	add("Set Printing Width 1000.\n")
	add(fmt.Sprintf("Definition %s := tt.\nCheck %s.\nPrint Assumptions proofloop_check.\n", f.marker, f.marker))
	f.text = b.String()
	return f, nil
}

// checkCoq refuses a text with a refused word before any run, then
// compiles the check file with the configured command and reads its
// verdict.
func checkCoq(dir string, job Job) (*Outcome, error) {
	if _, err := CheckStatement(job.Statement); err != nil {
		return refused(model.TargetFormalStatement, err), nil
	}
	if err := CheckProof(job.Proof, job.Theorem); err != nil {
		return refused(model.TargetFormalProof, err), nil
	}
	f, err := buildCoqFile(job)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, checkFile), []byte(f.text), 0o644); err != nil {
		return nil, err
	}
	r, err := runSandboxed(dir, append(append([]string{}, job.Argv...), checkFile), job.Limits, job.Warn)
	if err != nil {
		return nil, err
	}
	o := &Outcome{Duration: r.duration, Sandbox: r.sandbox}
	out := f.relabel(string(r.output))
	o.Output = out
	switch {
	case r.timedOut:
		o.Target, o.Reason = model.TargetFormalProof, fmt.Sprintf("the checker did not finish within formal.timeout (%s): its process group was killed", job.Limits.Timeout)
		o.Error = o.Reason
		return o, nil
	case r.exit != 0:
		f.failure(o, out, r.exit, job.Theorem, job.Proof)
		return o, nil
	}
	at := strings.Index(out, f.marker+"\n")
	if at < 0 {
		o.Target, o.Reason = model.TargetFormalProof, "the checker's output lacks the engine's check (did the proof stop the checker early?)"
		o.Error = o.Reason
		return o, nil
	}
	axioms, other := assumptions(out[at:])
	if len(other) > 0 {
		o.Target, o.Reason = model.TargetFormalProof, "the kernel reports that the proof relies on: "+strings.Join(other, "; ")
		o.Error = o.Reason
		return o, nil
	}
	o.OK, o.Axioms = true, axioms
	// The marker did its work; the output a person reads is Coq's.
	o.Output = strings.Replace(out, f.marker+"\n     : unit\n", "", 1)
	return o, nil
}

// locRe is coqc's location line of a message about the check file.
var locRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`File "(?:\./)?` + regexp.QuoteMeta(checkFile) + `", line ([0-9]+), characters ([0-9]+)-([0-9]+):`)
})

// relabel rewrites coqc's locations in the check file as the line of the
// text they are in: File "Statement.v" or File "Proof.v", line N, so the
// output quotes lines a fixer can find.
func (f *coqFile) relabel(out string) string {
	return locRe().ReplaceAllStringFunc(out, func(m string) string {
		sub := locRe().FindStringSubmatch(m)
		n, _ := strconv.Atoi(sub[1])
		name, line := f.where(n)
		return fmt.Sprintf(`File "%s", line %d, characters %s-%s:`, name, line, sub[2], sub[3])
	})
}

// where maps a line of the check file to a file and line a person knows.
func (f *coqFile) where(n int) (string, int) {
	switch {
	case n >= f.stmtFrom && n <= f.stmtTo:
		return "Statement.v", n - f.stmtFrom + 1
	case n >= f.proofFrom && n <= f.proofTo:
		return "Proof.v", n - f.proofFrom + 1
	}
	return "the engine's check", n
}

// relabelled is a location as relabel writes it.
var relabelled = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`File "(Statement\.v|Proof\.v|the engine's check)", line ([0-9]+), characters [0-9]+-[0-9]+:`)
})

// failure fills in a compile failure: where the first error is and what
// it says. An error at the engine's check line is the comparator's refusal:
// the proof's theorem does not have the statement's type.
func (f *coqFile) failure(o *Outcome, out string, exit int, theorem, proof string) {
	o.Target = model.TargetFormalProof
	file, line, msg := firstError(out)
	if msg == "" {
		o.Reason, o.Error = uncitedFailure(out, exit), lastLines(out, 3)
		return
	}
	o.Error = msg
	o.Line, _ = strconv.Atoi(line)
	first := firstErrorLine(msg)
	switch file {
	case "Statement.v":
		o.Target, o.Reason = model.TargetFormalStatement, "the formal statement does not compile: "+first
	case "Proof.v":
		o.Reason = "the formal proof does not compile: " + first
	default:
		o.Reason = fmt.Sprintf("the formal proof's %s does not have the formal statement's type (same name, another statement): %s", theorem, first)
		o.Line = declLine(proof, theorem)
	}
}

// uncitedFailure is the reason of a failure whose output cites no error
// of a file: the checker ran out of memory, was killed, or failed.
func uncitedFailure(out string, exit int) string {
	switch {
	case strings.Contains(out, "out of memory"):
		return fmt.Sprintf("the checker ran out of memory (exit %d): formal.memory_mb bounds it", exit)
	case exit == -1:
		return "the checker was killed by a signal (exit -1)"
	}
	return fmt.Sprintf("the checker failed (exit %d)", exit)
}

// firstError finds the first message of out that is an error (a warning
// is skipped): its file, line and the message with its location.
func firstError(out string) (file, line, msg string) {
	locs := relabelled().FindAllStringSubmatchIndex(out, -1)
	for i, loc := range locs {
		end := len(out)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		m := strings.TrimSpace(out[loc[0]:end])
		if strings.Contains(m, "\nError:") {
			return out[loc[2]:loc[3]], out[loc[4]:loc[5]], m
		}
	}
	return "", "", ""
}

// firstErrorLine is the message's Error: line (or its first line), cut.
func firstErrorLine(msg string) string {
	lines := strings.Split(msg, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "Error:") {
			s := strings.TrimSpace(strings.TrimPrefix(strings.Join(lines[i:], " "), "Error:"))
			return Bound(strings.Join(strings.Fields(s), " "), 300)
		}
	}
	return Bound(lines[len(lines)-1], 300)
}

// declLine is the line where proof declares theorem (1 when not found).
func declLine(proof, theorem string) int {
	ss, err := sentences(proof)
	if err != nil {
		return 1
	}
	for _, s := range ss {
		if declared(s, declWords) == theorem {
			return s.line
		}
	}
	return 1
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// assumptions reads Print Assumptions' output after the marker: the
// axioms, by name, and any other section (type-in-type, unsafe fixpoints,
// assumed positivity, section variables) as its heading and names.
func assumptions(out string) (axioms, other []string) {
	lines := strings.Split(out, "\n")
	section := ""
	for _, l := range lines[1:] {
		switch {
		case strings.TrimSpace(l) == "" || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t"):
			continue // a type's continuation, or the marker's type
		case strings.HasPrefix(l, "Closed under the global context"):
			return axioms, other
		case strings.HasSuffix(l, ":") && !strings.Contains(l, " : "):
			section = strings.TrimSuffix(l, ":")
			continue
		case section == "":
			continue
		}
		name, _, _ := strings.Cut(l, " : ")
		name = strings.TrimSpace(name)
		if section == "Axioms" {
			axioms = append(axioms, name)
		} else {
			other = append(other, section+": "+name)
		}
	}
	return axioms, other
}
