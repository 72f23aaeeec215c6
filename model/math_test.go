package model

import (
	"reflect"
	"testing"
)

// TestMathSpans: the formulas the export reads are the splitter's, with
// its escapes and its blank-line rule.
func TestMathSpans(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{`Let $x$ and $$y$$ be \(z\) or \[w\].`, []string{`$x$`, `$$y$$`, `\(z\)`, `\[w\]`}},
		{`It costs \$5 and $a \$ b$.`, []string{`$a \$ b$`}},
		{"A stray $ here.\n\nThen $x$.", []string{`$x$`}},
		{`\begin{align} a &= b \\ c &= d \end{align} and \begin{proof} no \end{proof}`, []string{`\begin{align} a &= b \\ c &= d \end{align}`}},
		{`Unclosed \( forever`, nil},
		{`$x}\end{proof}\end{document}$`, []string{`$x}\end{proof}\end{document}$`}},
	} {
		var got []string
		for _, m := range MathSpans(c.text) {
			got = append(got, c.text[m.Start:m.End])
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("MathSpans(%q) = %q; want %q", c.text, got, c.want)
		}
	}
	m := MathSpans(`so \[ a + b \] holds`)[0]
	if got := m.Body(`so \[ a + b \] holds`); got != " a + b " {
		t.Errorf("Body = %q; want %q", got, " a + b ")
	}
}
