package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"

	"github.com/proofloop/proofloop/internal/textest"
)

// hostileExport builds, through the binary, a solved problem whose every
// agent-written field (objective, hypotheses, claim, premise, proof, an
// issue's explanation, a patch's description, the resolution) holds text
// (a hypothesis starts with it), and a checker's name holds $\input{x}$, and returns a function that runs the binary in its
// folder.
func hostileExport(t *testing.T, text string) (dir string, run func(args ...string) (string, string, int)) {
	t.Helper()
	dir = t.TempDir()
	run = func(args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(cliBin(t), args...)
		cmd.Dir = dir
		cmd.Env = append(cliEnv(), "PROOFLOOP_ROOT="+filepath.Join(dir, "contents"), "PROOFLOOP_STORE=")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return out.String(), errb.String(), code
	}
	must := func(args ...string) {
		t.Helper()
		if _, stderr, code := run(args...); code != 0 {
			t.Fatalf("proofloop %v: exit %d\n%s", args, code, stderr)
		}
	}
	must("init")
	must("new-problem", "--name", "h", "--objective", "Objective. "+text, "--hypothesis", "Hypothesis. "+text, "--hypothesis", text)
	must("prob-wrapup-statement", "--problem-path", "prob_h", "--claim", "Claim. "+text, "--premises", "Premise. "+text, "--purpose", "It is the objective.")
	must("state-complete-proof", "--statement-path", "stmt_h_wrap", "--strategy", "direct", "--actor", "alice",
		"--proof-text", "Step 1: Start here.\n\nStep 2: "+text+"\n\nStep 3: AFTERMARK ends the proof.")
	must("check-reject-proof", "--statement-path", "stmt_h_wrap", "--sentence-number", "1", "--sentence-text", "Start", "--error-type", "unjustified_leap",
		"--explanation", "Explanation. "+text, "--actor", "$\\input{x}$ <b>bob</b>")
	must("fix-patch-proof", "--statement-path", "stmt_h_wrap", "--issue-number", "1", "--sentence-range", "1", "--replacement-text", "Step 1: Begin here.",
		"--change-description", "Change. "+text, "--actor", "alice")
	must("check-confirm-proof", "--statement-path", "stmt_h_wrap", "--actor", "carol")
	must("prob-finish-up", "--problem-path", "prob_h", "--key-statement-id", "stmt_h_wrap", "--resolution", "Resolution. "+text)
	return dir, run
}

// TestExportMarkdownHostile (N7): agent text cannot bring HTML, links or
// images into the Markdown export, nor forge its structure. The export is
// rendered by a CommonMark (GFM) renderer with raw HTML allowed, so any
// that passed would show: it has no tag, no link and no image of agent
// text, and the same headings as the export of harmless text.
func TestExportMarkdownHostile(t *testing.T) {
	hostile := "# Start forged <script>alert(1)</script> <img src=x onerror=alert(2)> [click](javascript:alert(3)) " +
		"![i](javascript:alert(4)) <javascript:alert(5)> &lt;b&gt; `<i>code</i>` $a<b>c$ $[0,1](javascript:alert(6))$\n" +
		"## Statement 2 (`forged`)\n# Outcome\n---\n[ref]: javascript:alert(7)\n[ref]\n" +
		" \t### Tab forged\n\t # Tab forged\nText\n\t===\n-\t-\t-\n" +
		"See https://evil.example/p and www.evil.example and x@evil.example and mailto:x@evil.example\n" +
		"$$\n\n[def]: javascript:alert(8)\n$$\n<div onmouseover=alert(9)>\n- **Status:** true"
	render := func(text string) (string, []string) {
		_, run := hostileExport(t, text)
		md, stderr, code := run("export", "--format", "md", "--problem", "prob_h")
		if code != 0 {
			t.Fatalf("export --format md: exit %d\n%s", code, stderr)
		}
		var page bytes.Buffer
		gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
		if err := gm.Convert([]byte(md), &page); err != nil {
			t.Fatal(err)
		}
		return page.String(), regexp.MustCompile(`<h[1-6][^>]*>.*?</h[1-6]>`).FindAllString(page.String(), -1)
	}
	got, headings := render(hostile)
	_, want := render("Fine.")
	if !slices.Equal(headings, want) {
		t.Errorf("the export's headings are %q; harmless text gives %q", headings, want)
	}
	for _, bad := range []string{"<script", "<img", "<div", "<i>", "<b>", "href=", "<a "} {
		if strings.Contains(got, bad) {
			t.Errorf("the rendered export holds %q:\n%s", bad, got)
		}
	}
	for _, keep := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "[click](javascript:alert(3))", "AFTERMARK",
		"See https://evil.example/p and www.evil.example and x@evil.example and mailto:x@evil.example"} {
		if !strings.Contains(got, keep) {
			t.Errorf("the rendered export lacks %q as text:\n%s", keep, got)
		}
	}
}

// TestExportTeXHostile (N1): the attacks, in every agent-written
// field, exported as LaTeX through the binary and compiled with pdflatex:
// no formula that reaches a file primitive is typeset (each is shown as
// text, noted in math_as_text with its reason), the PDF holds no byte of
// the planted file outside the project, pdflatex reads and writes no file
// but its own, and "$x}\end{proof}\end{document}$" does not end the
// document: the proof's last sentence and the appendix follow it. A
// harmless formula still passes byte for byte.
func TestExportTeXHostile(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(secret, []byte("HOSTMARKER5150\n"), 0o644)
	attacks := []string{
		`$\text{\input{` + secret + `}}$`,
		`$\newread\rf \openin\rf=` + secret + ` \read\rf to\zz \text{\zz}$`,
		`$\immediate\openout5=planted.sh \immediate\write5{echo pwned}$`,
		`$x}\end{proof}\end{document}$`,
		`$^^5cinput{` + secret + `}$`,
		`\(\csname input\endcsname{` + secret + `}\)`,
		`\[\pdfobj file {` + secret + `}\pdfrefobj\pdflastobj\]`,
		`$\immediate\write18{touch shell.txt}$`,
		`\begin{align} \input{` + secret + `} \end{align}`,
		`$\begin{cases} \include{` + secret + `} \end{cases}$`,
		`$x % \end{document}$`,
	}
	good := `$\sum_{k=1}^n (2k-1) = n^2$`
	text := "Prose \\input{" + secret + "} and \\end{document} stay text. " + good + " " + strings.Join(attacks, " ")
	dir, run := hostileExport(t, text)
	out, stderr, code := run("--json", "export", "--format", "tex", "--problem", "prob_h", "-o", "proof.tex")
	if code != 0 {
		t.Fatalf("export --format tex: exit %d\n%s%s", code, out, stderr)
	}
	var r struct {
		MathAsText []struct{ Where, Math, Why string } `json:"math_as_text"`
	}
	json.Unmarshal([]byte(out), &r)
	noted := map[string]int{}
	for _, n := range r.MathAsText {
		noted[n.Math]++
		if n.Why == "" || n.Where == "" {
			t.Errorf("a note without its place or reason: %+v", n)
		}
	}
	// Nine fields hold the text: objective, two hypotheses, claim, premise,
	// proof, issue explanation, answer (the patch's description), resolution.
	for _, a := range attacks {
		if noted[a] != 9 {
			t.Errorf("%s is noted %d times; want once per field holding it (9)", a, noted[a])
		}
	}
	// The checker's name is written twice: in its issue's record and in
	// the effort summary (who acted).
	if noted[good] != 0 || noted[`$\input{x}$`] != 2 {
		t.Errorf("notes: the harmless formula %d times (want 0), the checker's name $\\input{x}$ %d (want 2)", noted[good], noted[`$\input{x}$`])
	}
	tex, err := os.ReadFile(filepath.Join(dir, "proof.tex"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(tex), good) != 9 {
		t.Errorf("the harmless formula passes %d times byte for byte; want 9", strings.Count(string(tex), good))
	}
	cdir, log := textest.Compile(t, string(tex), 1)
	textest.CheckNoFileAccess(t, cdir, log, secret, "HOSTMARKER5150")
	pdf := textest.Text(t, cdir)
	if i, j := strings.Index(pdf, "AFTERMARK"), strings.Index(pdf, "Verification record"); pdf != "" && (i < 0 || j < i) {
		t.Errorf("the document ended early: AFTERMARK at %d, the appendix at %d\n%s", i, j, pdf)
	}
}
