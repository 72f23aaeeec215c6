package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

func (a *app) historyCommand() *cobra.Command {
	var since, until string
	c := &cobra.Command{
		Use:   "history ID [--since SEQ|TIME] [--until SEQ|TIME]",
		Short: "List every change of one document: who, which command, and what each field became",
		Long: `history lists every change of one problem or statement, oldest first: the event's seq,
time, actor, command and lease holder, the status before -> after and the new
revision, then one line per changed field, rebuilt from the patches the events
carry (e.g. validate.issues[2] added: sentence 4, unjustified_leap, "...";
proof: revision 3 → 4 (sentences 5–7 replaced)).

It reads only that document's events, through the index's offsets, so it costs
the document's events, not the log. --since and --until take an event seq or a
time (2026-11-22T10:04:08Z, or a date for its whole day), and both are
inclusive: --since 4 starts at seq 4.

--json: {"ok":true,"command":"history","id":ID,"entries":[{"seq","time","actor",
"command","lease_holder","before","after","revision","patch","changes":[...]}]}.`,
		Args: oneID,
		RunE: func(cmd *cobra.Command, args []string) error {
			from, to, err := pointFlags(since, until)
			if err != nil {
				return err
			}
			return a.withRef(args[0], func(s *store.Store, id string) error {
				steps, err := s.History(id)
				if err != nil {
					return err
				}
				entries := []map[string]any{}
				for _, st := range steps {
					if (from != nil && from.Cmp(st.Event) < 0) || (to != nil && to.Cmp(st.Event) > 0) {
						continue
					}
					changes := model.DescribeChanges(st.Before, st.After)
					if st.After == nil && !st.Change.Deleted {
						changes = []string{"(written before events kept patches: the fields it changed are not known)"}
					}
					if changes == nil {
						changes = []string{}
					}
					e := map[string]any{"seq": st.Event.Seq, "time": st.Event.Time, "actor": st.Event.Actor,
						"command": st.Event.Command, "lease_holder": st.Event.LeaseHolder, "before": st.Change.Before,
						"after": st.Change.After, "revision": st.Change.Revision, "changes": changes}
					if len(st.Change.Patch) > 0 {
						e["patch"] = st.Change.Patch
					}
					entries = append(entries, e)
					if !a.json {
						a.printStep(st, changes)
					}
				}
				if a.json {
					return a.writeJSON(map[string]any{"ok": true, "command": "history", "id": id, "entries": entries})
				}
				if len(entries) == 0 {
					fmt.Fprintf(a.stdout, "No change of %s in that range.\n", id)
				}
				return nil
			})
		},
	}
	c.Flags().StringVar(&since, "since", "", "only changes at or after `SEQ|TIME`")
	c.Flags().StringVar(&until, "until", "", "only changes at or before `SEQ|TIME`")
	return c
}

func (a *app) printStep(st store.Step, changes []string) {
	actor := "-"
	if st.Event.Actor != nil {
		actor = *st.Event.Actor
	}
	before := "new"
	if st.Change.Before != nil {
		before = string(*st.Change.Before)
	}
	lease := ""
	if st.Event.LeaseHolder != nil {
		lease = " (lease: " + *st.Event.LeaseHolder + ")"
	}
	fmt.Fprintf(a.stdout, "seq %d  %s  %s  %s%s: %s -> %s, revision %d\n", st.Event.Seq, st.Event.Time, actor,
		st.Event.Command, lease, before, st.Change.After, st.Change.Revision)
	for _, c := range changes {
		fmt.Fprintf(a.stdout, "    %s\n", c)
	}
}

// pointFlags parses --since and --until (either may be empty).
func pointFlags(since, until string) (from, to *store.Point, err error) {
	for _, f := range []struct {
		v   string
		dst **store.Point
	}{{since, &from}, {until, &to}} {
		if f.v == "" {
			continue
		}
		p, err := store.ParsePoint(f.v)
		if err != nil {
			return nil, nil, err
		}
		*f.dst = &p
	}
	if from != nil && to != nil {
		if err := store.CheckRange(*from, *to, "--since", "--until"); err != nil {
			return nil, nil, err
		}
	}
	return from, to, nil
}
