package model

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

var splitTests = []struct {
	name string
	in   string
	want []string
}{
	{"inline math", "Let $x > 0$. Then $x^2 > 0$.",
		[]string{"Let $x > 0$.", "Then $x^2 > 0$."}},
	{"period inside inline math", "Suppose $a = 1.5$ and $b = \\frac{1}{2}. C$ hold. Then we are done.",
		[]string{"Suppose $a = 1.5$ and $b = \\frac{1}{2}. C$ hold.", "Then we are done."}},
	{"inline math across a line break", "Let $a +\nb = c. D$ be given. Fine.",
		[]string{"Let $a +\nb = c. D$ be given.", "Fine."}},
	{"paren math", "By \\(a. B\\) we get the bound. Done.",
		[]string{"By \\(a. B\\) we get the bound.", "Done."}},
	{"display dollars end a sentence", "We compute\n$$\\sum_{k=1}^n k = \\frac{n(n+1)}{2}.$$\nHence the claim holds.",
		[]string{"We compute\n$$\\sum_{k=1}^n k = \\frac{n(n+1)}{2}.$$", "Hence the claim holds."}},
	{"display brackets continued in lowercase", "Then\n\\[ f(x) = x. \\]\nwhere $x \\in A$. So $f$ is the identity.",
		[]string{"Then\n\\[ f(x) = x. \\]\nwhere $x \\in A$.", "So $f$ is the identity."}},
	{"display question", "Is it true that $$\\sum a_n < \\infty?$$ Yes.",
		[]string{"Is it true that $$\\sum a_n < \\infty?$$", "Yes."}},
	{"display mid sentence", "We get $$a = b,$$ which is what we want. So done.",
		[]string{"We get $$a = b,$$ which is what we want.", "So done."}},
	{"display at the end", "Finally\n\\[ a = b. \\]",
		[]string{"Finally\n\\[ a = b. \\]"}},
	{"align environment", "We have\n\\begin{align*}\na &= b. \\\\\nc &= d.\n\\end{align*}\nThus $a = b$.",
		[]string{"We have\n\\begin{align*}\na &= b. \\\\\nc &= d.\n\\end{align*}", "Thus $a = b$."}},
	{"equation then period", "Recall\n\\begin{equation}\ne^{i\\pi} = -1\n\\end{equation}.\nNext, square it.",
		[]string{"Recall\n\\begin{equation}\ne^{i\\pi} = -1\n\\end{equation}.", "Next, square it."}},
	{"unknown environment is text", "\\begin{proof} Trivial. Done. \\end{proof}",
		[]string{"\\begin{proof} Trivial.", "Done.", "\\end{proof}"}},
	{"abbreviations", "By Thm. 3 and Lem. 4, e.g. Cor. 5 holds. Hence we are done.",
		[]string{"By Thm. 3 and Lem. 4, e.g. Cor. 5 holds.", "Hence we are done."}},
	{"dotted abbreviations", "Differentiate w.r.t. $t$ and use Eq. (3), cf. Prop. 2.1. This gives $u' = 0$.",
		[]string{"Differentiate w.r.t. $t$ and use Eq. (3), cf. Prop. 2.1.", "This gives $u' = 0$."}},
	{"etc", "We use $\\sin$, $\\cos$, etc. for the usual functions. Done.",
		[]string{"We use $\\sin$, $\\cos$, etc. for the usual functions.", "Done."}},
	{"abbreviation is a whole word", "Consider the step. Next, apply it.",
		[]string{"Consider the step.", "Next, apply it."}},
	{"unknown abbreviation before lowercase", "The sum has ca. twelve terms, i.e. few. Done.",
		[]string{"The sum has ca. twelve terms, i.e. few.", "Done."}},
	{"decimals and references", "The constant is 3.14 approximately. Lemma 2.3 gives 0.5 as a bound.",
		[]string{"The constant is 3.14 approximately.", "Lemma 2.3 gives 0.5 as a bound."}},
	{"capital letter ends a sentence", "Let the set be A. Then $A$ is closed.",
		[]string{"Let the set be A.", "Then $A$ is closed."}},
	{"next sentence starts with math, digit or command", "Let $n = 2$. $n$ is even. 4 is too. \\emph{Done}.",
		[]string{"Let $n = 2$.", "$n$ is even.", "4 is too.", "\\emph{Done}."}},
	{"question and exclamation", "Is $n$ prime? Yes! It is $7$.",
		[]string{"Is $n$ prime?", "Yes!", "It is $7$."}},
	{"steps on one line", "Step 1: Show $f$ is injective. Step 2: Show $f$ is surjective.",
		[]string{"Step 1: Show $f$ is injective.", "Step 2: Show $f$ is surjective."}},
	{"step lines", "Step 1: reduce to $n$ prime\nStep 2. apply Fermat\nStep 3: conclude",
		[]string{"Step 1: reduce to $n$ prime", "Step 2. apply Fermat", "Step 3: conclude"}},
	{"cases", "Case 1. $n$ even. Then $n = 2k$.\nCase 2: $n$ odd. Then $n = 2k+1$.",
		[]string{"Case 1. $n$ even.", "Then $n = 2k$.", "Case 2: $n$ odd.", "Then $n = 2k+1$."}},
	{"bulleted list", "We check three cases:\n- $n = 0$ is trivial\n- $n = 1$ follows from Lemma 1.\n* otherwise use induction\n+ and we are done",
		[]string{"We check three cases:", "- $n = 0$ is trivial", "- $n = 1$ follows from Lemma 1.", "* otherwise use induction", "+ and we are done"}},
	{"indented unicode bullets", "Properties:\n  • compact\n\t• connected",
		[]string{"Properties:", "• compact", "• connected"}},
	{"numbered list", "The proof has two parts.\n1. First, $f(0) = 0$.\n2. Second, $f$ is odd.\n10) Finally, done.",
		[]string{"The proof has two parts.", "1. First, $f(0) = 0$.", "2. Second, $f$ is odd.", "10) Finally, done."}},
	{"lettered and roman items", "We prove:\n(a) $G$ is abelian;\n(b) $H$ is normal.\n(iv) $K$ is trivial\n(1) all of the above",
		[]string{"We prove:", "(a) $G$ is abelian;", "(b) $H$ is normal.", "(iv) $K$ is trivial", "(1) all of the above"}},
	{"not list items", "Take the value\n3.14 and the pair\n(ab) given\n-1 times. Done.",
		[]string{"Take the value\n3.14 and the pair\n(ab) given\n-1 times.", "Done."}},
	{"blank line", "Suppose $x \\in A$\n\nThen $x \\in B$",
		[]string{"Suppose $x \\in A$", "Then $x \\in B$"}},
	{"blank line with spaces before lowercase", "Hence $x = 0$.\n  \t\nmoreover $y = 0$.",
		[]string{"Hence $x = 0$.", "moreover $y = 0$."}},
	{"line wrapping", "Since $f$ is continuous on the compact set $K$,\nit attains its maximum. Hence\n$f$ is bounded.",
		[]string{"Since $f$ is continuous on the compact set $K$,\nit attains its maximum.", "Hence\n$f$ is bounded."}},
	{"quotes and brackets", "Call $f$ \"tame.\" Tame maps compose. Is $g$ tame? Yes (see [4].) Done.",
		[]string{"Call $f$ \"tame.\"", "Tame maps compose.", "Is $g$ tame?", "Yes (see [4].)", "Done."}},
	{"QED", "This completes the induction. Q.E.D.",
		[]string{"This completes the induction.", "Q.E.D."}},
	{"unicode", "∀ε>0 ∃δ>0 such that |x−y|<δ ⇒ |f(x)−f(y)|<ε. Hence f is “uniformly continuous.” ∎",
		[]string{"∀ε>0 ∃δ>0 such that |x−y|<δ ⇒ |f(x)−f(y)|<ε.", "Hence f is “uniformly continuous.”", "∎"}},
	{"no-break space", "Done.\u00a0Next.",
		[]string{"Done.", "Next."}},
	{"CRLF", "First line.\r\nSecond line\r\n\r\nThird.\r\n",
		[]string{"First line.", "Second line", "Third."}},
	{"escaped dollar", "It costs \\$5. Then $x$ is free.",
		[]string{"It costs \\$5.", "Then $x$ is free."}},
	{"escaped backslash before math", "Line one\\\\$x. Y$ ends. Go.",
		[]string{"Line one\\\\$x. Y$ ends.", "Go."}},
	{"stray dollar stays in its paragraph", "A stray $ sign. Next sentence.\n\nThen $y. Z$ holds.",
		[]string{"A stray $ sign.", "Next sentence.", "Then $y. Z$ holds."}},
	{"unclosed display bracket", "Consider \\[ x = 1. Then more.\n\nNew paragraph.",
		[]string{"Consider \\[ x = 1.", "Then more.", "New paragraph."}},
	{"markdown emphasis", "**Proof.** Let $x \\in X$. Then done.",
		[]string{"**Proof.** Let $x \\in X$.", "Then done."}},
	{"surrounding whitespace", "  \n  Trivial.  \n\n",
		[]string{"Trivial."}},
	{"empty", "", []string{}},
	{"whitespace only", " \n\t\r\n \u00a0", []string{}},
}

func TestSplitSentences(t *testing.T) {
	for _, tt := range splitTests {
		t.Run(tt.name, func(t *testing.T) {
			spans := SplitSentences(tt.in)
			checkSpans(t, tt.in, spans)
			got := Sentences(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("SplitSentences(%q) = %q; want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSentencesEmptyIsNotNil(t *testing.T) {
	if got := Sentences(" \n"); got == nil {
		t.Errorf("Sentences(%q) = nil; want an empty, non-nil list", " \n")
	}
}

// checkSpans checks the invariants every split must keep: spans in bounds,
// ordered, disjoint, non-empty, trimmed, with only whitespace outside them.
func checkSpans(t *testing.T, text string, spans []Span) {
	t.Helper()
	prev := 0
	for i, sp := range spans {
		if sp.Start < prev || sp.End <= sp.Start || sp.End > len(text) {
			t.Fatalf("SplitSentences(%q): span %d = %v after offset %d; want ordered, disjoint, non-empty spans within %d bytes", text, i+1, sp, prev, len(text))
		}
		if gap := text[prev:sp.Start]; !onlySpace(gap) {
			t.Errorf("SplitSentences(%q): %q before span %d; want only whitespace between spans", text, gap, i+1)
		}
		s := text[sp.Start:sp.End]
		first, _ := utf8.DecodeRuneInString(s)
		last, _ := utf8.DecodeLastRuneInString(s)
		if unicode.IsSpace(first) || unicode.IsSpace(last) {
			t.Errorf("SplitSentences(%q): span %d = %q; want it trimmed", text, i+1, s)
		}
		prev = sp.End
	}
	if tail := text[prev:]; !onlySpace(tail) {
		t.Errorf("SplitSentences(%q): %q after the last span; want only whitespace", text, tail)
	}
}

func onlySpace(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

func TestReplaceSentences(t *testing.T) {
	const text = "  Let $x>0$.   Then $x^2>0$.\r\n\r\nHence done.\n\n"
	tests := []struct {
		first, last int
		repl        string
		want        string
	}{
		{1, 1, "Let $x \\ne 0$.", "  Let $x \\ne 0$.   Then $x^2>0$.\r\n\r\nHence done.\n\n"},
		{2, 2, "So $x^2 \\ge 0$. Indeed.", "  Let $x>0$.   So $x^2 \\ge 0$. Indeed.\r\n\r\nHence done.\n\n"},
		{3, 3, "So done.", "  Let $x>0$.   Then $x^2>0$.\r\n\r\nSo done.\n\n"},
		{1, 3, "Trivial.", "  Trivial.\n\n"},
		{2, 3, "", "  Let $x>0$.   \n\n"},
		{1, 2, "A.\n\nB.", "  A.\n\nB.\r\n\r\nHence done.\n\n"},
	}
	for _, tt := range tests {
		got, err := ReplaceSentences(text, tt.first, tt.last, tt.repl)
		if err != nil || got != tt.want {
			t.Errorf("ReplaceSentences(%q, %d, %d, %q) = %q, %v; want %q, nil", text, tt.first, tt.last, tt.repl, got, err, tt.want)
		}
	}
}

func TestReplaceSentencesOutOfRange(t *testing.T) {
	const text = "One. Two. Three."
	tests := []struct {
		text        string
		first, last int
		want        string
	}{
		{text, 1, 4, "sentences 1-4 out of range: the proof has 3 sentences (1-3)"},
		{text, 4, 9, "sentences 4-9 out of range: the proof has 3 sentences (1-3)"},
		{text, 0, 0, "sentence 0 out of range: sentences are numbered from 1; the proof has 3 sentences (1-3)"},
		{text, -1, 2, "sentences -1-2 out of range: sentences are numbered from 1; the proof has 3 sentences (1-3)"},
		{text, 3, 2, "sentences 3-2 out of range: the first sentence must not come after the last; the proof has 3 sentences (1-3)"},
		{"Only one.", 2, 2, "sentence 2 out of range: the proof has 1 sentence (1)"},
		{" \n", 1, 1, "sentence 1 out of range: the proof has no sentences"},
	}
	for _, tt := range tests {
		got, err := ReplaceSentences(tt.text, tt.first, tt.last, "X.")
		if !errors.Is(err, ErrSentenceRange) || err.Error() != tt.want || got != "" {
			t.Errorf("ReplaceSentences(%q, %d, %d, %q) = %q, %v; want an ErrSentenceRange error %q", tt.text, tt.first, tt.last, "X.", got, err, tt.want)
		}
	}
}

// TestSplitSentencesLongInputs runs inputs that would take quadratic time
// in a splitter that searches again for closers it already failed to find.
// It checks the result, not the time; see BenchmarkSplitSentences.
func TestSplitSentencesLongInputs(t *testing.T) {
	for _, unit := range []string{"\\( a. ", "$$ b. ", "\\begin{align} c. ", "x. ", "- y\n", "...... ", "\\"} {
		text := strings.Repeat(unit, 20000)
		checkSpans(t, text, SplitSentences(text))
	}
}

func BenchmarkSplitSentences(b *testing.B) {
	for _, unit := range []string{"Let $x > 0$. Then $x^2 > 0$ by Thm. 2.1.\n", "\\( a. "} {
		text := strings.Repeat(unit, 10000)
		b.Run(unit[:4], func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				SplitSentences(text)
			}
		})
	}
}

func FuzzReplaceSentences(f *testing.F) {
	for _, tt := range splitTests {
		f.Add(tt.in, uint(0), uint(1), "X.")
	}
	for _, s := range []string{
		"$", "$$", "\\", "\\[ x", "\\( x", "\\begin{align} x. Y", "\\begin{align", "$x\n\n$ y. Z",
		"\xff\xfe. \xc2", "a.\xe2\x80 B.", "\xe2\x80\xa2 item\n\xe2\x80", "1.", "(", "(iv", "Step 1:", "Case 12.",
		"”. ”", "e.g.", "x.)]\"'’” Y", "\u2028.\u2028.", "\r\n\r\n.\r\n",
	} {
		f.Add(s, uint(3), uint(7), "")
	}
	f.Fuzz(func(t *testing.T, text string, a, b uint, repl string) {
		spans := SplitSentences(text)
		checkSpans(t, text, spans)
		if again := SplitSentences(text); !slices.Equal(spans, again) {
			t.Fatalf("SplitSentences(%q) = %v, then %v; want the same spans", text, spans, again)
		}
		n := len(spans)
		if got, err := ReplaceSentences(text, n+1, n+1, repl); !errors.Is(err, ErrSentenceRange) {
			t.Fatalf("ReplaceSentences(%q, %d, %d, %q) = %q, %v; want ErrSentenceRange", text, n+1, n+1, repl, got, err)
		}
		if n == 0 {
			return
		}
		first, last := int(a%uint(n))+1, int(b%uint(n))+1
		if first > last {
			first, last = last, first
		}
		got, err := ReplaceSentences(text, first, last, repl)
		if err != nil {
			t.Fatalf("ReplaceSentences(%q, %d, %d, %q) = %v; want no error for %d sentences", text, first, last, repl, err, n)
		}
		prefix, suffix := text[:spans[first-1].Start], text[spans[last-1].End:]
		if !strings.HasPrefix(got, prefix) || !strings.HasSuffix(got[len(prefix):], suffix) || len(got) != len(prefix)+len(repl)+len(suffix) {
			t.Fatalf("ReplaceSentences(%q, %d, %d, %q) = %q; want prefix %q and suffix %q kept", text, first, last, repl, got, prefix, suffix)
		}
		if got[len(prefix):len(got)-len(suffix)] != repl {
			t.Fatalf("ReplaceSentences(%q, %d, %d, %q) = %q; want the replacement between %q and %q", text, first, last, repl, got, prefix, suffix)
		}
	})
}

func TestEllipsis(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"We have 1 + 3 + ... + (2n-1) = n^2. Hence done.", []string{"We have 1 + 3 + ... + (2n-1) = n^2.", "Hence done."}},
		{"The terms are a, b, ... $x_n$ as before. Done.", []string{"The terms are a, b, ... $x_n$ as before.", "Done."}},
		{"And so on... Then stop.", []string{"And so on...", "Then stop."}},
		{"And so on...", []string{"And so on..."}},
	}
	for _, tt := range tests {
		if got := Sentences(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Sentences(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}
