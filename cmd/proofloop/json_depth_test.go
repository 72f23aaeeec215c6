package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDeepJSONRefused feeds JSON nested 20,000 deep to the real binary
// (issue 23 S4): a skill's --input, a debate turn's --input and
// config.json. Each is refused by the depth check before anything is
// decoded (its message says so), with its exit code, nothing written, and
// flat memory: before the check, this 40 KB --input took 650 MB (the strict
// reader's key walk grew with the square of the depth); the bound below is
// generous, and a memory bound does not fail on a slow machine.
func TestDeepJSONRefused(t *testing.T) {
	const n = 20000
	deepArray := strings.Repeat("[", n) + strings.Repeat("]", n)
	deepObject := strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)
	dir := t.TempDir()
	root := filepath.Join(dir, "contents")
	pl := func(args ...string) { plRun(t, append([]string{"--root", root}, args...)...) }
	pl("init")
	pl("new-problem", "--name", "odd", "--objective", "The sum of the first n odd numbers is n^2.")
	pl("debate", "start", "--protocol", "dialectic", "--topic", "Cache policy")
	pl("debate", "join", "deb_cache_policy", "--participant-name", "m")
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	skillIn := write("skill.json", `{"problem_path":"prob_odd","purpose":"x","claim":`+deepArray+`}`)
	turnIn := write("turn.json", `{"body":`+deepObject+`}`)
	for _, c := range []struct {
		name string
		args []string
		exit int
	}{
		{"skill --input", []string{"prob-wrapup-statement", "--input", skillIn}, 2},
		{"debate turn --input", []string{"debate", "turn", "deb_cache_policy", "--participant-id", "p1", "--input", turnIn}, 2},
		{"skill --input on stdin", []string{"prob-wrapup-statement", "--input", "-"}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := readFile(t, filepath.Join(root, "events.jsonl"))
			stdin, _ := os.ReadFile(skillIn)
			code, stderr, rssKB := runBinary(t, root, stdin, c.args...)
			if code != c.exit || !strings.Contains(stderr, "the JSON nests deeper than 64 levels") {
				t.Errorf("proofloop %s: exit %d, stderr %q; want exit %d and the depth refusal", c.name, code, stderr, c.exit)
			}
			if rssKB > 256<<10 {
				t.Errorf("proofloop %s peaked at %d MB; want the depth check to refuse before any decoding (under 256 MB)", c.name, rssKB>>10)
			}
			if after := readFile(t, filepath.Join(root, "events.jsonl")); after != before {
				t.Errorf("proofloop %s wrote to the log; want nothing written", c.name)
			}
		})
	}
	t.Run("config.json", func(t *testing.T) {
		cfg := filepath.Join(root, "config.json")
		good := readFile(t, cfg)
		t.Cleanup(func() { os.WriteFile(cfg, []byte(good), 0o644) })
		write("contents/config.json", `{"max_rounds":`+deepArray+`}`)
		code, stderr, rssKB := runBinary(t, root, nil, "status")
		if code != 6 || !strings.Contains(stderr, "config.json is damaged: the JSON nests deeper than 64 levels") {
			t.Errorf("status with a deep config.json: exit %d, stderr %q; want exit 6 and the depth refusal", code, stderr)
		}
		if rssKB > 256<<10 {
			t.Errorf("status with a deep config.json peaked at %d MB; want under 256 MB", rssKB>>10)
		}
	})
}

// runBinary runs the proofloop binary that testscript installed on PATH
// (a process of its own, so that its peak memory is its own) and returns
// its exit code, stderr and peak resident memory in KB.
func runBinary(t *testing.T, root string, stdin []byte, args ...string) (int, string, int64) {
	t.Helper()
	cmd := exec.Command("proofloop", append([]string{"--root", root}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String(), cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
