package main

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/proofloop/proofloop/bench/table"
)

// The MCP benchmarks compare one call over a warm `proofloop mcp` with the
// same call through the CLI binary, one process per call as a shell agent
// makes it. Each reports the median latency besides Go's mean.
// `make bench` runs them with -bench MCP -benchtime 200x.

// BenchmarkMCPShowServer: show over a warm server (a reader runs twice: its
// --json object and its plain text).
func BenchmarkMCPShowServer(b *testing.B) {
	root := benchRoot(b, 1)
	cs := connect(b, root, nil)
	args := map[string]any{"ids": []string{"prob_b0000"}}
	timed(b, func(int) {
		res, err := cs.CallTool(testCtx(b), &mcp.CallToolParams{Name: "show", Arguments: args})
		if err != nil || res.IsError {
			b.Fatalf("show: %v %v", err, res)
		}
	})
}

// BenchmarkMCPShowCLI: the same show as `proofloop show --json`.
func BenchmarkMCPShowCLI(b *testing.B) {
	root := benchRoot(b, 1)
	timed(b, func(int) {
		if code, _, stderr := mcpCLI(b, root, "show", "prob_b0000"); code != 0 {
			b.Fatalf("show: exit %d: %s", code, stderr)
		}
	})
}

// BenchmarkMCPSkillServer: prob_wrapup_statement on a fresh problem each
// time, over a warm server.
func BenchmarkMCPSkillServer(b *testing.B) {
	root := benchRoot(b, b.N)
	cs := connect(b, root, nil)
	timed(b, func(i int) {
		res, err := cs.CallTool(testCtx(b), &mcp.CallToolParams{Name: "prob_wrapup_statement", Arguments: map[string]any{
			"problem_path": fmt.Sprintf("prob_b%04d", i), "claim": "It holds.", "purpose": "It is the objective.", "actor": "sol"}})
		if err != nil || res.IsError {
			b.Fatalf("prob_wrapup_statement: %v %v", err, res)
		}
	})
}

// BenchmarkMCPSkillCLI: the same skill calls through the CLI binary.
func BenchmarkMCPSkillCLI(b *testing.B) {
	root := benchRoot(b, b.N)
	timed(b, func(i int) {
		if code, _, stderr := mcpCLI(b, root, "prob-wrapup-statement", "--problem-path", fmt.Sprintf("prob_b%04d", i),
			"--claim", "It holds.", "--purpose", "It is the objective.", "--actor", "sol"); code != 0 {
			b.Fatalf("prob-wrapup-statement: exit %d: %s", code, stderr)
		}
	})
}

// benchRoot makes a root with n problems, prob_b0000 on, through a server
// (faster than n processes).
func benchRoot(b *testing.B, n int) string {
	b.Helper()
	root := newRoot(b)
	cs := connect(b, root, nil)
	for i := range n {
		res, err := cs.CallTool(testCtx(b), &mcp.CallToolParams{Name: "new_problem", Arguments: map[string]any{
			"name": fmt.Sprintf("b%04d", i), "objective": "Show it.", "actor": "sol"}})
		if err != nil || res.IsError {
			b.Fatalf("new_problem: %v %v", err, res)
		}
	}
	cs.Close()
	return root
}

// mcpMedians are the medians of this run's MCP benchmarks, by name, for
// the ratio rows of make bench's table.
var mcpMedians = map[string]time.Duration{}

// mcpRatio records, in make bench's table, this benchmark's median against
// that of the benchmark ref of the same run.
func mcpRatio(b *testing.B, ref, figure string, limit float64) {
	got, want := mcpMedians[b.Name()], mcpMedians[ref]
	if want == 0 {
		return // ref did not run (-bench chose this one alone)
	}
	r := float64(got) / float64(want)
	table.Record(figure, fmt.Sprintf("%.2f vs %.2f ms: %.2f×", float64(got.Microseconds())/1000, float64(want.Microseconds())/1000, r), fmt.Sprintf("≤ %.1f×", limit), table.AtMost(r, limit))
}

// timed runs op b.N times and reports the median besides the mean.
func timed(b *testing.B, op func(i int)) {
	d := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		op(i)
		d = append(d, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(d)
	mcpMedians[b.Name()] = d[len(d)/2]
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "ms-median/op")
}
