package report

import (
	"html/template"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// mathSpan is one TeX formula of an agent's text, without its delimiters.
type mathSpan struct {
	TeX     string
	Display bool
}

// The placeholders that stand for formulas while goldmark renders the
// Markdown around them: private-use characters, which Markdown gives no
// meaning and HTML escaping leaves alone, around the formula's index. A
// formula must not pass through goldmark, which would read its _ and * as
// emphasis and its \\ as escapes.
const (
	phOpen  = "\uE000"
	phClose = "\uE001"
)

var placeholderRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(phOpen + `([0-9]+)` + phClose) })

// extractMath replaces each formula of s ($...$, $$...$$, \(...\), \[...\])
// with a placeholder and returns the formulas. An unclosed delimiter and an
// escaped dollar (\$) are left as text. The delimiters are those of the
// sentence splitter in model, so a formula never spans two sentences.
func extractMath(s string) (string, []mathSpan) {
	s = strings.NewReplacer(phOpen, "", phClose, "").Replace(s) // an agent's own placeholders
	var b strings.Builder
	var spans []mathSpan
	i := 0
	for i < len(s) {
		open, closer, display := "", "", false
		switch {
		case strings.HasPrefix(s[i:], `\$`):
			b.WriteString(`\$`)
			i += 2
			continue
		case strings.HasPrefix(s[i:], `$$`):
			open, closer, display = "$$", "$$", true
		case s[i] == '$':
			open, closer = "$", "$"
		case strings.HasPrefix(s[i:], `\(`):
			open, closer = `\(`, `\)`
		case strings.HasPrefix(s[i:], `\[`):
			open, closer, display = `\[`, `\]`, true
		}
		if open == "" {
			b.WriteByte(s[i])
			i++
			continue
		}
		end := findCloser(s, i+len(open), closer)
		if end < 0 || strings.TrimSpace(s[i+len(open):end]) == "" {
			b.WriteString(open)
			i += len(open)
			continue
		}
		b.WriteString(phOpen + strconv.Itoa(len(spans)) + phClose)
		spans = append(spans, mathSpan{TeX: s[i+len(open) : end], Display: display})
		i = end + len(closer)
	}
	return b.String(), spans
}

// findCloser is the offset of closer in s from from, skipping escaped
// characters (so \$ inside a formula does not end it); -1 if none.
func findCloser(s string, from int, closer string) int {
	for j := from; j < len(s); j++ {
		if strings.HasPrefix(s[j:], closer) {
			return j
		}
		if s[j] == '\\' {
			j++
		}
	}
	return -1
}

// restoreMath puts each formula back into rendered HTML as escaped TeX in a
// span that the page's script hands to KaTeX. Without the script (or before
// it ran) the reader sees the TeX source.
func restoreMath(h string, spans []mathSpan) string {
	return placeholderRe().ReplaceAllStringFunc(h, func(m string) string {
		n, err := strconv.Atoi(m[len(phOpen) : len(m)-len(phClose)])
		if err != nil || n >= len(spans) {
			return "" // cannot happen: extractMath removed the agents' own
		}
		d := "0"
		if spans[n].Display {
			d = "1"
		}
		return `<span class="math" data-display="` + d + `">` + template.HTMLEscapeString(spans[n].TeX) + `</span>`
	})
}
