package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExportProofCompiles drives the example project to solved through the
// real binary, exports its proof as LaTeX, and checks that every statement
// appears once, after the statements its proof uses (each \ref in its
// Uses line points to a label set earlier), that math passes through
// untouched, and that a standard pdflatex compiles it; page 1 is rendered
// with pdftoppm. Without pdflatex the compile is skipped, loudly.
func TestExportProofCompiles(t *testing.T) {
	bin := cliBin(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "ex")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PROOFLOOP_ROOT="+root, "PROOFLOOP_STORE=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("proofloop %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("init", "--example", root)
	run("run", "-j", "2")
	tex := run("export", "--format", "tex", "--problem", "prob_odd_squares")

	labels := regexp.MustCompile(`\\label\{st:([a-z0-9_]+)\}`).FindAllStringSubmatchIndex(tex, -1)
	if len(labels) != 5 {
		t.Fatalf("%d statements exported, want the 5 the solved problem rests on:\n%s", len(labels), tex)
	}
	at := map[string]int{}
	for _, m := range labels {
		id := tex[m[2]:m[3]]
		if _, dup := at[id]; dup {
			t.Errorf("%s is exported twice", id)
		}
		at[id] = m[0]
	}
	if _, ok := at["stmt_odd_squares_wrap_sub3"]; ok {
		t.Errorf("the refuted lemma stmt_odd_squares_wrap_sub3 is exported as a step")
	}
	uses := regexp.MustCompile(`(?m)^\\noindent\\emph\{Uses:\} (.*)$`)
	for _, m := range uses.FindAllStringSubmatchIndex(tex, -1) {
		for _, r := range regexp.MustCompile(`\\ref\{st:([a-z0-9_]+)\}`).FindAllStringSubmatch(tex[m[2]:m[3]], -1) {
			if pos, ok := at[r[1]]; !ok || pos > m[0] {
				t.Errorf("a statement uses %s before it is stated", r[1])
			}
		}
	}
	if at["stmt_odd_squares_wrap_sub2_fix1"] > at["stmt_odd_squares_wrap_sub2"] || at["stmt_odd_squares_wrap_sub2"] > at["stmt_odd_squares_wrap"] {
		t.Errorf("statements out of dependency order: %v", at)
	}
	// The preliminary sub-problem's statement comes under its objective,
	// and the problem's own proof under its heading after it.
	intro := strings.Index(tex, `\subsection*{Preliminary sub-problem \texttt{prob\_odd\_squares\_sub1}}`)
	main := strings.Index(tex, `\subsection*{Proof of \texttt{prob\_odd\_squares}}`)
	if first := at["stmt_odd_squares_sub1_wrap"]; intro < 0 || intro > first || main < first || main > at["stmt_odd_squares_wrap_sub1"] {
		t.Errorf("the preliminary sub-problem is introduced at %d and the problem's proof at %d; want before %d (stmt_odd_squares_sub1_wrap) and between it and the rest %v", intro, main, first, at)
	}
	// Math passes through byte for byte.
	if !strings.Contains(tex, `$(n+1)^2 = (n+1)(n+1) = n^2 + n + n + 1$`) || !strings.Contains(tex, `$1 + 3 + \dots + (2n-1) = n^2$`) {
		t.Errorf("the proofs' math was changed:\n%s", tex)
	}
	if !strings.Contains(tex, `\section{Verification record}`) || !strings.Contains(tex, "Issue 1, round 1") {
		t.Errorf("no appendix with the issues:\n%s", tex)
	}

	pdflatex, err := exec.LookPath("pdflatex")
	if err != nil {
		t.Skip("!!! pdflatex is not installed (make texlive installs it): the exported LaTeX was NOT compiled")
	}
	if err := os.WriteFile(filepath.Join(dir, "proof.tex"), []byte(tex), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 { // twice, for the \ref numbers
		cmd := exec.Command(pdflatex, "-interaction=nonstopmode", "-halt-on-error", "proof.tex")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pdflatex: %v\n%s", err, out)
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "proof.log"))
	if strings.Contains(string(log), "undefined references") {
		t.Errorf("the PDF has undefined references")
	}
	pdftoppm, err := exec.LookPath("pdftoppm")
	if err != nil {
		t.Skip("!!! pdftoppm is not installed (poppler-utils): page 1 was NOT rendered")
	}
	cmd := exec.Command(pdftoppm, "-png", "-r", "60", "-f", "1", "-l", "1", "proof.pdf", "page")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, out)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "page*.png"))
	if len(pngs) != 1 {
		t.Fatalf("pdftoppm wrote %v, want page 1", pngs)
	}
	if fi, err := os.Stat(pngs[0]); err != nil || fi.Size() < 5000 {
		t.Errorf("page 1 is empty: %v %v", fi, err)
	}
}
