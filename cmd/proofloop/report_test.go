package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/report"
	"github.com/proofloop/proofloop/store"
)

// TestReportHTML checks the report of a store after a session that uses
// every skill, without a browser: the sections, one section per statement
// with every proof revision, every issue beside the sentence it cites (in
// the revision it cites), agent text never as markup, and nothing that
// loads from anywhere.
func TestReportHTML(t *testing.T) {
	root := session(t)
	out := filepath.Join(t.TempDir(), "r.html")
	if got := plRun(t, "report", "-o", out); !strings.Contains(got, "Wrote the report of 7 statements to "+out) {
		t.Errorf("report printed %q; want it to name 7 statements and %s", got, out)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]*html.Node{}
	var scripts, mathSpans int
	var nonces []string
	var text strings.Builder
	walk(doc, func(n *html.Node) {
		if n.Type == html.TextNode && (n.Parent == nil || n.Parent.Data != "script" && n.Parent.Data != "style") {
			text.WriteString(n.Data)
		}
		if n.Type != html.ElementNode {
			return
		}
		if id := attr(n, "id"); id != "" {
			if byID[id] != nil {
				t.Errorf("id %q appears twice", id)
			}
			byID[id] = n
		}
		switch n.Data {
		case "script", "style":
			scripts++
			nonces = append(nonces, attr(n, "nonce"))
			if attr(n, "src") != "" {
				t.Errorf("<%s src=%q>; want every script inline", n.Data, attr(n, "src"))
			}
		case "img", "iframe", "object", "embed", "link", "form":
			t.Errorf("the report has a <%s> element; want none", n.Data)
		case "meta":
			if attr(n, "http-equiv") == "Content-Security-Policy" {
				csp := attr(n, "content")
				if !strings.HasPrefix(csp, "default-src 'none'; script-src 'nonce-") {
					t.Errorf("CSP = %q; want default-src 'none' and a nonced script-src", csp)
				}
				nonces = append(nonces, regexp.MustCompile(`'nonce-([^']+)'`).FindStringSubmatch(csp)[1])
			}
		case "span":
			if attr(n, "class") == "math" {
				mathSpans++
			}
		}
		for _, a := range n.Attr {
			if strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s %s=%q>: want no event handler attribute", n.Data, a.Key, a.Val)
			}
			if (a.Key == "href" || a.Key == "src") && !strings.HasPrefix(a.Val, "#") {
				t.Errorf("<%s %s=%q>: want only in-page links", n.Data, a.Key, a.Val)
			}
		}
	})
	if scripts != 3 { // KaTeX, the page's script, the style
		t.Errorf("%d script and style elements; want 3 (KaTeX, the page's script, its style)", scripts)
	}
	for _, n := range nonces {
		if n == "" || n != nonces[0] {
			t.Errorf("nonces %q; want one nonce, the CSP's, on every script and style", nonces)
			break
		}
	}
	for _, id := range []string{"tree", "figures", "statements", "debates", "d-deb_cache_policy_b_now_b", "timeline"} {
		if byID[id] == nil {
			t.Errorf("no section #%s", id)
		}
	}
	body := text.String()
	for _, want := range []string{"<script>window.pwned=5</script>", "Cache policy <b>now</b>", "<script>document.title='pwned';window.pwned=1</script>", "<b>bold</b>",
		"<script>window.pwned=4</script>", "the source (http://127.0.0.1:9/a)", "Turns per role"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page's text has no %q", want)
		}
	}
	if mathSpans < 10 {
		t.Errorf("%d math spans; want the formulas of the session (at least 10)", mathSpans)
	}
	if strings.Contains(body, "$x_1") || strings.Contains(body, "\\(a+b\\)") {
		t.Errorf("the page's text has a formula with its delimiters; want them taken out for KaTeX")
	}

	// Every statement has its section; every revision its sentences;
	// every issue sits beside the sentence it cites, which holds its quote.
	names, _ := filepath.Glob(filepath.Join(root, "statement", "*.json"))
	if len(names) != 7 {
		t.Fatalf("%d statements in the session; want 7", len(names))
	}
	issues := 0
	for _, name := range names {
		raw, _ := os.ReadFile(name)
		var st model.Statement
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatal(err)
		}
		if byID["st-"+st.ID] == nil {
			t.Errorf("no section #st-%s", st.ID)
		}
		for r := 1; r <= st.ProofRevision; r++ {
			if byID["r-"+st.ID+"-"+itoa(r)] == nil {
				t.Errorf("%s: no proof revision %d (#r-%s-%d)", st.ID, r, st.ID, r)
			}
		}
		for _, is := range st.Validate.Issues {
			issues++
			anchor := "s-" + st.ID + "-r" + itoa(is.ProofRevision) + "-" + itoa(is.Sentence)
			s := byID[anchor]
			if s == nil {
				t.Errorf("%s issue %d: no sentence #%s", st.ID, is.IssueNumber, anchor)
				continue
			}
			if !strings.Contains(attr(s, "class"), "cited") {
				t.Errorf("#%s has class %q; want it highlighted (cited)", anchor, attr(s, "class"))
			}
			if !strings.Contains(attr(s, "data-source"), is.SentenceText) {
				t.Errorf("#%s is %q; want the sentence that holds the quote %q", anchor, attr(s, "data-source"), is.SentenceText)
			}
			in := byID["i-"+st.ID+"-"+itoa(is.IssueNumber)]
			if in == nil || !contains(s, in) {
				t.Errorf("%s issue %d is not beside sentence #%s", st.ID, is.IssueNumber, anchor)
			}
		}
	}
	// fully_proved (derived), severities, the causes of kept revisions.
	for id, want := range map[string]string{"st-stmt_sq_wrap_sub2": "fully proved", "st-stmt_planted_wrap": "not fully proved: stmt_planted_wrap is has_gap",
		"r-stmt_sq_wrap_sub2-2": "Proof revision 2 (patch) by fix", "i-stmt_planted_wrap-1": "Issue 1 · gap · severity gap · open"} {
		if n := byID[id]; n == nil || !strings.Contains(textOf(n), want) {
			t.Errorf("#%s does not say %q", id, want)
		}
	}
	if strings.Contains(body, "rebuilt from the event log") || strings.Contains(body, "only the current proof") {
		t.Errorf("the page says revisions were rebuilt or lost; want the kept revisions of this store")
	}
	if issues != 4 {
		t.Errorf("%d issues in the session; want 4", issues)
	}
	evs := 0
	for id := range byID {
		if strings.HasPrefix(id, "ev-") {
			evs++
		}
	}
	log, _ := os.ReadFile(filepath.Join(root, "events.jsonl"))
	if want := strings.Count(string(log), "\n"); evs != want || want < 36 {
		t.Errorf("the timeline has %d events; want all %d of the log (25 of the story, 5 planted, at least 6 of the debate)", evs, want)
	}
}

func walk(n *html.Node, fn func(*html.Node)) {
	fn(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, fn)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func textOf(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	})
	return b.String()
}

func contains(outer, inner *html.Node) bool {
	for p := inner; p != nil; p = p.Parent {
		if p == outer {
			return true
		}
	}
	return false
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestReportRevisionsFromLog: a store from before proof revisions were kept
// (no proofs/ folder) still shows every revision, from the events' patches,
// and says so.
func TestReportRevisionsFromLog(t *testing.T) {
	root := session(t)
	if err := os.RemoveAll(filepath.Join(root, "proofs")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r.html")
	plRun(t, "report", "-o", out)
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(raw)
	for _, want := range []string{
		`id="r-stmt_sq_wrap_sub2-1"`, `id="r-stmt_sq_wrap_sub2-2"`, `id="r-stmt_sq_wrap_sub2-3"`,
		"Proof revision 2 (fix-patch-proof) by fix", "they are rebuilt from the event log",
		`data-source="Step 2: Adding $2n&#43;1$ to both sides gives`,
		`id="i-stmt_sq_wrap_sub2-2" data-anchor="s-stmt_sq_wrap_sub2-r2-3"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the report of a store without kept revisions has no %q", want)
		}
	}
}

// TestSplitReport: past the split threshold, a store of several root
// problems is written as a folder: an index of the roots linking one page
// per root, each holding its own statements, and one shared KaTeX file.
func TestSplitReport(t *testing.T) {
	dir := splitReport(t)
	for _, name := range []string{"index.html", "prob_sq.html", "prob_planted.html", "katex.min.js"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("the split report has no %s: %v", name, err)
		}
	}
	index, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	sq, _ := os.ReadFile(filepath.Join(dir, "prob_sq.html"))
	planted, _ := os.ReadFile(filepath.Join(dir, "prob_planted.html"))
	for _, c := range []struct {
		page          string
		want, wantNot []string
	}{
		{string(index), []string{`href="prob_sq.html"`, `href="prob_planted.html"`, `<script nonce="`, `src="katex.min.js"`, `id="timeline"`},
			[]string{`id="st-stmt_sq_wrap"`, "katex.render=", "window.katex"}},
		{string(sq), []string{`id="st-stmt_sq_wrap_sub2"`, `href="index.html"`, `src="katex.min.js"`},
			[]string{`id="st-stmt_planted_wrap"`}},
		{string(planted), []string{`id="st-stmt_planted_wrap"`, `id="i-stmt_planted_wrap-1"`}, []string{`id="st-stmt_sq_wrap"`}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.page, w) {
				t.Errorf("a page of the split report lacks %q", w)
			}
		}
		for _, w := range c.wantNot {
			if strings.Contains(c.page, w) {
				t.Errorf("a page of the split report has %q; want it elsewhere", w)
			}
		}
	}
}

// splitReport writes the session's report with a threshold of 2
// statements, so that it splits, and returns its folder.
func splitReport(t *testing.T) string {
	t.Helper()
	root := session(t)
	s, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out := filepath.Join(t.TempDir(), "report.html")
	w, err := report.Write(context.Background(), s, "", out, io.Discard, report.Options{SplitOver: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !w.Split || w.Pages != 3 || w.Path != strings.TrimSuffix(out, ".html") {
		t.Fatalf("Write = %+v; want split into index and 2 pages under %s", w, strings.TrimSuffix(out, ".html"))
	}
	return w.Path
}
