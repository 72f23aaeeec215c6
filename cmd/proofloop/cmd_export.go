package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/store"
	"github.com/proofloop/proofloop/store/doctor"
)

func (a *app) exportCommand() *cobra.Command {
	var to string
	var pf proofFlags
	c := &cobra.Command{
		Use:   "export --to DIR | --format tex|md --problem P [-o FILE] [--draft]",
		Short: "Copy the store to a new file store, as of one commit, while agents keep working; doctor checks the copy",
		Long: "export copies the store to DIR under the store's lock, so the copy is the store as of one\n" +
			"commit even while agents write (they wait for the copy, as for a long transaction): the\n" +
			"documents, the event log, the leases, the kept proof revisions, the debate transcripts and\n" +
			"config.json. The derived index is rebuilt on the copy. DIR must not exist or be empty; the\n" +
			"copy appears there whole or not at all (a killed export's half copy, .DIR.export-*, is\n" +
			"removed by the next export to DIR: only a folder that holds our lock file, and only when\n" +
			"no live export holds that lock). Then doctor checks the copy (exit 6 if it is damaged:\n" +
			"the store was too). It is the safe backup of a running store; copying the folder by hand\n" +
			"while agents write can catch a document and its log out of step. --json prints\n" +
			`{"ok":true,"export":{"dir","files","bytes","last_seq","lock_held_ms","swept"},"report":{...doctor...}}.` + "\n\n" +
			"With --format tex or md it writes a problem's finished proof as one document instead (to\n" +
			"stdout, or -o FILE): the problem, its resolution, every statement it rests on in dependency\n" +
			"order with its accepted proof, and an appendix of rounds, issues, answers and confirmers.\n" +
			"A problem that is not soundly solved is refused (exit 4) unless --draft, which marks every\n" +
			"unproved step. Agent text is escaped. In LaTeX a formula passes through as written when every\n" +
			"command in it is an allowed math command (docs/pipeline.md), else it is shown as text with a\n" +
			"footnote, listed on stderr (math_as_text in --json). In Markdown it is quoted, HTML and links shown as text.",
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			if pf.format != "" || pf.problem != "" {
				if to != "" {
					return store.Errorf(store.CodeUsage, "export takes --to DIR or --format, not both").
						WithHint("--to copies the store; --format tex|md --problem P writes a problem's proof")
				}
				return a.exportProof(pf)
			}
			if to == "" {
				return store.Errorf(store.CodeUsage, "export needs --to DIR").WithHint("e.g. --to backup/contents-2026-11-23")
			}
			return a.withStore(func(s *store.Store) error {
				ex, err := s.Export(to)
				if err != nil {
					return err
				}
				cp, err := store.Open(to)
				if err != nil {
					return err
				}
				defer cp.Close()
				r, err := doctor.CheckCopy(cp)
				if err != nil {
					return err
				}
				out := map[string]any{"export": ex, "report": r}
				if len(r.Findings) > 0 {
					err := store.Errorf(store.CodeStoreDamaged, "the copy at %s is damaged, so the store is too: %s", to, plural(len(r.Findings), "finding", "findings")).
						WithHint("run `proofloop doctor` on the store and repair it, then export again")
					return &withReport{err, out, r}
				}
				if a.json {
					out["ok"], out["command"] = true, "export"
					return a.writeJSON(out)
				}
				for _, p := range ex.Swept {
					fmt.Fprintf(a.stdout, "Removed %s, left by an export that was killed.\n", p)
				}
				fmt.Fprintf(a.stdout, "Exported %s (%s) to %s, as of seq %d; writers waited at most %d ms.\n",
					plural(ex.Files, "file", "files"), byteSize(ex.Bytes), to, ex.LastSeq, ex.LockHeldMS)
				fmt.Fprintf(a.stdout, "doctor on the copy: consistent, %s, %s, %s; log verified to seq %d.\n",
					plural(r.Problems, "problem", "problems"), plural(r.Statements, "statement", "statements"), plural(r.Debates, "debate", "debates"), r.Log.VerifiedSeq)
				return nil
			})
		},
	}
	c.Flags().StringVar(&to, "to", "", "the new store's `DIR` (must not exist, or be empty)")
	c.Flags().StringVar(&pf.format, "format", "", "write a problem's proof as `tex` (LaTeX) or md (Markdown)")
	c.Flags().StringVar(&pf.problem, "problem", "", "the problem whose proof --format writes")
	c.Flags().StringVarP(&pf.out, "output", "o", "", "write the proof to `FILE` instead of stdout (-: stdout)")
	c.Flags().BoolVar(&pf.draft, "draft", false, "export a problem that is not soundly solved, marking every unproved step")
	outputFlag(c, "to", "the export")
	outputFlag(c, "output", "the proof")
	return c
}

// proofFlags are export's flags for a problem's proof.
type proofFlags struct {
	format, problem, out string
	draft                bool
}

// exportProof writes a problem's proof as LaTeX or Markdown.
func (a *app) exportProof(pf proofFlags) error {
	switch {
	case pf.format != "tex" && pf.format != "md":
		return store.Errorf(store.CodeUsage, "--format must be tex or md, got %q", pf.format).WithHint("e.g. --format tex --problem prob_example")
	case pf.problem == "":
		return store.Errorf(store.CodeUsage, "--format needs --problem P").WithHint("`proofloop status` lists the problems")
	}
	return a.withStore(func(s *store.Store) error {
		doc, err := loop.ExportProof(s, pf.problem, pf.draft)
		if err != nil {
			return err
		}
		text, notes := doc.Markdown(), []loop.MathNote{}
		if pf.format == "tex" {
			if text, notes = doc.TeX(); notes == nil {
				notes = []loop.MathNote{}
			}
		}
		out := map[string]any{"ok": true, "command": "export", "problem": pf.problem, "format": pf.format,
			"draft": pf.draft, "statements": len(doc.Statements), "math_as_text": notes}
		if pf.out == "" || pf.out == "-" {
			if a.json {
				out["text"] = text
				return a.writeJSON(out)
			}
			a.noteMath(notes)
			_, err := io.WriteString(a.stdout, text)
			return err
		}
		if err := os.WriteFile(pf.out, []byte(text), 0o644); err != nil {
			return store.Errorf(store.CodeInvalidInput, "cannot write %s", pf.out).Wrap(err).WithHint("give -o a file in a folder that exists and that you may write")
		}
		if a.json {
			out["file"] = pf.out
			return a.writeJSON(out)
		}
		fmt.Fprintf(a.stdout, "Wrote the proof of %s (%s) to %s.\n", pf.problem, plural(len(doc.Statements), "statement", "statements"), pf.out)
		a.noteMath(notes)
		return nil
	})
}

// noteMath tells a person, on stderr, each formula the LaTeX export shows
// as text rather than typesetting (its footnote says why too).
func (a *app) noteMath(notes []loop.MathNote) {
	if len(notes) == 0 {
		return
	}
	fmt.Fprintf(a.stderr, "Note: %s shown as text, not typeset, in the LaTeX (each with a footnote):\n", plural(len(notes), "formula is", "formulas are"))
	for _, n := range notes {
		fmt.Fprintf(a.stderr, "  %s: %.60q: %s\n", n.Where, n.Math, n.Why)
	}
}

// byteSize prints n bytes for a reader: 812 B, 4.2 KB, 31.0 MB.
func byteSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
