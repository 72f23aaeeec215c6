//go:build !lean

package main

import (
	"context"
	"fmt"
	"os/signal"
	"syscall"

	"github.com/proofloop/proofloop/report"
)

// runReport writes the report (reportCommand).
func (a *app) runReport(problem, out string) error {
	s, err := a.open()
	if err != nil {
		return err
	}
	defer s.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	w, err := report.Write(ctx, s, problem, out, a.stdout, report.Options{})
	if err != nil {
		return err
	}
	switch {
	case out == "-":
		return nil
	case a.json:
		return a.writeJSON(map[string]any{"ok": true, "command": "report", "path": w.Path, "split": w.Split,
			"pages": w.Pages, "bytes": w.Bytes, "statements": w.Statements, "last_seq": w.LastSeq})
	}
	_, err = fmt.Fprintln(a.stdout, w.Describe())
	return err
}
