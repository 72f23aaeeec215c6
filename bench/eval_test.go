package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proofloop/proofloop/bench/table"
	"github.com/proofloop/proofloop/eval"
)

// BenchmarkEvalShipped runs `proofloop eval` over the whole shipped set
// with the scripted agents, through the binary, once: the four checkers on
// its 32 proofs, the prover on its 10 false claims, 138 scratch roots in
// all at -j 2. The figures must be exactly those the agents' behaviour
// implies (eval.Implied, the README's eval table); the row gives the wall
// time. Too long for make test, which runs a few items per agent
// (eval_scripted.txtar).
func BenchmarkEvalShipped(b *testing.B) {
	evalOnce.Do(func() { evalShipped(b) })
	for b.Loop() {
	}
}

// evalOnce runs the eval once per process: Go calls a benchmark with b.N 1
// before its counted run, and each is a minute of agent turns.
var evalOnce sync.Once

func evalShipped(b *testing.B) {
	e := setup(b)
	root := filepath.Join(b.TempDir(), "project", "contents")
	run := func(args ...string) []byte {
		var out, errb bytes.Buffer
		cmd := exec.Command(e.proofloop, append(args, "--root", root)...)
		cmd.Stdout, cmd.Stderr, cmd.Env = &out, &errb, cleanEnv
		if err := cmd.Run(); err != nil {
			b.Fatalf("proofloop %q: %v\n%s", args, err, errb.Bytes())
		}
		return out.Bytes()
	}
	run("init")
	var checkers []string
	for _, name := range []string{"confirm-all", "reject-all", "finds-planted", "two-categories"} {
		checkers = append(checkers, fmt.Sprintf(`{"name": %q, "command": "proofloop eval-agent %s"}`, name, name))
	}
	run("config", "set", "agents.check", "["+strings.Join(checkers, ", ")+"]")
	run("config", "set", "agents.prove", `[{"name": "prove-all", "command": "proofloop eval-agent prove-all"}]`)
	start := time.Now()
	var reports []eval.Report
	for _, role := range []string{"check", "prove"} {
		var out struct{ Report eval.Report }
		if err := json.Unmarshal(run("eval", "--role", role, "--shipped", "-j", "2", "--json"), &out); err != nil {
			b.Fatal(err)
		}
		reports = append(reports, out.Report)
	}
	d := time.Since(start)
	evals := 0
	for _, rep := range reports {
		for _, f := range rep.Agents {
			want, err := eval.Implied(eval.Shipped(), f.Agent)
			if err != nil {
				b.Fatal(err)
			}
			if f.Counts != want {
				b.Fatalf("%s on the shipped set: %+v; its behaviour implies %+v", f.Agent, f.Counts, want)
			}
			evals += f.Counts.Items
		}
	}
	table.Record("eval over the shipped set, 5 scripted agents (-j 2)", fmt.Sprintf("%d items judged in %.1f s (%.0f ms each); figures as implied", evals, d.Seconds(), ms(d)/float64(evals)), "", "")
}
