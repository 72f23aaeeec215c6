package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/store"
)

func (a *app) eventsCommand() *cobra.Command {
	var since int
	var only string
	var follow bool
	c := &cobra.Command{
		Use:   "events [--since SEQ] [--follow]",
		Short: "Print the event log; --follow waits for new events until SIGINT or SIGTERM",
		Long: "events prints the lines of events.jsonl after --since. With --json and without --follow it\n" +
			`prints one object {"ok":true,"command":"events","events":[...]}; with --follow --json it prints` + "\n" +
			"one event per line, as stored, as each transaction commits.",
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withStore(func(s *store.Store) error {
				ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
				defer stop()
				all := []json.RawMessage{}
				err := loop.Events(ctx, s, since, follow, func(_ int, line []byte) error {
					if only != "" && !mentions(line, only) {
						return nil
					}
					switch {
					case a.json && follow:
						_, err := fmt.Fprintf(a.stdout, "%s\n", line)
						return err
					case a.json:
						all = append(all, json.RawMessage(append([]byte(nil), line...)))
						return nil
					}
					_, err := fmt.Fprintln(a.stdout, eventLine(line))
					return err
				})
				if err != nil {
					return err
				}
				if a.json && !follow {
					return a.writeJSON(map[string]any{"ok": true, "command": "events", "events": all})
				}
				return nil
			})
		},
	}
	c.Flags().IntVar(&since, "since", 0, "print only events with a seq above `SEQ`")
	c.Flags().BoolVar(&follow, "follow", false, "keep printing new events as they commit")
	c.Flags().StringVar(&only, "id", "", "only events that involve this document: its audit trail")
	return c
}

// mentions reports whether an event involves document id.
func mentions(line []byte, id string) bool {
	var ev struct{ IDs []string }
	json.Unmarshal(line, &ev)
	for _, x := range ev.IDs {
		if x == id {
			return true
		}
	}
	return false
}

// eventLine renders an event for a person.
func eventLine(line []byte) string {
	var ev store.Event
	if json.Unmarshal(line, &ev) != nil {
		return string(line)
	}
	actor := "-"
	if ev.Actor != nil {
		actor = *ev.Actor
	}
	var ch []string
	for _, c := range ev.Changes {
		before := "new"
		if c.Before != nil {
			before = string(*c.Before)
		}
		ch = append(ch, fmt.Sprintf("%s %s->%s r%d", c.ID, before, c.After, c.Revision))
	}
	if len(ch) == 0 {
		ch = ev.IDs
	}
	lease := ""
	if ev.LeaseHolder != nil {
		lease = " lease:" + *ev.LeaseHolder
	}
	return fmt.Sprintf("%d %s %s %s: %s%s", ev.Seq, ev.Time, actor, ev.Command, strings.Join(ch, ", "), lease)
}
