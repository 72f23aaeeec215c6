package loop

import (
	"fmt"
	"strings"
)

// texEscape escapes LaTeX's special characters in text outside math, so
// that prose such as "n^2" or "stmt_x" compiles; math ($...$, $$...$$,
// \(...\), \[...\]) is copied untouched, byte for byte. An opener
// without its closer is prose.
func texEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if open, closer, ok := mathAt(s[i:]); ok {
			if j := strings.Index(s[i+len(open):], closer); j >= 0 {
				end := i + len(open) + j + len(closer)
				b.WriteString(s[i:end])
				i = end
				continue
			}
		}
		c := s[i]
		switch c {
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
			b.WriteByte(c)
		}
		i++
	}
	return b.String()
}

// mathAt reports whether math opens at the start of s, and its closer.
func mathAt(s string) (open, closer string, ok bool) {
	for _, m := range [][2]string{{"$$", "$$"}, {"$", "$"}, {`\(`, `\)`}, {`\[`, `\]`}} {
		if strings.HasPrefix(s, m[0]) {
			return m[0], m[1], true
		}
	}
	return "", "", false
}

func tt(id string) string { return `\texttt{` + texEscape(id) + `}` }

// texEscapeKeepRefs escapes s but its Statement~\ref{st:ID} references,
// which the export writes itself.
func texEscapeKeepRefs(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "Statement~\\ref{")
		if i < 0 {
			return b.String() + texEscape(s)
		}
		j := strings.Index(s[i:], "}")
		b.WriteString(texEscape(s[:i]) + s[i:i+j+1])
		s = s[i+j+1:]
	}
}

// TeX renders the document as a LaTeX article that a standard pdflatex
// compiles (amsmath, amssymb, amsthm).
func (d *ProofDoc) TeX() string {
	var b strings.Builder
	p := d.Problem
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("\\documentclass[11pt]{article}\n\\usepackage[utf8]{inputenc}\n\\usepackage{amsmath,amssymb,amsthm}\n")
	w("\\newtheorem{statement}{Statement}\n\\theoremstyle{remark}\n\\newtheorem*{unproved}{Unproved}\n")
	title := "Proof of " + tt(p.ID)
	if d.Draft {
		title = "Draft: " + title
	}
	w("\\title{%s}\n\\date{}\n\\begin{document}\n\\maketitle\n\n", title)
	w("\\section*{Problem}\n%s\n\n", texEscape(p.Objective))
	if len(p.Hypothesis) > 0 {
		w("\\paragraph{Hypotheses.}\n\\begin{itemize}\n")
		for _, h := range p.Hypothesis {
			w("\\item %s\n", texEscape(h))
		}
		w("\\end{itemize}\n\n")
	}
	if p.Resolution != nil {
		w("\\section*{Resolution}\n%s", texEscape(*p.Resolution))
		if p.ResolvedBy != nil && d.number(*p.ResolvedBy) > 0 {
			w(" (Statement~\\ref{%s})", label(*p.ResolvedBy))
		}
		w("\n\n")
	} else {
		w("\\section*{Resolution}\n\\textbf{[unproved: the problem is %s]}\n\n", p.Status)
	}
	if e := d.evidence(func(id string) string { return "Statement~\\ref{" + label(id) + "}" }); e != "" {
		w("\\paragraph{Evidence.}\n%s\n\n", texEscapeKeepRefs(e))
	}
	w("\\section{Statements and proofs}\n\n")
	for _, st := range d.Statements {
		if sp := st.Opens; sp != nil {
			w("\\subsection*{Preliminary sub-problem %s}\n%s\n\n", tt(sp.ID), texEscape(sp.Objective))
			if sp.Resolution != nil && sp.ResolvedBy != nil {
				w("\\noindent\\emph{Resolution:} %s (Statement~\\ref{%s})\n\n", texEscape(*sp.Resolution), label(*sp.ResolvedBy))
			}
		}
		if st.Main {
			w("\\subsection*{Proof of %s}\n\n", tt(p.ID))
		}
		w("\\begin{statement}[%s]\\label{%s}\n%s", tt(st.ID), label(st.ID), texEscape(st.Claim))
		if len(st.Premises) > 0 {
			w("\n\n\\noindent\\emph{Premises:} %s", texEscape(strings.Join(st.Premises, "; ")))
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
			w("\\noindent\\textbf{[%s]}\n", texEscape(why))
		}
		if st.Proof != nil && *st.Proof != "" {
			w("\\begin{proof}\n%s\n\\end{proof}\n\n", texEscape(*st.Proof))
		} else {
			w("\\begin{unproved}\nNo proof yet.\n\\end{unproved}\n\n")
		}
	}
	w("\\appendix\n\\section{Verification record}\n\n")
	for _, st := range d.Statements {
		w("\\subsection*{Statement~\\ref{%s} (%s)}\n", label(st.ID), tt(st.ID))
		w("Status %s, proof revision %d, %d round(s).", texEscape(string(st.Status)), st.ProofRevision, st.Round)
		if c := confirmers(st.Statement); len(c) > 0 {
			w(" Confirmed by %s.", texEscape(strings.Join(c, ", ")))
		}
		if k := kernelRecord(st.Statement); k != "" {
			w(" %s", texEscape(k))
		}
		w("\n")
		if len(st.Validate.Issues) > 0 {
			w("\\begin{itemize}\n")
			for _, is := range st.Validate.Issues {
				by := ""
				if is.Actor != nil {
					by = " by " + *is.Actor
					if is.Model != "" {
						by += " (" + is.Model + ")"
					}
				}
				w("\\item Issue %d, round %d, sentence %d (%s)%s: %s \\emph{Answered:} %s.\n", is.IssueNumber, is.Round, is.Sentence,
					texEscape(is.ErrorType), texEscape(by), texEscape(is.Explanation), texEscape(answer(st.Statement, is)))
			}
			w("\\end{itemize}\n")
		}
		w("\n")
	}
	w("\\end{document}\n")
	return b.String()
}

// Markdown renders the document as Markdown; math stays as written.
func (d *ProofDoc) Markdown() string {
	var b strings.Builder
	p := d.Problem
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	title := "Proof of `" + p.ID + "`"
	if d.Draft {
		title = "Draft: " + title
	}
	w("# %s\n\n## Problem\n\n%s\n\n", title, p.Objective)
	for _, h := range p.Hypothesis {
		w("- %s\n", h)
	}
	if len(p.Hypothesis) > 0 {
		w("\n")
	}
	w("## Resolution\n\n")
	if p.Resolution != nil {
		w("%s", *p.Resolution)
		if p.ResolvedBy != nil && d.number(*p.ResolvedBy) > 0 {
			w(" (Statement %d)", d.number(*p.ResolvedBy))
		}
		w("\n\n")
	} else {
		w("**[unproved: the problem is %s]**\n\n", p.Status)
	}
	if e := d.evidence(func(id string) string { return fmt.Sprintf("Statement %d (`%s`)", d.number(id), id) }); e != "" {
		w("%s\n\n", e)
	}
	w("## Statements and proofs\n\n")
	for i, st := range d.Statements {
		if sp := st.Opens; sp != nil {
			w("### Preliminary sub-problem `%s`\n\n%s\n\n", sp.ID, sp.Objective)
			if sp.Resolution != nil && sp.ResolvedBy != nil {
				w("*Resolution:* %s (Statement %d)\n\n", *sp.Resolution, d.number(*sp.ResolvedBy))
			}
		}
		if st.Main {
			w("### Proof of `%s`\n\n", p.ID)
		}
		w("### Statement %d (`%s`) {#%s}\n\n%s\n\n", i+1, st.ID, strings.ReplaceAll(label(st.ID), ":", "-"), st.Claim)
		if len(st.Premises) > 0 {
			w("*Premises:* %s\n\n", strings.Join(st.Premises, "; "))
		}
		if len(st.Uses) > 0 {
			var refs []string
			for _, u := range st.Uses {
				refs = append(refs, fmt.Sprintf("Statement %d (`%s`)", d.number(u), u))
			}
			w("*Uses:* %s.\n\n", strings.Join(refs, ", "))
		}
		if why := statusWord(st); why != "" {
			w("**[%s]**\n\n", why)
		}
		if st.Proof != nil && *st.Proof != "" {
			w("*Proof.* %s ∎\n\n", *st.Proof)
		} else {
			w("*No proof yet.*\n\n")
		}
	}
	w("## Appendix: verification record\n\n")
	for i, st := range d.Statements {
		w("### Statement %d (`%s`)\n\nStatus %s, proof revision %d, %d round(s).", i+1, st.ID, st.Status, st.ProofRevision, st.Round)
		if c := confirmers(st.Statement); len(c) > 0 {
			w(" Confirmed by %s.", strings.Join(c, ", "))
		}
		if k := kernelRecord(st.Statement); k != "" {
			w(" %s", k)
		}
		w("\n\n")
		for _, is := range st.Validate.Issues {
			by := ""
			if is.Actor != nil {
				by = " by " + *is.Actor
				if is.Model != "" {
					by += " (" + is.Model + ")"
				}
			}
			w("- Issue %d, round %d, sentence %d (%s)%s: %s *Answered:* %s.\n", is.IssueNumber, is.Round, is.Sentence, is.ErrorType, by, is.Explanation, answer(st.Statement, is))
		}
		if len(st.Validate.Issues) > 0 {
			w("\n")
		}
	}
	return b.String()
}
