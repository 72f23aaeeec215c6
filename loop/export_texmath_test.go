package loop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proofloop/proofloop/internal/textest"
	"github.com/proofloop/proofloop/model"
)

// TestCheckMath: what a formula may hold to pass to TeX, and what makes it
// text (N1). Each refusal names its reason.
func TestCheckMath(t *testing.T) {
	for _, c := range []struct{ body, env, why string }{
		{`\sum_{k=1}^n (2k-1) = n^2`, "", ""},
		{`\frac{a}{b} \le \sqrt[3]{x} \quad \text{for all } x \in \mathbb{R}`, "", ""},
		{`\begin{pmatrix} 1 & 0 \\ 0 & 1 \end{pmatrix}`, "", ""},
		{` a &= b \\ c &= d `, "align", ""},
		{`\left\{ x \,\middle|\, x > 0 \right\}`, "", ""},
		{`\text{\input{/etc/passwd}}`, "", `\input is not a math command`},
		{`\newread\rf \openin\rf=/etc/passwd`, "", `\newread is not a math command`},
		{`\immediate\openout5=planted.sh`, "", `\immediate is not`},
		{`x}\end{proof}\end{document}`, "", "a } closes a group"},
		{`^^5cinput{x}`, "", "^^"},
		{`\csname input\endcsname`, "", `\csname is not`},
		{`\def\x{y}`, "", `\def is not`},
		{"x % comment", "", "% starts a TeX comment"},
		{`x \`, "", "a backslash ends the formula"},
		{`\begin{document}`, "", `\begin{document} is not a math environment`},
		{`\begin{cases} x \end{pmatrix}`, "", `\end{pmatrix} closes no environment`},
		{`\begin{cases} x`, "", `\begin{cases} is not closed`},
		{`{x`, "", "a { is not closed"},
		{`a & b`, "", "& separates cells only inside an alignment"},
		{`#1`, "", "# is TeX's parameter"},
		{"a\x00b", "", "control character"},
		{`\@input`, "", `\@ is not`},
		{`\é`, "", `is not a math command`},
	} {
		got := checkMath(c.body, c.env)
		if c.why == "" && got != "" || c.why != "" && !strings.Contains(got, c.why) {
			t.Errorf("checkMath(%q, %q) = %q; want %q", c.body, c.env, got, c.why)
		}
	}
}

// texPreamble is the export's preamble, as TeX writes it.
func texPreamble() string {
	tex, _ := (&ProofDoc{Problem: exportProblem()}).TeX()
	return tex[:strings.Index(tex, `\title{`)]
}

// TestMathCommandsCompile: every command of mathCommands and every
// environment of mathEnvs compiles with pdflatex under the export's
// preamble, its wall included: the allow-list names only what a standard
// installation defines, so a formula that passes the check compiles.
func TestMathCommandsCompile(t *testing.T) {
	c := mathCommands
	var b strings.Builder
	b.WriteString(texPreamble() + "\\begin{document}\n")
	line := func(f string) { b.WriteString(f + "\n\n") }
	for _, s := range c.symbols {
		line(`$a \` + s + ` b$`)
	}
	line(`$\sum\limits_{i} \int\nolimits_0^1 a \not= b$`)
	for _, d := range c.delimiters {
		switch d {
		case "left", "right", "middle":
		default:
			line(`$\` + d + `( x \` + d + `)$`)
		}
	}
	line(`$\left( x \middle| y \right)$`)
	for _, s := range c.oneArg {
		if s == "tag" {
			line(`\begin{equation} x \tag{1} \end{equation}`)
			continue
		}
		line(`$\` + s + `{x}$`)
	}
	for _, s := range c.twoArgs {
		line(`$\` + s + `{x}{y}$`)
	}
	for _, e := range mathEnvs {
		args := ""
		switch e {
		case "array":
			args = "{cc}"
		case "alignedat":
			args = "{2}"
		}
		body := ` a & b \\ c & d `
		if !alignEnvs[e] {
			body = ` a \\ c `
		}
		f := `\begin{` + e + `}` + args + body + `\end{` + e + `}`
		if e == "split" { // display math only
			line(`\begin{equation}` + f + `\end{equation}`)
			continue
		}
		line(`$` + f + `$`)
	}
	b.WriteString("\\end{document}\n")
	_, log := textest.Compile(t, b.String(), 1)
	if strings.Contains(log, "\n! ") {
		t.Errorf("a math command of the allow-list does not compile:\n%s", log[strings.Index(log, "\n! "):])
	}
}

// TestTeXWallStopsFileAccess: the preamble's second wall alone, as if a
// formula had passed the check by mistake (N1): the attacks of the issue,
// written straight into the body, read no host file and write none. The
// planted file holds a marker that must not reach the PDF, pdflatex's
// record of the files it opened (-recorder) names no file outside its
// installation but its own, and the folder gains only pdflatex's outputs.
func TestTeXWallStopsFileAccess(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(secret, []byte("WALLMARKER7781\n"), 0o644)
	body := strings.NewReplacer("SECRET", secret).Replace(`
A \input{SECRET} B \InputIfFileExists{SECRET}{}{} \include{SECRET}
\newread\rf \openin\rf=SECRET \read\rf to\zz \readline\rf to\zz
\immediate\openout5=planted.sh \immediate\write5{pwned}\immediate\closeout5
\pdfobj file {SECRET}\pdfrefobj\pdflastobj \pdfprimitive\input SECRET
\pdfximage{SECRET} \special{ps: (SECRET) run} \scantokens{\input SECRET}
`)
	dir, log := textest.Compile(t, texPreamble()+"\\begin{document}\n"+body+"\n\\end{document}\n", 1)
	textest.CheckNoFileAccess(t, dir, log, secret, "WALLMARKER7781")
}

func exportProblem() *model.Problem { return &model.Problem{ID: "prob_x", Objective: "Show it."} }
