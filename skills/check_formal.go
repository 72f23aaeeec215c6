package skills

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/proofloop/proofloop/formal"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// checkFormal has the engine run the proof checker on the formal proof and
// record its verdict, whose actor is the kernel (kernel:coq-8.16.1), not
// the caller: any checker may ask for it, none can give it. The checker
// runs before the transaction (Prepare), outside the store's lock, in a
// sandbox; the transaction records the verdict only if the formal texts are
// still the ones checked.
var checkFormal = &Skill{
	Name:    "check-formal",
	Purpose: "Kernel-check a formal proof.",
	Target:  "statement_path",
	Params: []Param{
		ref("statement_path", "the statement: its id, or the path of its JSON file"),
	},
	Example:       `--statement-path stmt_example_wrap`,
	When:          "Use it when the formal stage is proof_submitted: the engine compiles the proof against the formal statement and records the verdict, a pass or an issue quoting the checker's error.",
	WhenNot:       "Nothing to judge yourself: the verdict is the kernel's. A refusal is not a reason to edit the proof yourself as a checker; the fixer answers the issue.",
	Output:        "`verdict` says whether the kernel accepted the proof (`ok`), which checker ran, the axioms the proof rests on and, on a refusal, why (`reason`); its version, output, duration and sandbox are in the document's `formal.verdict`. On a refusal, `issue_number` is the issue recorded and `status` is `has_gap`; on a pass, `status` is `true` when formal.policy makes it so.",
	ExampleAfter:  "state-complete-formal-proof",
	ExampleOutput: `{"command":"check-formal","created":[],"id":"stmt_example_wrap","ok":true,"revision":5,"stage":"checked","status":"pending","verdict":{"axioms":[],"checker":"coq","ok":true}}`,
	Refusals: []Refusal{
		formalStageRefusal("formal_stage_proof_submitted", "state-complete-formal-proof submits a formal proof; a checked or refused one waits for the fixer"),
		{Code: store.CodeConflict,
			When: "the formal statement or proof changed while the checker ran",
			Do:   "Run check-formal again: it checks the texts as they are now."},
		{Code: store.CodeNotFound,
			When: "the configured checker command is not installed",
			Do:   "Stop and report it: a person installs the checker (Debian: apt-get install coq) or sets formal.checkers."},
	},
	Prepare: prepareCheckFormal,
	Run:     runCheckFormal,
}

// kernelRun is what check-formal's Prepare found: the checker's outcome on
// the texts whose hashes it names.
type kernelRun struct {
	outcome                *formal.Outcome
	statementSHA, proofSHA string
	system, command        string
	permitted              []string
	warnings               []string
}

// prepareCheckFormal reads the statement outside any transaction, refuses
// early what the transaction would, and runs the checker.
func prepareCheckFormal(s *store.Store, in *Input) error {
	d, err := s.Read(in.Text("statement_path"))
	if err != nil {
		return err
	}
	if d.Kind != model.KindStatement {
		return store.Errorf(store.CodeInvalidInput, "%s is a %s; check-formal acts on a statement", d.ID, d.Kind)
	}
	st, err := d.Statement()
	if err != nil {
		return store.Errorf(store.CodeStoreDamaged, "%s", err)
	}
	if err := model.Allow("check-formal", model.StatementFacts(st, nil)); err != nil {
		return err
	}
	cfg, err := s.Config()
	if err != nil {
		return err
	}
	fm := st.Formal
	checker, err := checkerOf(cfg, fm.System)
	if err != nil {
		return err
	}
	k := &kernelRun{statementSHA: model.SHA256Hex(fm.Statement), proofSHA: model.SHA256Hex(*fm.Proof),
		system: fm.System, command: checker.Command, permitted: cfg.Formal.Axioms}
	k.outcome, err = formal.Check(formal.Job{System: fm.System, Theorem: fm.Theorem, Statement: fm.Statement, Proof: *fm.Proof,
		Permitted: cfg.Formal.Axioms, Argv: checker.Argv(), Ext: checker.Ext(fm.System),
		Limits: formal.Limits{Timeout: cfg.Formal.TimeoutDuration(), MemoryBytes: uint64(cfg.Formal.MemoryMB) << 20},
		Warn:   func(w string) { k.warnings = append(k.warnings, w) }})
	var ni *formal.NotInstalled
	switch {
	case errors.As(err, &ni):
		return store.Errorf(store.CodeNotFound, "%v (formal.checkers.%s is %q)", err, fm.System, checker.Command).
			WithHint("a person installs the checker (Debian: apt-get install coq) or sets formal.checkers." + fm.System)
	case err != nil:
		return store.Errorf(store.CodeInternal, "check-formal %s", st.ID).Wrap(err)
	}
	in.prepared = k
	return nil
}

func runCheckFormal(tx *store.Tx, in *Input) (*Result, error) {
	id := in.Text("statement_path")
	d, st, f, err := statementState(tx, id)
	if err != nil {
		return nil, err
	}
	if err := model.Allow("check-formal", f); err != nil {
		return nil, err
	}
	k, _ := in.prepared.(*kernelRun)
	if k == nil || model.SHA256Hex(st.Formal.Statement) != k.statementSHA || model.SHA256Hex(*st.Formal.Proof) != k.proofSHA {
		return nil, store.Errorf(store.CodeConflict, "the formal texts of %s changed while the checker ran", id).
			WithHint("run check-formal again: it checks the texts as they are now")
	}
	o := k.outcome
	v := model.Verdict{OK: o.OK, Actor: model.KernelActor(k.system, o.Version), Checker: k.system, Version: o.Version, Command: k.command,
		StatementSHA256: k.statementSHA, ProofSHA256: k.proofSHA, Axioms: nonNil(o.Axioms), PermittedAxioms: nonNil(k.permitted),
		DurationMS: o.Duration.Milliseconds(), Reason: o.Reason, Output: o.Output, Sandbox: o.Sandbox, RequestedBy: actor(tx), At: tx.Now()}
	if err := d.Set("formal.verdict", v); err != nil {
		return nil, err
	}
	tx.Detail("kernel", v.Actor)
	res := &Result{ID: id, Status: st.Status, Revision: d.Revision() + 1, Extra: map[string]any{"verdict": verdictOut(v, k.warnings)}}
	if !o.OK {
		res, err = kernelRefused(tx, d, st, o, v, res)
	} else if err = d.Set("formal.stage", model.StageChecked); err == nil {
		res.Extra["stage"] = model.StageChecked
		res, err = kernelPassed(tx, d, st, v, res)
	}
	if err != nil {
		return nil, err
	}
	for _, w := range k.warnings {
		res.Text += " WARNING: " + w + "."
	}
	return res, nil
}

// verdictOut is the verdict as check-formal's --json reports it: what the
// caller acts on. The checker's version, duration, output and sandbox are
// in the document (show ID --field formal.verdict); a weaker sandbox than
// asked is reported here too, as warnings.
func verdictOut(v model.Verdict, warnings []string) map[string]any {
	out := map[string]any{"ok": v.OK, "checker": v.Checker, "axioms": v.Axioms}
	if v.Reason != "" {
		out["reason"] = v.Reason
	}
	if len(warnings) > 0 {
		out["warnings"] = warnings
	}
	return out
}

// kernelRefused records the refusal as an issue whose actor is the kernel,
// on the text the checker's error is in, quoting it.
func kernelRefused(tx *store.Tx, d *store.Doc, st *model.Statement, o *formal.Outcome, v model.Verdict, res *Result) (*Result, error) {
	stage, text := model.StageFailed, *st.Formal.Proof
	if o.Target == model.TargetFormalStatement {
		stage, text = model.StageRejected, st.Formal.Statement
	}
	reason := strings.TrimSuffix(o.Reason, ".")
	expl := fmt.Sprintf("%s refused the formal proof: %s.", v.Actor, reason)
	if o.Error != "" && o.Error != o.Reason {
		expl += "\n" + formal.Bound(o.Error, 1500)
	}
	kernel := v.Actor
	n, round, err := recordFormalIssue(tx, d, st, formalIssue{target: o.Target, line: o.Line, text: text,
		explanation: expl, errorType: "gap", actor: &kernel}, stage)
	if err != nil {
		return nil, err
	}
	res.Status = model.StatementHasGap
	res.Extra["issue_number"], res.Extra["round"], res.Extra["stage"] = n, round, stage
	res.Text = fmt.Sprintf("%s refused the formal proof of %s: %s (issue %d, round %d; the fixer answers it).", v.Actor, st.ID, reason, n, round)
	return res, nil
}

// kernelPassed makes the statement true when formal.policy says a kernel
// pass does (model.Truth).
func kernelPassed(tx *store.Tx, d *store.Doc, st *model.Statement, v model.Verdict, res *Result) (*Result, error) {
	cfg, err := tx.Config()
	if err != nil {
		return nil, err
	}
	after := *st
	fm := *st.Formal
	fm.Stage, fm.Verdict = model.StageChecked, &v
	after.Formal = &fm
	t := model.TruthOf(&after, cfg.Formal.Policy, cfg.VerifyQuorum, len(after.Confirmers(cfg.VerifyDistinct, st.ProofRevision)))
	res.Text = fmt.Sprintf("%s accepted the formal proof of %s (theorem %s, %s).", v.Actor, st.ID, fm.Theorem, time.Duration(v.DurationMS)*time.Millisecond)
	if !t.Met() {
		if st.Status == model.StatementAwaitingVerification || cfg.Formal.Policy == model.PolicySuffices {
			res.Text += " It still needs " + t.Missing() + "."
		}
		return res, nil
	}
	summary := fmt.Sprintf("%s checked the formal proof (formal.policy %s).", v.Actor, cfg.Formal.Policy)
	if err := set(d, "status", model.StatementTrue, "verified_at", tx.Now(), "verification_summary", summary); err != nil {
		return nil, err
	}
	res.Status = model.StatementTrue
	res.Text += fmt.Sprintf(" It is true (formal.policy %s).", cfg.Formal.Policy)
	return res, nil
}
