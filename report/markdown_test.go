package report

import (
	"strings"
	"testing"
)

func TestExtractMath(t *testing.T) {
	tests := []struct {
		in   string
		text string
		tex  []mathSpan
	}{
		{`a $x_1 * y_2$ b`, "a \uE0000\uE001 b", []mathSpan{{`x_1 * y_2`, false}}},
		{`$$\sum_i a_i$$ and \(b\) and \[c\]`, "\uE0000\uE001 and \uE0001\uE001 and \uE0002\uE001",
			[]mathSpan{{`\sum_i a_i`, true}, {`b`, false}, {`c`, true}}},
		{`costs \$5 and $1 + \$2$`, `costs \$5 and ` + "\uE0000\uE001", []mathSpan{{`1 + \$2`, false}}},
		{`unclosed $x and more`, `unclosed $x and more`, nil},
		{`unclosed $$x and more`, `unclosed $$x and more`, nil},
		{`empty $$ $$ is text`, `empty $$ $$ is text`, nil},
		{"typed \uE0007\uE001 placeholder", "typed 7 placeholder", nil},
	}
	for _, tc := range tests {
		text, spans := extractMath(tc.in)
		if text != tc.text || len(spans) != len(tc.tex) {
			t.Errorf("extractMath(%q) = %q, %v; want %q, %v", tc.in, text, spans, tc.text, tc.tex)
			continue
		}
		for i := range spans {
			if spans[i] != tc.tex[i] {
				t.Errorf("extractMath(%q) span %d = %v; want %v", tc.in, i, spans[i], tc.tex[i])
			}
		}
	}
}

func TestMarkdownIsInert(t *testing.T) {
	tests := []struct {
		in            string
		want, wantNot []string
	}{
		{"Hence <script>document.title='pwned'</script> done.",
			[]string{"&lt;script&gt;", "&lt;/script&gt;"}, []string{"<script"}},
		{"<script>\nwindow.pwned = 1\n</script>\n",
			[]string{"<pre><code>&lt;script&gt;"}, []string{"<script"}},
		{`<img src="http://evil.example/x.png" onerror="alert(1)">`,
			[]string{"&lt;img src=&quot;http://evil.example/x.png&quot;"}, []string{"<img"}},
		{"[see](https://evil.example/) and ![alt](https://evil.example/i.png) and <https://evil.example/a>",
			[]string{"see (https://evil.example/)", "alt", "https://evil.example/a"}, []string{"href", "src="}},
		{"[x](javascript:alert(1))", []string{"x (javascript:alert(1))"}, []string{"href"}},
		{"Let $a_1 < b_2$ and *c*.",
			[]string{`<span class="math" data-display="0">a_1 &lt; b_2</span>`, "<em>c</em>"}, []string{"<em>1"}},
		{"| a | b |\n|---|---|\n| $x|y$ | 2 |\n", []string{"<table>", `<span class="math"`}, nil},
	}
	for _, tc := range tests {
		got := string(Markdown(tc.in))
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("Markdown(%q) = %q; want it to contain %q", tc.in, got, w)
			}
		}
		for _, w := range tc.wantNot {
			if strings.Contains(got, w) {
				t.Errorf("Markdown(%q) = %q; want no %q", tc.in, got, w)
			}
		}
	}
}

func TestInline(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Step 1: *so* $x$.", `Step 1: <em>so</em> <span class="math" data-display="0">x</span>.`},
		{"one\n\ntwo", "<p>one</p>\n<p>two</p>"},
		{"- a\n- b", "<ul>\n<li>a</li>\n<li>b</li>\n</ul>"},
	}
	for _, tc := range tests {
		if got := string(Inline(tc.in)); got != tc.want {
			t.Errorf("Inline(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}
