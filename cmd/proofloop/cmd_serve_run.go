//go:build !lean

package main

import (
	"context"
	"fmt"
	"net"
	"os/signal"
	"syscall"

	"github.com/proofloop/proofloop/report"
	"github.com/proofloop/proofloop/store"
)

// runServe serves the report until SIGINT or SIGTERM (serveCommand).
func (a *app) runServe(problem, addr string, maxStreams int) error {
	if maxStreams < 1 {
		return store.Errorf(store.CodeUsage, "--max-streams takes a number from 1, not %d", maxStreams).
			WithHint(fmt.Sprintf("leave it out for %d", report.DefaultMaxStreams))
	}
	s, err := a.open()
	if err != nil {
		return err
	}
	defer s.Close()
	if problem != "" {
		if err := report.CheckProblem(s, problem); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return store.Errorf(store.CodeUsage, "listen on %s", addr).Wrap(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(a.stdout, "Serving the report of %s at http://%s/ (read-only; Ctrl-C stops).\n", s.Dir, ln.Addr())
	h := report.NewHandler(s, report.ServeOptions{Problem: problem, Hosts: report.NewHosts(addr, ln.Addr()), MaxStreams: maxStreams, Log: a.stderr})
	return report.Serve(ctx, ln, h)
}
