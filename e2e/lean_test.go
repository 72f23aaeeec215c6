package e2e

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// What a skill call of the lean build initialises before main runs, as
// GODEBUG=inittrace=1 reports it: every package of the binary runs its
// init, used or not, so a new dependency of any command adds to every call.
// The bounds are counts, not times, so no machine is too slow for them.
// On 2026-11-28 (Go 1.26) a call initialised 112 packages, 653 allocations,
// 101 KB; the full build 149 packages, about 4,100 allocations, 0.67 MB.
const (
	initPackages = 125
	initAllocs   = 850
	initBytes    = 150 << 10
)

// notInASkillCall are packages (by prefix) that the lean build leaves to
// proofloop-full: the report's Markdown and templates, the MCP SDK with
// gob and its JSON Schema library, the HTTP server, the old validator.
var notInASkillCall = []string{
	"github.com/yuin/goldmark", "github.com/proofloop/proofloop/report", "html/template",
	"github.com/modelcontextprotocol/", "encoding/gob", "github.com/google/jsonschema-go",
	"net/http", "github.com/xeipuuv/gojsonschema",
}

type initRecord struct {
	pkg           string
	bytes, allocs int
}

// initTrace runs args with GODEBUG=inittrace=1 and returns its package inits.
func initTrace(t *testing.T, args ...string) []initRecord {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("%v: %v\n%s%s", args, err, out, stderr.Bytes())
	}
	var recs []initRecord
	for line := range strings.Lines(stderr.String()) {
		// init PKG @0.2 ms, 0.01 ms clock, 1120 bytes, 18 allocs
		f := strings.Fields(line)
		if len(f) != 11 || f[0] != "init" || f[10] != "allocs" {
			continue
		}
		b, err1 := strconv.Atoi(f[7])
		a, err2 := strconv.Atoi(f[9])
		if err1 != nil || err2 != nil {
			t.Fatalf("cannot read %q", line)
		}
		recs = append(recs, initRecord{f[1], b, a})
	}
	if len(recs) < 20 {
		t.Fatalf("inittrace gave %d packages:\n%s", len(recs), stderr.Bytes())
	}
	return recs
}

// TestLeanSkillCallInitBudget: a skill call of the lean build initialises
// none of the full build's own packages, and at most initPackages packages,
// initAllocs allocations and initBytes bytes in all.
func TestLeanSkillCallInitBudget(t *testing.T) {
	root := filepath.Join(t.TempDir(), "c")
	for _, args := range [][]string{{"init"}, {"new-problem", "--name", "odd", "--objective", "The sum of the first n odd numbers is n^2."}} {
		if out, err := exec.Command(bin, append(args, "--root", root)...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	recs := initTrace(t, "--root", root, "--json", "--actor", "solver", "prob-wrapup-statement", "--problem-path", "prob_odd",
		"--claim", "The sum of the first n odd numbers is n^2.", "--purpose", "The objective itself.")
	var allocs, bytes int
	for _, r := range recs {
		allocs += r.allocs
		bytes += r.bytes
		for _, p := range notInASkillCall {
			if strings.HasPrefix(r.pkg, p) {
				t.Errorf("a skill call initialises %s (%d allocations): it belongs to proofloop-full (cmd/proofloop/lean.go)", r.pkg, r.allocs)
			}
		}
	}
	t.Logf("a skill call initialises %d packages, %d allocations, %d bytes", len(recs), allocs, bytes)
	if len(recs) > initPackages || allocs > initAllocs || bytes > initBytes {
		slices.SortFunc(recs, func(a, b initRecord) int { return cmp.Compare(b.allocs, a.allocs) })
		var top strings.Builder
		for _, r := range recs[:10] {
			fmt.Fprintf(&top, "\n  %s: %d allocations, %d bytes", r.pkg, r.allocs, r.bytes)
		}
		t.Errorf("a skill call initialises %d packages (at most %d), %d allocations (at most %d), %d bytes (at most %d); the most allocating:%s",
			len(recs), initPackages, allocs, initAllocs, bytes, initBytes, top.String())
	}
}

// TestLeanHandsOff: the lean build runs report, serve and mcp as
// proofloop-full beside it: their output is the full build's.
func TestLeanHandsOff(t *testing.T) {
	root := filepath.Join(t.TempDir(), "c")
	if out, err := exec.Command(bin, "init", "--root", root).CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	full := filepath.Join(filepath.Dir(bin), "proofloop-full")
	for _, args := range [][]string{{"mcp", "--help"}, {"serve", "--help"}, {"report", "--help"}} {
		lean, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("lean %v: %v", args, err)
		}
		want, err := exec.Command(full, args...).Output()
		if err != nil {
			t.Fatalf("full %v: %v", args, err)
		}
		if !bytes.Equal(lean, want) || len(lean) == 0 {
			t.Errorf("%v: the lean build printed %d bytes, the full one %d", args, len(lean), len(want))
		}
	}
	// report's JSON result, through the hand-off: the page is written.
	out, err := exec.Command(bin, "report", "--root", root, "--json", "-o", filepath.Join(root, "..", "r.html")).Output()
	var res struct {
		OK   bool   `json:"ok"`
		Path string `json:"path"`
	}
	if err != nil || json.Unmarshal(out, &res) != nil || !res.OK {
		t.Fatalf("report --json: %v\n%s", err, out)
	}
	if _, err := os.Stat(res.Path); err != nil {
		t.Errorf("report said %s: %v", res.Path, err)
	}
}

// TestLeanWithoutFull: a full-only command of a lean binary that has no
// proofloop-full beside it is refused with exit 2, a message naming the
// missing binary and a hint to build it, and writes nothing; the lean
// commands still work.
func TestLeanWithoutFull(t *testing.T) {
	dir := t.TempDir()
	alone := filepath.Join(dir, "proofloop")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alone, data, 0o755); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "c")
	if out, err := exec.Command(alone, "init", "--root", root).CombinedOutput(); err != nil {
		t.Fatalf("init: %v\n%s", err, out)
	}
	cmd := exec.Command(alone, "report", "--root", root, "--json", "-o", filepath.Join(dir, "r.html"))
	out, err := cmd.Output()
	if code := cmd.ProcessState.ExitCode(); code != 2 {
		t.Fatalf("report without proofloop-full: exit %d (%v), want 2\n%s", code, err, out)
	}
	var res struct {
		OK      bool   `json:"ok"`
		Command string `json:"command"`
		Error   struct{ Code, Message, Hint string }
	}
	if err := json.Unmarshal(out, &res); err != nil || res.OK || res.Command != "report" || res.Error.Code != "usage" ||
		!strings.Contains(res.Error.Message, "proofloop-full is not beside") || !strings.Contains(res.Error.Hint, "make build") {
		t.Errorf("refusal: %s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.html")); !os.IsNotExist(err) {
		t.Errorf("the refused report wrote its page: %v", err)
	}
	plain := exec.Command(alone, "mcp", "--root", root)
	msg, _ := plain.CombinedOutput()
	if plain.ProcessState.ExitCode() != 2 || !strings.HasPrefix(string(msg), "proofloop mcp: mcp is a command of the full build") {
		t.Errorf("mcp without proofloop-full: exit %d\n%s", plain.ProcessState.ExitCode(), msg)
	}
	if out, err := exec.Command(alone, "status", "--root", root).CombinedOutput(); err != nil {
		t.Errorf("status in the lean build alone: %v\n%s", err, out)
	}
}
