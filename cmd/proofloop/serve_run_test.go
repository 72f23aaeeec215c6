package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/proofloop/proofloop/store"
)

// The fake agent CLIs of TestServeRunInBrowser, on the run's PATH under
// the CLIs' own names, so that run and serve take them for the CLIs: a
// codex whose endpoint refuses its key, and a gemini that waits for the
// test's go-ahead, confirms, and reports its usage as Gemini's
// stream-json does.
const (
	fakeCodex = `#!/bin/sh
echo '{"type":"turn.failed","error":{"message":"unexpected status 401 Unauthorized: Incorrect API key provided"}}'
exit 1
`
	fakeGemini = `#!/bin/sh
while [ ! -e "$PROOFLOOP_ROOT/../go" ]; do sleep 0.05; done
proofloop check-confirm-proof --statement-path "$PROOFLOOP_ID" --verification-summary 'Checked.' --json
echo '{"type":"result","status":"success","stats":{"input_tokens":900,"output_tokens":40,"cached":300,"input":600,"models":{"gemini-2.5-pro":{"input_tokens":900,"output_tokens":40,"cached":300,"input":600}}}}'
`
)

// TestServeRunInBrowser (issue 35, item 6): serve's /run shows the run in
// progress, from the store alone, updated as events commit: the turn in
// flight (role, item, CLI, model, time so far) and its lease's expiry; the
// failure of the agent before it, with its CLI's error quoted, not charged,
// and the agent given up; then, once the turn ends, its tokens and its cost
// from the price table against max_cost_usd, and no turn in flight. It is
// the report's page: no console error, no request but its own origin.
func TestServeRunInBrowser(t *testing.T) {
	ctx, pl := browser(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "contents")
	fake := filepath.Join(dir, "bin")
	os.MkdirAll(fake, 0o755)
	for name, script := range map[string]string{"codex": fakeCodex, "gemini": fakeGemini} {
		if err := os.WriteFile(filepath.Join(fake, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cli := func(args ...string) {
		t.Helper()
		cmd := exec.Command(cliBin(t), append([]string{"--root", root}, args...)...)
		cmd.Env = cliEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("proofloop %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	cli("init")
	cli("new-problem", "--name", "odd", "--objective", "The sum of the first n odd numbers is n^2.", "--actor", "ada")
	cli("prob-wrapup-statement", "--problem-path", "prob_odd", "--claim", "It holds for every n.", "--purpose", "It is the objective.", "--actor", "ada")
	cli("state-complete-proof", "--statement-path", "stmt_odd_wrap", "--strategy", "induction", "--proof-text", "Step 1: It holds for 1. Step 2: The step adds 2n+1. Hence it holds.", "--actor", "bob")
	cli("config", "set", "max_agent_failures", "1")
	cli("config", "set", "max_cost_usd", "5")
	cli("config", "set", "prices", `{"gemini-2.5-pro": {"input": 2.5, "cached_input": 0.25, "output": 15}}`)
	cli("config", "set", "agents.check", `[{"name": "codex", "command": "codex exec --json -m gpt-5 go"}, {"name": "gemini", "command": "gemini -m gemini-2.5-pro -o stream-json -p go"}]`)

	s, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(s, "")
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		s.Close()
	})
	runCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := exec.CommandContext(runCtx, cliBin(t), "--root", root, "run", "--turn-timeout", "2m")
	run.Env = append(cliEnv(), "PATH="+fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	var out bytes.Buffer
	run.Stdout, run.Stderr = &out, &out
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- run.Wait() }()

	text := func(sel string) string {
		s, err := chromedp.Run(ctx, chromedp.TextContent(sel))
		if err != nil {
			t.Fatalf("%s: %v\nrun: %s", sel, err, out.String())
		}
		return s
	}
	// The gemini turn is in flight (it waits for go): the page shows it,
	// and the codex turn's failure before it.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/run"),
		chromedp.WaitVisible(`#in-flight tr.turn`), chromedp.WaitVisible(`#given-up`)); err != nil {
		t.Fatalf("the run view never showed the turn in flight and the agent given up: %v\nrun: %s", err, out.String())
	}
	for sel, want := range map[string][]string{
		"#in-flight tr.turn": {"check", "stmt_odd_wrap", "check-gemini-", "gemini", "gemini-2.5-pro", "Z"},
		"#failures tr.failure": {"codex", "failed (exit 1)", "unexpected status 401 Unauthorized: Incorrect API key provided",
			"no: before any proofloop call", "given up"},
		"#given-up":        {"check agent codex"},
		"#leases tr.lease": {"stmt_odd_wrap", "run-", "check-gemini-", "(in "},
		"#totals":          {"prob_odd over all runs", "of max_cost_usd $5.0000"},
	} {
		got := text(sel)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s reads %q; want %q in it", sel, got, w)
			}
		}
	}
	// The turn ends: the page follows the events to tokens and cost, and
	// no turn in flight.
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(2 * time.Minute): // hang protection only
		t.Fatalf("run did not end\n%s", out.String())
	}
	cost := fmt.Sprintf("$%.4f", (600*2.5+300*0.25+40*15)/1e6)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#tokens") !== null && document.querySelector("#tokens").textContent === "900 / 40" &&
		document.querySelector("#in-flight tr.turn") === null`, chromedp.WithPollingInterval(20*time.Millisecond))); err != nil {
		t.Fatalf("the run view did not follow the run's end: %v\nrun: %s", err, out.String())
	}
	if got := text("#cost"); !strings.HasPrefix(got, cost) || text("#turns") != "2" {
		t.Errorf("cost %q, turns %q; want %s from the price table and 2 turns", got, text("#turns"), cost)
	}
	errs, reqs := pl.snapshot()
	if len(errs) > 0 {
		t.Errorf("the page logged errors; want none:\n%s", strings.Join(errs, "\n"))
	}
	for _, r := range reqs {
		if !strings.HasPrefix(r, srv.URL+"/") {
			t.Errorf("the page requested %q; want only its own origin %s", r, srv.URL)
		}
	}
	if shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err == nil {
		os.WriteFile(filepath.Join(artifacts(t), "serve-run.png"), shot, 0o644)
	}
}
