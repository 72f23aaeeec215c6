package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/store"
)

func (a *app) exportCommand() *cobra.Command {
	var to string
	c := &cobra.Command{
		Use:   "export --to DIR",
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
			`{"ok":true,"export":{"dir","files","bytes","last_seq","lock_held_ms","swept"},"report":{...doctor...}}.`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			if to == "" {
				return store.Errorf(store.CodeUsage, "export needs --to DIR").WithHint("e.g. --to backup/contents-2026-11-23")
			}
			s, err := a.open()
			if err != nil {
				return err
			}
			defer s.Close()
			ex, err := s.Export(to)
			if err != nil {
				return err
			}
			cp, err := store.Open(to)
			if err != nil {
				return err
			}
			defer cp.Close()
			r, err := cp.Doctor()
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
		},
	}
	c.Flags().StringVar(&to, "to", "", "the new store's `DIR` (must not exist, or be empty)")
	return c
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
