package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proofloop/proofloop/internal/pgtest"
	"github.com/proofloop/proofloop/store/pgstore"
)

// pgRoot is a machine folder on a fresh, migrated and initialised database
// of the shared cluster, with n problems prob_b0000 on; it skips without
// PostgreSQL (fails under pgtest.RequireEnv).
func pgRoot(t testing.TB, n int) (root, dsn string) {
	t.Helper()
	c, err := cluster.Get()
	if err != nil {
		if os.Getenv(pgtest.RequireEnv) != "" {
			t.Fatalf("no PostgreSQL cluster, and %s is set: %v", pgtest.RequireEnv, err)
		}
		t.Skipf("no PostgreSQL cluster (see the banner above): %v", err)
	}
	if dsn, err = c.CreateMigratedDB(strings.ToLower(strings.NewReplacer("/", "_", "=", "_", "-", "_").Replace(t.Name()))); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.DropDB(dsn) })
	root = filepath.Join(t.TempDir(), "contents")
	if code, _, stderr := mcpCLI(t, root, "--store", dsn, "init"); code != 0 {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	cs := connect(t, root, nil, "--store", dsn)
	for i := range n {
		res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "new_problem", Arguments: map[string]any{
			"name": fmt.Sprintf("b%04d", i), "objective": "Show it.", "actor": "sol"}})
		if err != nil || res.IsError {
			t.Fatalf("new_problem: %v %v", err, res)
		}
	}
	cs.Close()
	return root, dsn
}

// TestMCPKeepsConnectionPostgres: a long-lived `proofloop mcp` on a
// PostgreSQL store connects once for all its calls (one more for the check
// it makes at start), and a skill call over it costs what one through the
// CLI does: prob_wrapup_statement, which writes two documents, at most 12
// statements, counted by pgx's tracer.
func TestMCPKeepsConnectionPostgres(t *testing.T) {
	const calls = 6
	root, dsn := pgRoot(t, calls)
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	t.Setenv(pgstore.TraceEnv, trace)
	cs := connect(t, root, nil, "--store", dsn)
	var connects, statements [calls]int
	for i := range calls {
		res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "prob_wrapup_statement", Arguments: map[string]any{
			"problem_path": fmt.Sprintf("prob_b%04d", i), "claim": "It holds.", "purpose": "It is the objective.", "actor": "sol"}})
		if err != nil || res.IsError {
			t.Fatalf("prob_wrapup_statement: %v %v", err, res)
		}
		connects[i], statements[i] = traced(t, trace)
	}
	if connects[calls-1] > 2 {
		t.Errorf("the server connected %d times for %d calls; want 2 at most (its start, then one for every call)", connects[calls-1], calls)
	}
	// After the first call, which also saw the server's start.
	if per := float64(statements[calls-1]-statements[0]) / (calls - 1); per > 12 {
		t.Errorf("%.1f statements a call; want at most 12", per)
	}
}

// traced counts the connections and statements of a trace file.
func traced(t *testing.T, trace string) (connects, statements int) {
	tr, err := pgstore.ReadTrace(trace)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Connects, tr.Statements()
}

// BenchmarkMCPSkillServerPostgres: BenchmarkMCPSkillServer on a PostgreSQL
// store of a local throwaway cluster; the server keeps its connection.
func BenchmarkMCPSkillServerPostgres(b *testing.B) {
	root, dsn := pgRoot(b, b.N)
	cs := connect(b, root, nil, "--store", dsn)
	timed(b, func(i int) {
		res, err := cs.CallTool(testCtx(b), &mcp.CallToolParams{Name: "prob_wrapup_statement", Arguments: map[string]any{
			"problem_path": fmt.Sprintf("prob_b%04d", i), "claim": "It holds.", "purpose": "It is the objective.", "actor": "sol"}})
		if err != nil || res.IsError {
			b.Fatalf("prob_wrapup_statement: %v %v", err, res)
		}
	})
	mcpRatio(b, "BenchmarkMCPSkillServer", "prob-wrapup-statement over a warm proofloop mcp, PostgreSQL vs the file store", 1.5)
}

// BenchmarkMCPSkillCLIPostgres: the same skill calls through the CLI
// binary on PostgreSQL, one process and one connection per call.
func BenchmarkMCPSkillCLIPostgres(b *testing.B) {
	root, dsn := pgRoot(b, b.N)
	timed(b, func(i int) {
		if code, _, stderr := mcpCLI(b, root, "--store", dsn, "prob-wrapup-statement", "--problem-path", fmt.Sprintf("prob_b%04d", i),
			"--claim", "It holds.", "--purpose", "It is the objective.", "--actor", "sol"); code != 0 {
			b.Fatalf("prob-wrapup-statement: exit %d: %s", code, stderr)
		}
	})
	mcpRatio(b, "BenchmarkMCPSkillCLI", "prob-wrapup-statement through the CLI binary, PostgreSQL vs the file store", 1.5)
}

// TestMCPWatchPostgres is TestMCPWatch on a PostgreSQL store: the --watch
// follower reads the store the server serves (it once opened the file store
// under --root, which a PostgreSQL project does not have), and a change by
// another process reaches a subscriber as resources/updated.
func TestMCPWatchPostgres(t *testing.T) {
	root, dsn := pgRoot(t, 1)
	if code, _, stderr := mcpCLI(t, root, "--store", dsn, "prob-wrapup-statement", "--problem-path", "prob_b0000", "--claim", "It holds.", "--purpose", "p", "--actor", "sol"); code != 0 {
		t.Fatalf("prob-wrapup-statement: exit %d: %s", code, stderr)
	}
	updated := make(chan string, 16)
	cs := connect(t, root, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		updated <- req.Params.URI
	}}, "--watch", "--store", dsn)
	const uri = "proofloop://statement/stmt_b0000_wrap"
	if err := cs.Subscribe(testCtx(t), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := mcpCLI(t, root, "--store", dsn, "state-complete-proof", "--statement-path", "stmt_b0000_wrap", "--proof-text", "Done.", "--strategy", "direct", "--actor", "pro"); code != 0 {
		t.Fatalf("state-complete-proof: exit %d: %s", code, stderr)
	}
	select {
	case got := <-updated:
		if got != uri {
			t.Errorf("resources/updated for %s; want %s", got, uri)
		}
	case <-time.After(2 * time.Minute): // hang protection only
		t.Fatal("no resources/updated notification after the statement changed")
	}
}
