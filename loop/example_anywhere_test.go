package loop_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExampleRunsAnywhere (issue 22, item 8): the scripted agents ship in
// the binary, so an installed proofloop solves the example from a folder
// that is not a checkout, with nothing of the checkout on PATH or in the
// working directory: `init --example DIR && run --root DIR`.
func TestExampleRunsAnywhere(t *testing.T) {
	gobin := t.TempDir()
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gobin, "proofloop"), b, 0o755); err != nil {
		t.Fatal(err)
	}
	away := t.TempDir() // the working directory: no examples/ in it
	env := cleanEnv("PATH=" + gobin + ":/usr/bin:/bin")
	installed := func(args ...string) (string, string, int) {
		cmd := exec.Command(filepath.Join(gobin, "proofloop"), args...)
		cmd.Dir, cmd.Env = away, env
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}
	if out, errs, code := installed("init", "--example", "x"); code != 0 {
		t.Fatalf("init --example x: exit %d\n%s%s", code, out, errs)
	}
	cfg, _ := os.ReadFile(filepath.Join(away, "x", "config.json"))
	if !strings.Contains(string(cfg), `"check": "proofloop example-agent check"`) || strings.Contains(string(cfg), "examples/agents") {
		t.Errorf("config.json of the example:\n%s\nwant agents named as `proofloop example-agent ROLE`, no path of a checkout", cfg)
	}
	out, errs, code := installed("--json", "run", "--root", "x", "--max-turns", "80", "--turn-timeout", "1m")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last struct {
		OK      bool `json:"ok"`
		Summary struct {
			Outcome   string         `json:"outcome"`
			ByOutcome map[string]int `json:"by_outcome"`
			Turns     int            `json:"turns"`
		} `json:"summary"`
	}
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	if code != 0 || last.Summary.Outcome != "solved" || last.Summary.ByOutcome["ok"] != last.Summary.Turns {
		t.Fatalf("run --root x from %s: exit %d, summary %+v\n%s\n%s; want solved with every turn ok", away, code, last.Summary, lines[len(lines)-1], errs)
	}
	if out, _, _ := installed("show", "prob_odd_squares", "--root", "x", "--field", "status"); strings.TrimSpace(out) != "solved" {
		t.Errorf("prob_odd_squares is %q; want solved", out)
	}

	// The scripts print with their libraries in place; an unknown name is
	// refused with the names that exist.
	script, _, code := installed("example-agent", "check", "--print")
	if code != 0 || !strings.Contains(script, "check-confirm-proof") || !strings.Contains(script, "id=$PROOFLOOP_ID") || strings.Contains(script, `dirname "$0"`) {
		t.Errorf("example-agent check --print: exit %d\n%s\nwant the check script with lib.sh written in place", code, script)
	}
	out, _, code = installed("--json", "example-agent", "chek")
	if code != 3 || !strings.Contains(out, `"code":"not_found"`) || !strings.Contains(out, "check") {
		t.Errorf("example-agent chek: exit %d %s; want not_found (3) naming the agents that exist", code, out)
	}
}
