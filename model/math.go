package model

// MathSpan is one formula of a text: text[Start:End], its delimiters
// included, Open and Close being those delimiters ("$", "\\[", or
// "\\begin{align}" and "\\end{align}").
type MathSpan struct {
	Start, End  int
	Open, Close string
}

// Body is the formula without its delimiters.
func (m MathSpan) Body(text string) string { return text[m.Start+len(m.Open) : m.End-len(m.Close)] }

// MathSpans finds the formulas of text as SplitSentences reads them: the
// same delimiters ($..$, $$..$$, \(..\), \[..\] and the display
// environments), the same escapes (\$ and \\ are no delimiters), and no
// formula across a blank line, so one stray '$' cannot swallow the rest.
// The export reads math with it, so a formula is the one a checker cites.
func MathSpans(text string) []MathSpan {
	s := splitter{text: text, noClose: map[string]int{}}
	var out []MathSpan
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\\' && i+1 < len(text) && (text[i+1] == '\\' || text[i+1] == '$'):
			i += 2
			continue
		case c != '$' && c != '\\':
			i++
			continue
		}
		open, closer, _ := opener(text[i:])
		if open == "" {
			i++
			continue
		}
		j := s.find(i+len(open), closer)
		if j < 0 {
			i += len(open) // unclosed: the delimiter is text
			continue
		}
		out = append(out, MathSpan{Start: i, End: j + len(closer), Open: open, Close: closer})
		i = j + len(closer)
	}
	return out
}
