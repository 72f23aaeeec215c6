package main

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/eval"
	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
	"github.com/proofloop/proofloop/store/doctor"
)

// doctorOptions are doctor's flags.
type doctorOptions struct {
	reindex, quick, full bool
	expectHead           string
}

func (a *app) doctorCommand() *cobra.Command {
	var o doctorOptions
	c := &cobra.Command{
		Use:   "doctor [--full | --quick | --reindex] [--expect-head HASH]",
		Short: "Check every file, the event log's hash chain and the index; finish or discard a leftover journal",
		Long:  doctorLong,
		Args:  noArgs,
		RunE:  func(*cobra.Command, []string) error { return a.runDoctor(o) },
	}
	c.Flags().BoolVar(&o.reindex, "reindex", false, "rebuild the derived index from the documents, then check everything")
	c.Flags().BoolVar(&o.full, "full", false, "check every document and replay the whole log, ignoring the last verified point")
	c.Flags().BoolVar(&o.quick, "quick", false, "check only the journal, the index's stamp and the event log's last line")
	c.Flags().StringVar(&o.expectHead, "expect-head", "", "a head `HASH` of the event log kept elsewhere: exit 6 unless the log passes through it")
	return c
}

// doctorLong is doctor's help.
const doctorLong = "doctor schema-checks every file and every cross-reference (parent, context, preliminaries,\n" +
	"progresses, sub_statements), verifies the event log's hash chain, replays its patches against\n" +
	"the documents, checks the derived index against them, finishes or discards a leftover journal\n" +
	"and removes stale temp files. It exits 6 when the store is damaged, listing each finding with\n" +
	"its code (--json). --json also gives the last verified event (log.verified_seq and\n" +
	"log.verified_hash): write them down, and a later doctor proves that nothing up to them changed.\n" +
	"--quick checks only the journal, the index's stamp and the log's last line. --reindex rebuilds\n" +
	"the derived index from the documents first, then checks everything.\n\n" +
	"Plain doctor is the routine check: it starts from the last verified point (.verified, written\n" +
	"by the last clean doctor) and rechecks the whole hash chain, the events since, every file whose\n" +
	"stat fingerprint (size, mtime, ctime, inode) changed or that an event since names, their\n" +
	"references, the leases, config.json and the index. With no usable point it is the full check.\n" +
	"--full reads every document and replays the whole log, ignoring the point, and rewrites it.\n" +
	"The routine check cannot see a file rewritten with its whole fingerprint restored, or a forged\n" +
	"point: run --full now and then, and before an import or a backup you rely on.\n\n" +
	"doctor prints the log's head hash. A log whose events were rewritten from some point on, with\n" +
	"their hashes recomputed, is a valid chain that no self-contained check can tell from the real\n" +
	"one: keep the head hash elsewhere, and `doctor --expect-head HASH` exits 6 unless the log still\n" +
	"passes through it."

// runDoctor is doctor: it checks the store as o says, settles the canaries
// a killed run left on a clean store, and prints the report (or returns the
// damage, exit 6, with the report).
func (a *app) runDoctor(o doctorOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	s, err := a.open()
	if err != nil && store.CodeOf(err) != store.CodeStoreDamaged {
		return err
	}
	if err != nil { // a damaged config.json: doctor still checks the rest
		s, err = a.openRoot()
		if err != nil {
			return err
		}
	}
	defer s.Close()
	s.ExpectHead = o.expectHead
	r, err := a.doctorCheck(s, o)
	if err != nil {
		return err
	}
	// A clean store: settle the canaries a killed run left, then
	// check again what that wrote.
	var settled []model.CheckerRecord
	if len(r.Findings) == 0 && !o.quick {
		if settled, err = a.recoverCanaries(s); err != nil {
			return err
		}
		if len(settled) > 0 {
			o.reindex = false
			if r, err = a.doctorCheck(s, o); err != nil {
				return err
			}
		}
	}
	if len(r.Findings) > 0 {
		return doctorDamaged(r, o.expectHead)
	}
	if a.json {
		out := map[string]any{"ok": true, "command": "doctor", "report": r}
		if len(settled) > 0 {
			out["canaries_settled"] = settled // only when it settled some
		}
		return a.writeJSON(out)
	}
	a.printDoctor(r, settled, o)
	return nil
}

// check refuses flags that do not go together.
func (o doctorOptions) check() error {
	if o.reindex && o.quick || o.full && o.quick {
		return store.Errorf(store.CodeUsage, "--quick goes with neither --full nor --reindex").
			WithHint("--quick is the cheapest check; --full and --reindex check everything")
	}
	if o.expectHead != "" && o.quick {
		return store.Errorf(store.CodeUsage, "--quick and --expect-head do not go together").
			WithHint("--expect-head needs the whole chain verified: drop --quick")
	}
	if o.expectHead != "" && !headRe().MatchString(o.expectHead) {
		return store.Errorf(store.CodeUsage, "--expect-head takes an event hash: 64 lowercase hex digits, as doctor prints it").
			WithHint("`proofloop doctor` prints the head hash; `proofloop events --json` gives every event's hash")
	}
	return nil
}

// doctorCheck runs the check o names.
func (a *app) doctorCheck(s *store.Store, o doctorOptions) (*doctor.Report, error) {
	switch {
	case o.quick:
		return doctor.Quick(s)
	case o.reindex: // then the full check, with or without --full
		if _, err := s.Reindex(); err != nil {
			return nil, err
		}
		// checkers.jsonl is derived from the log too.
		if rewrote, err := s.RebuildCheckers(); err != nil {
			return nil, err
		} else if rewrote {
			fmt.Fprintf(a.stderr, "Wrote %s again from the event log's records.\n", store.CheckersFile)
		}
		r, err := doctor.Full(s)
		if r != nil {
			r.Index = "rebuilt on request"
		}
		return r, err
	case o.full:
		return doctor.Full(s)
	}
	return doctor.Routine(s)
}

// doctorDamaged is the error of a check with findings, which carries the
// report.
func doctorDamaged(r *doctor.Report, expectHead string) error {
	err := store.Errorf(store.CodeStoreDamaged, "the store is damaged: %s", plural(len(r.Findings), "finding", "findings")).
		WithHint("repair or restore each file listed, then run doctor again; `doctor --reindex` rebuilds a damaged index")
	if r.Log.ExpectedHead != "" && r.Log.ExpectedSeq == 0 {
		err = store.Errorf(store.CodeStoreDamaged, "the event log does not pass through the head you kept (%s): events up to it were rewritten; %s in all",
			short(expectHead), plural(len(r.Findings), "finding", "findings")).
			WithHint("restore the store from a backup taken at or after that head, and check that the hash you kept is this store's")
	}
	return &withReport{err, map[string]any{"report": r}, r}
}

// printDoctor prints a clean check's report for a person.
func (a *app) printDoctor(r *doctor.Report, settled []model.CheckerRecord, o doctorOptions) {
	for _, rec := range settled {
		fmt.Fprintf(a.stdout, "Settled a canary that a killed run left: %s.\n", loop.CanaryText(rec))
	}
	if o.quick {
		fmt.Fprintf(a.stdout, "Quick check passed: the log ends at seq %d (hash %s); journal: %s; index: %s.\n",
			r.Log.VerifiedSeq, short(r.Log.VerifiedHash), r.Journal, r.Index)
		return
	}
	fmt.Fprintf(a.stdout, "The store is consistent: %s, %s, %s; journal: %s; index: %s; %s removed.\n",
		plural(r.Problems, "problem", "problems"), plural(r.Statements, "statement", "statements"), plural(r.Events, "event", "events"),
		r.Journal, r.Index, plural(len(r.Swept), "stale temp file", "stale temp files"))
	switch r.Mode {
	case doctor.ModeRoutine:
		fmt.Fprintf(a.stdout, "Routine check since the last verified point (seq %d): %s rechecked; `doctor --full` reads everything.\n",
			r.Since, plural(r.Rechecked, "changed document", "changed documents"))
	case doctor.ModeFullNoPoint:
		fmt.Fprintf(a.stdout, "Full check: there was no usable verified point; the next doctor starts from this one.\n")
	}
	if r.Log.ChainFrom > 0 {
		fmt.Fprintf(a.stdout, "The event log is verified from seq %d to seq %d (hash %s).\n", r.Log.ChainFrom, r.Log.VerifiedSeq, r.Log.VerifiedHash)
		if o.expectHead != "" {
			fmt.Fprintf(a.stdout, "It passes through the head you kept (seq %d); %s came after it.\n", r.Log.ExpectedSeq, plural(r.Log.VerifiedSeq-r.Log.ExpectedSeq, "event", "events"))
		}
		fmt.Fprintf(a.stdout, "Head: %s. Keep it elsewhere: `proofloop doctor --expect-head %s` shows later that no event up to it was rewritten.\n", r.Log.VerifiedHash, r.Log.VerifiedHash)
	}
}

// headRe is an event hash as doctor prints it.
var headRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{64}$`) })

func short(hash string) string { return hash[:min(len(hash), 12)] }

// withReport is an error that carries extra fields for the JSON error
// object and a report to print for a person.
type withReport struct {
	error
	extra  map[string]any
	report *doctor.Report
}

func (w *withReport) Unwrap() error { return w.error }

func (w *withReport) printText(a *app) {
	for _, f := range w.report.Findings {
		fmt.Fprintf(a.stdout, "%s: %s\n", f.Path, f.Message)
	}
}

// recoverCanaries settles the canaries a killed run left (eval.Canaries.
// Recover), for a person's doctor: never in an agent's turn, where it
// would settle a canary under the agent's eyes and name it.
func (a *app) recoverCanaries(s *store.Store) ([]model.CheckerRecord, error) {
	if a.personOnly("doctor") != nil {
		return nil, nil
	}
	c, err := eval.NewCanaries(s, store.Config{}, a.actor, nil)
	if err != nil {
		return nil, err
	}
	return c.Recover(s)
}
