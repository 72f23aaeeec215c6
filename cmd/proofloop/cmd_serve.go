package main

import (
	"context"
	"fmt"
	"net"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/report"
	"github.com/proofloop/proofloop/store"
)

func (a *app) serveCommand() *cobra.Command {
	var problem, addr string
	c := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:8080] [--problem P]",
		Short: "Serve the report live and read-only; the page updates as events commit",
		Long: `serve serves the page of proofloop report, rendered afresh on each request, and updates
it as events commit: the page listens to /events (server-sent events, from the same code as
events --follow) and reloads its content after each one. It is read-only: GET and HEAD only,
405 for anything else. It binds to 127.0.0.1:8080 by default, so only this machine can reach
it; every response carries a strict Content-Security-Policy (no source but the page's own
nonced script and style). It runs until SIGINT or SIGTERM.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			return report.Serve(ctx, ln, s, problem)
		},
	}
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT` (keep it on localhost unless you mean to share the store)")
	c.Flags().StringVar(&problem, "problem", "", "only this problem's subtree (`PROBLEM` id)")
	return c
}
