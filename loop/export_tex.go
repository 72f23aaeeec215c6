package loop

import (
	"fmt"
	"strings"

	"github.com/proofloop/proofloop/model"
)

// MathNote is a formula the LaTeX export shows as text instead of
// typesetting it, and why (checkMath): it holds what must not reach TeX.
type MathNote struct {
	Where string `json:"where"` // "stmt_x proof", "prob_x objective"
	Math  string `json:"math"`
	Why   string `json:"why"`
}

// texWriter escapes agent text for the LaTeX export and keeps the notes
// of the formulas it showed as text.
type texWriter struct {
	notes []MathNote
}

// esc makes agent text (of the field where) LaTeX: prose has TeX's special
// characters escaped, so that "n^2" or "stmt_x" compiles and no backslash,
// brace or other special of it reaches TeX as code; a formula
// (model.MathSpans, as the splitter reads it) that checkMath passes is
// copied byte for byte; one that fails is shown as text in typewriter
// type, with a footnote saying why, and noted.
func (tw *texWriter) esc(where, s string) string {
	var b strings.Builder
	at := 0
	for _, m := range model.MathSpans(s) {
		texProse(&b, s[at:m.Start])
		at = m.End
		env := ""
		if strings.HasPrefix(m.Open, `\begin{`) {
			env = strings.TrimSuffix(strings.TrimPrefix(m.Open, `\begin{`), "}")
		}
		why := checkMath(m.Body(s), env)
		if why == "" {
			b.WriteString(s[m.Start:m.End])
			continue
		}
		tw.notes = append(tw.notes, MathNote{Where: where, Math: s[m.Start:m.End], Why: why})
		b.WriteString(`\texttt{`)
		texProse(&b, s[m.Start:m.End])
		b.WriteString(`}\footnote{Shown as text, not typeset: `)
		texProse(&b, why)
		b.WriteString(`.}`)
	}
	texProse(&b, s[at:])
	return b.String()
}

// texProse writes text outside math with LaTeX's special characters
// escaped; a control character shows as TeX's ^^ notation, as text.
func texProse(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteString(`\textbackslash{}`)
		case '{', '}', '_', '%', '&', '#', '$':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '^':
			b.WriteString(`\^{}`)
		case '~':
			b.WriteString(`\~{}`)
		case '<', '>':
			b.WriteString(`\ensuremath{` + string(c) + `}`)
		default:
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
				fmt.Fprintf(b, `\^{}\^{}%02x`, c)
				continue
			}
			b.WriteByte(c)
		}
	}
}

// texPlain escapes text the export writes itself around agent text (an
// id, a status): it holds no math.
func texPlain(s string) string {
	var b strings.Builder
	texProse(&b, s)
	return b.String()
}

func tt(id string) string { return `\texttt{` + texPlain(id) + `}` }

// texWall is the preamble's second wall, behind checkMath: at the start of
// the document (after LaTeX has read and opened its .aux), the primitives
// and commands that read or write files, or reach the PDF's raw objects,
// become \relax, so that even a formula the check let through by mistake
// could read no host file and write none. LaTeX loads a font's shapes the
// first time it is used, through \input: the fonts the export can use
// (amssymb's, \mathfrak) are loaded first. \write is left to LaTeX, which
// writes \label's to the .aux with it; without \openout no other file can
// be opened for it, and \write18 (the shell) is pdflatex's restricted
// shell escape unless the user compiles with -shell-escape.
const texWall = `\AtBeginDocument{%
  \sbox0{$\mathbb{A}\mathfrak{A}\blacksquare\mathcal{A}\boldsymbol{\alpha}$}%
  \let\input\relax\let\include\relax\let\includeonly\relax\let\InputIfFileExists\relax
  \let\openin\relax\let\read\relax\let\readline\relax\let\openout\relax
  \let\scantokens\relax\let\pdfprimitive\relax\let\primitive\relax
  \let\pdfobj\relax\let\pdfrefobj\relax\let\pdffiledump\relax\let\pdffilesize\relax
  \let\pdffilemoddate\relax\let\pdfmdfivesum\relax\let\pdfximage\relax\let\pdfrefximage\relax
  \let\pdfliteral\relax\let\pdfannot\relax\let\pdfstartlink\relax\let\special\relax}
`

// TeX renders the document as a LaTeX article that a standard pdflatex
// compiles (amsmath, amssymb, amsthm), and the notes of the formulas it
// shows as text (esc).
func (d *ProofDoc) TeX() (string, []MathNote) {
	var b strings.Builder
	tw := &texWriter{}
	p := d.Problem
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("\\documentclass[11pt]{article}\n\\usepackage[utf8]{inputenc}\n\\usepackage{amsmath,amssymb,amsthm}\n")
	w("\\newtheorem{statement}{Statement}\n\\theoremstyle{remark}\n\\newtheorem*{unproved}{Unproved}\n")
	w("%s", texWall)
	title := "Proof of " + tt(p.ID)
	if d.Draft {
		title = "Draft: " + title
	}
	w("\\title{%s}\n\\date{}\n\\begin{document}\n\\maketitle\n\n", title)
	w("\\section*{Problem}\n%s\n\n", tw.esc(p.ID+" objective", p.Objective))
	if len(p.Hypothesis) > 0 {
		w("\\paragraph{Hypotheses.}\n\\begin{itemize}\n")
		for i, h := range p.Hypothesis {
			w("\\item %s\n", tw.esc(fmt.Sprintf("%s hypothesis %d", p.ID, i+1), h))
		}
		w("\\end{itemize}\n\n")
	}
	if p.Resolution != nil {
		w("\\section*{Resolution}\n%s", tw.esc(p.ID+" resolution", *p.Resolution))
		if p.ResolvedBy != nil && d.number(*p.ResolvedBy) > 0 {
			w(" (Statement~\\ref{%s})", label(*p.ResolvedBy))
		}
		w("\n\n")
	} else {
		w("\\section*{Resolution}\n\\textbf{[unproved: the problem is %s]}\n\n", texPlain(string(p.Status)))
	}
	w("\\section{Statements and proofs}\n\n")
	for _, st := range d.Statements {
		d.texStatement(&b, tw, st)
	}
	w("\\appendix\n\\section{Verification record}\n\n")
	for _, st := range d.Statements {
		w("\\subsection*{Statement~\\ref{%s} (%s)}\n", label(st.ID), tt(st.ID))
		w("Status %s, proof revision %d, %d round(s).", texPlain(string(st.Status)), st.ProofRevision, st.Round)
		if c := confirmers(st.Statement); len(c) > 0 {
			w(" Confirmed by %s.", tw.esc(st.ID+" confirmers", strings.Join(c, ", ")))
		}
		w("\n")
		if len(st.Validate.Issues) > 0 {
			w("\\begin{itemize}\n")
			for _, is := range st.Validate.Issues {
				where := fmt.Sprintf("%s issue %d", st.ID, is.IssueNumber)
				w("\\item Issue %d, round %d, sentence %d (%s)%s: %s \\emph{Answered:} %s.\n", is.IssueNumber, is.Round, is.Sentence,
					tw.esc(where, is.ErrorType), tw.esc(where, issueBy(is)), tw.esc(where, is.Explanation), tw.esc(where, answer(st.Statement, is)))
			}
			w("\\end{itemize}\n")
		}
		w("\n")
	}
	if d.Effort != nil {
		w("\\section{Effort}\n\\begin{itemize}\n")
		for i, l := range d.Effort.Lines() {
			w("\\item %s\n", tw.esc(fmt.Sprintf("effort line %d", i+1), l))
		}
		w("\\end{itemize}\n\n")
	}
	w("\\end{document}\n")
	return b.String(), tw.notes
}

// texStatement writes one statement of the export: the sub-problem it
// opens, its claim and premises, what it uses, and its proof.
func (d *ProofDoc) texStatement(b *strings.Builder, tw *texWriter, st ExportedStatement) {
	w := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	if sp := st.Opens; sp != nil {
		w("\\subsection*{Preliminary sub-problem %s}\n%s\n\n", tt(sp.ID), tw.esc(sp.ID+" objective", sp.Objective))
		if sp.Resolution != nil && sp.ResolvedBy != nil {
			w("\\noindent\\emph{Resolution:} %s (Statement~\\ref{%s})\n\n", tw.esc(sp.ID+" resolution", *sp.Resolution), label(*sp.ResolvedBy))
		}
	}
	if st.Main {
		w("\\subsection*{Proof of %s}\n\n", tt(d.Problem.ID))
	}
	w("\\begin{statement}[%s]\\label{%s}\n%s", tt(st.ID), label(st.ID), tw.esc(st.ID+" claim", st.Claim))
	if len(st.Premises) > 0 {
		w("\n\n\\noindent\\emph{Premises:} %s", tw.esc(st.ID+" premises", strings.Join(st.Premises, "; ")))
	}
	w("\n\\end{statement}\n")
	if len(st.Uses) > 0 {
		var refs []string
		for _, u := range st.Uses {
			refs = append(refs, "Statement~\\ref{"+label(u)+"}")
		}
		w("\\noindent\\emph{Uses:} %s.\n", strings.Join(refs, ", "))
	}
	if why := statusWord(st); why != "" {
		w("\\noindent\\textbf{[%s]}\n", texPlain(why))
	}
	if st.Proof != nil && *st.Proof != "" {
		w("\\begin{proof}\n%s\n\\end{proof}\n\n", tw.esc(st.ID+" proof", *st.Proof))
	} else {
		w("\\begin{unproved}\nNo proof yet.\n\\end{unproved}\n\n")
	}
}
