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
	var maxStreams int
	c := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:8080] [--problem P]",
		Short: "Serve the report live and read-only; the page updates as events commit",
		Long: `serve serves the page of proofloop report, rendered once per store revision and shared
among requests, and updates it as events commit: the page listens to /events (server-sent
events, from the same code as events --follow) and reloads its content after each one. All
event streams share one watch of the store (one inotify watch, or one LISTEN connection on
PostgreSQL); at most --max-streams are open at once, and the next gets 503. It is read-only:
GET and HEAD only, 405 for anything else. It binds to 127.0.0.1:8080 by default, so only this
machine can reach it, and it answers only requests addressed to the host of --addr or to
localhost, 127.0.0.1 or [::1] with its port (421 otherwise), so a web page cannot reach it
through DNS rebinding. Every response carries a strict Content-Security-Policy (no source but
the page's own nonced script and style). It runs until SIGINT or SIGTERM.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if maxStreams < 1 {
				return store.Errorf(store.CodeUsage, "--max-streams takes a number from 1, not %d", maxStreams).
					WithHint(fmt.Sprintf("leave it out for %d", report.DefaultMaxStreams))
			}
			return a.withStore(func(s *store.Store) error {
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
			})
		},
	}
	c.Flags().StringVar(&addr, "addr", "127.0.0.1:8080", "listen on `HOST:PORT` (keep it on localhost unless you mean to share the store)")
	c.Flags().StringVar(&problem, "problem", "", "only this problem's subtree (`PROBLEM` id)")
	c.Flags().IntVar(&maxStreams, "max-streams", report.DefaultMaxStreams, "at most `N` open /events streams (open pages); the next gets 503")
	return c
}
