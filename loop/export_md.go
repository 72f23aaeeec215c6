package loop

import (
	"fmt"
	"strings"

	"github.com/proofloop/proofloop/model"
)

// mdText makes agent-written text safe to place in the Markdown export:
// outside math, the characters that open raw HTML, an autolink, a link or
// an image, a code span or an entity (< > [ ] ` &, and the "://", "www."
// and "@" of GFM's bare links) become entity references, which every renderer shows as the characters themselves; a
// formula (model.MathSpans, as the splitter reads it) is copied, except
// that a < before a letter, /, ! or ? gets a space after it and so does a ]
// before ( or [: the same TeX, and neither an HTML tag nor a link. So a
// proof cannot bring <script>, onerror= or a javascript: link into the
// document. It keeps lines as they are: the caller quotes a block (mdBlock)
// or folds a line (mdLine), so that no line of it can be a heading of the
// document.
func mdText(s string) string {
	var b strings.Builder
	at := 0
	for _, m := range model.MathSpans(s) {
		mdProse(&b, s[at:m.Start])
		mdMath(&b, s[m.Start:m.End])
		at = m.End
	}
	mdProse(&b, s[at:])
	return b.String()
}

// mdEntities are the entities of mdProse. Besides the characters that
// open HTML, links, code and entities, GFM's extended autolinks make a
// link of a bare URL (https://x, www.x) or e-mail address (x@y.z,
// mailto:x): "://", "www." and "@" become entities too, so their text
// stays text in every renderer.
var mdEntities = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "[", "&#91;", "]", "&#93;", "`", "&#96;",
	"://", "&#58;//", "www.", "&#119;ww.", "WWW.", "&#87;WW.", "@", "&#64;")

func mdProse(b *strings.Builder, s string) { b.WriteString(mdEntities.Replace(s)) }

func mdMath(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		if i+1 < len(s) {
			next := s[i+1]
			tag := s[i] == '<' && (next == '/' || next == '!' || next == '?' || 'a' <= next|0x20 && next|0x20 <= 'z')
			link := s[i] == ']' && (next == '(' || next == '[')
			if tag || link {
				b.WriteByte(' ')
			}
		}
	}
}

// mdLine is agent text folded to one line and made safe, for a list item
// or after a label. It starts no line; after "- " it could still start a
// block inside the item (- # heading, - > quote, - 1. list), so a first
// character that could is an entity.
func mdLine(s string) string {
	s = mdText(model.OneLine(s))
	if s != "" && (strings.IndexByte("#>-+*=_|~:", s[0]) >= 0 || '0' <= s[0] && s[0] <= '9') {
		s = fmt.Sprintf("&#%d;", s[0]) + s[1:]
	}
	return s
}

// mdBlock is agent text as a block quote (model.Block, as the transcripts
// quote a turn's body), made safe: every line starts with ">", which no
// line the export writes for its structure does, so a proof cannot forge
// "## Statement 2" or the appendix. Inside the quote, a line that would be
// a heading (# ..., or a setext underline of = or -) or a rule (---, ***,
// ___) starts with its first character as an entity, and so is text: the
// quote keeps lists and emphasis, and no heading of the proof can pass for
// one of the document's.
func mdBlock(s string) string {
	lines := strings.Split(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(mdText(s)), "\n")
	for i, l := range lines {
		// A tab in the indentation may count for fewer columns than four
		// after the quote's "> " (" \t# x" is a heading): only spaces
		// alone make indented code for sure.
		lead := len(l) - len(strings.TrimLeft(l, " \t"))
		if lead == len(l) || lead > 3 && !strings.Contains(l[:lead], "\t") {
			continue // blank, or indented code
		}
		c := l[lead]
		rule := strings.Trim(l, " \t"+string(c)) == "" && strings.ContainsRune("-=*_", rune(c))
		if c == '#' || rule {
			lines[i] = l[:lead] + fmt.Sprintf("&#%d;", c) + l[lead+1:]
		}
	}
	return model.Block(strings.Join(lines, "\n"))
}

// Markdown renders the document as Markdown. Agent text is quoted (mdBlock)
// or kept to one line (mdLine), and escaped; math stays as written but for
// the spaces mdText adds.
func (d *ProofDoc) Markdown() string {
	var b strings.Builder
	p := d.Problem
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	title := "Proof of `" + p.ID + "`"
	if d.Draft {
		title = "Draft: " + title
	}
	w("# %s\n\n## Problem\n\n%s\n\n", title, mdBlock(p.Objective))
	for _, h := range p.Hypothesis {
		w("- %s\n", mdLine(h))
	}
	if len(p.Hypothesis) > 0 {
		w("\n")
	}
	w("## Resolution\n\n")
	if p.Resolution != nil {
		w("%s\n\n", mdBlock(*p.Resolution))
		if p.ResolvedBy != nil && d.number(*p.ResolvedBy) > 0 {
			w("By Statement %d.\n\n", d.number(*p.ResolvedBy))
		}
	} else {
		w("**[unproved: the problem is %s]**\n\n", p.Status)
	}
	if e, alone := d.evidence(); e != "" {
		w("%s", e)
		if len(alone) > 0 {
			var refs []string
			for _, id := range alone {
				refs = append(refs, fmt.Sprintf("Statement %d (`%s`)", d.number(id), id))
			}
			w(" These claims rest on the agents' word alone: %s.", strings.Join(refs, ", "))
		}
		w("\n\n")
	}
	w("## Statements and proofs\n\n")
	for i, st := range d.Statements {
		if sp := st.Opens; sp != nil {
			w("### Preliminary sub-problem `%s`\n\n%s\n\n", sp.ID, mdBlock(sp.Objective))
			if sp.Resolution != nil && sp.ResolvedBy != nil {
				w("*Resolution:* %s (Statement %d)\n\n", mdLine(*sp.Resolution), d.number(*sp.ResolvedBy))
			}
		}
		if st.Main {
			w("### Proof of `%s`\n\n", p.ID)
		}
		w("### Statement %d (`%s`) {#%s}\n\n%s\n\n", i+1, st.ID, strings.ReplaceAll(label(st.ID), ":", "-"), mdBlock(st.Claim))
		if len(st.Premises) > 0 {
			w("*Premises:* %s\n\n", mdLine(strings.Join(st.Premises, "; ")))
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
			w("*Proof.*\n\n%s\n\n∎\n\n", mdBlock(*st.Proof))
		} else {
			w("*No proof yet.*\n\n")
		}
	}
	w("## Appendix: verification record\n\n")
	for i, st := range d.Statements {
		w("### Statement %d (`%s`)\n\nStatus %s, proof revision %d, %d round(s).", i+1, st.ID, st.Status, st.ProofRevision, st.Round)
		if c := confirmers(st.Statement); len(c) > 0 {
			w(" Confirmed by %s.", mdLine(strings.Join(c, ", ")))
		}
		if k := kernelRecord(st.Statement); k != "" {
			w(" %s", mdLine(k))
		}
		w("\n\n")
		for _, is := range st.Validate.Issues {
			by := issueBy(is)
			if by != "" {
				by = " " + mdLine(by)
			}
			w("- Issue %d, round %d, sentence %d (%s)%s: %s *Answered:* %s.\n", is.IssueNumber, is.Round, is.Sentence,
				mdLine(is.ErrorType), by, mdLine(is.Explanation), mdLine(answer(st.Statement, is)))
		}
		if len(st.Validate.Issues) > 0 {
			w("\n")
		}
	}
	if d.Effort != nil {
		w("## Appendix: effort\n\n")
		for _, l := range d.Effort.Lines() {
			w("- %s\n", mdLine(l))
		}
	}
	return b.String()
}

// issueBy says who recorded an issue: " by bob (model)", or "".
func issueBy(is model.Issue) string {
	if is.Actor == nil {
		return ""
	}
	by := " by " + *is.Actor
	if is.Model != "" {
		by += " (" + is.Model + ")"
	}
	return by
}
