package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/proofloop/proofloop/model"
)

var updateScreenshot = flag.Bool("update-screenshot", false, "write docs/report.png from the browser test")

// chromiumNames are the binaries the browser tests look for, in order; the
// Makefile's chromium step installs the first with apt-get when none is
// found.
var chromiumNames = []string{"chromium", "chromium-browser", "chromium-headless-shell", "headless_shell", "google-chrome"}

// browser opens a tab of the test process's headless Chromium, in a
// browser context of its own (no cookies, cache or storage shared with
// another test), or skips the test loudly when there is none (make test
// installs it; see the Makefile's chromium step). One Chromium serves every
// browser test of the process: starting it costs more than a test's pages.
func browser(t *testing.T) (context.Context, *pageLog) {
	t.Helper()
	bctx, err := chromium.get()
	if errors.Is(err, errNoChromium) {
		t.Skipf("\n%s\nSKIPPED: NO CHROMIUM FOUND (looked for %s). The report's browser tests did not run.\n"+
			"Install it with `apt-get install -y chromium` (make test tries).\n%s",
			strings.Repeat("!", 70), strings.Join(chromiumNames, ", "), strings.Repeat("!", 70))
	}
	if err != nil {
		t.Fatal(err)
	}
	pl := &pageLog{}
	// The listener is set before the tab opens, so it misses nothing;
	// chromedp enables the network and log domains itself.
	ctx, cancel := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext(), chromedp.WithListener(pl.listen))
	t.Cleanup(cancel)
	// A generous bound against a hang; no assertion depends on it.
	ctx, cancel2 := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancel2)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return ctx, pl
}

var errNoChromium = errors.New("no chromium found")

// chromium is the test process's headless Chromium, started by the first
// browser test and stopped by TestMain after the tests.
var chromium sharedBrowser

type sharedBrowser struct {
	once   sync.Once
	ctx    context.Context // the browser's first tab, kept blank
	cancel context.CancelFunc
	err    error
}

// get starts Chromium on first use and returns a context that has it.
func (b *sharedBrowser) get() (context.Context, error) {
	b.once.Do(func() {
		path := ""
		for _, n := range chromiumNames {
			if p, err := exec.LookPath(n); err == nil {
				path = p
				break
			}
		}
		if path == "" {
			b.err = errNoChromium
			return
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
			chromedp.WindowSize(1280, 900), chromedp.Flag("disable-gpu", true))
		actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel2 := chromedp.NewContext(actx)
		b.ctx, b.cancel = ctx, func() { cancel2(); cancel() }
		if err := chromedp.Do(ctx); err != nil {
			b.err = fmt.Errorf("start chromium (%s): %w", path, err)
		}
	})
	return b.ctx, b.err
}

// stop stops Chromium, if a test started it.
func (b *sharedBrowser) stop() {
	if b.cancel != nil {
		b.cancel()
	}
}

// pageLog records what the page did that it must not: console errors,
// exceptions, log entries of level error (CSP violations land there) and
// every network request.
type pageLog struct {
	mu       sync.Mutex
	errors   []string
	requests []string
}

func (p *pageLog) listen(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			p.errors = append(p.errors, fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " ")))
		}
	case *runtime.EventExceptionThrown:
		p.errors = append(p.errors, "exception: "+exceptionText(ev.ExceptionDetails))
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
			p.errors = append(p.errors, fmt.Sprintf("log %s (%s): %s", ev.Entry.Level, ev.Entry.Source, ev.Entry.Text))
		}
	case *network.EventRequestWillBeSent:
		p.requests = append(p.requests, ev.Request.URL)
	}
}

func (p *pageLog) snapshot() (errs, reqs []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.errors...), append([]string(nil), p.requests...)
}

// artifacts is where screenshots go: $PROOFLOOP_ARTIFACTS if set, else a
// temp dir of the test.
func artifacts(t *testing.T) string {
	if d := os.Getenv("PROOFLOOP_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// issueAnchors lists, from the statement files, each issue's element id,
// the id of the sentence it cites and its quote.
func issueAnchors(t *testing.T, root string) [][3]string {
	names, _ := filepath.Glob(filepath.Join(root, "statement", "*.json"))
	var out [][3]string
	for _, name := range names {
		raw, _ := os.ReadFile(name)
		var st model.Statement
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatal(err)
		}
		for _, is := range st.Validate.Issues {
			if is.IssueTarget() != model.TargetProof {
				continue // an issue on the formal track cites a line of a formal text, shown with it
			}
			out = append(out, [3]string{fmt.Sprintf("i-%s-%d", st.ID, is.IssueNumber),
				fmt.Sprintf("s-%s-r%d-%d", st.ID, is.ProofRevision, is.Sentence), is.SentenceText})
		}
	}
	return out
}

type anchorCheck struct {
	Found, Beside, Cited bool
	Source               string
}

type mathCheck struct {
	Spans, Sized, Errors int
	Raw                  string
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d == nil {
		return ""
	}
	if d.Exception != nil {
		return d.Text + " " + d.Exception.Description
	}
	return d.Text
}

// checkPage runs the checks every report page must pass in the browser.
func checkPage(t *testing.T, ctx context.Context, root string) {
	t.Helper()
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	pwned, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof window.pwned !== "undefined"`))
	if err != nil {
		t.Fatal(err)
	}
	if title != "proofloop report" || pwned {
		t.Errorf("title %q, window.pwned set: %v; want the page's title and no planted script run", title, pwned)
	}
	// Every issue: its sentence exists, holds the quote, and the issue
	// sits beside it.
	anchors := issueAnchors(t, root)
	if len(anchors) < 4 {
		t.Fatalf("%d issues in the session; want at least 4", len(anchors))
	}
	for _, a := range anchors {
		js := fmt.Sprintf(`(() => { const s = document.getElementById(%q), i = document.getElementById(%q);
			return {Found: !!s, Beside: !!(s && i && s.contains(i)), Cited: !!(s && s.classList.contains("cited")), Source: s ? s.dataset.source : ""}; })()`, a[1], a[0])
		got, err := chromedp.Run(ctx, chromedp.Evaluate[anchorCheck](js))
		if err != nil {
			t.Fatal(err)
		}
		if !got.Found || !got.Beside || !got.Cited || !strings.Contains(got.Source, a[2]) {
			t.Errorf("issue #%s: sentence #%s found %v, issue beside it %v, highlighted %v, text %q; want all, and the quote %q in it",
				a[0], a[1], got.Found, got.Beside, got.Cited, got.Source, a[2])
		}
	}
	// Math: every formula is a <math> element with a size; no $...$ is
	// left in the text, and KaTeX refused none.
	js := `(() => { const spans = [...document.querySelectorAll("span.math")];
		const sized = spans.filter(s => { const m = s.querySelector("math"); if (!m) return false; const r = m.getBoundingClientRect(); return r.width > 0 && r.height > 0; });
		const raw = (document.querySelector("main").innerText.match(/\$[^$\s][^$]*\$|\\\(|\\\[/) || [""])[0];
		return {Spans: spans.length, Sized: sized.length, Errors: document.querySelectorAll(".math-error").length, Raw: raw}; })()`
	m, err := chromedp.Run(ctx, chromedp.Evaluate[mathCheck](js))
	if err != nil {
		t.Fatal(err)
	}
	if m.Spans < 10 || m.Sized != m.Spans || m.Errors != 0 || m.Raw != "" {
		t.Errorf("math: %d formulas, %d rendered with a size, %d refused, raw TeX left %q; want at least 10, all rendered, none refused or raw", m.Spans, m.Sized, m.Errors, m.Raw)
	}
}

// TestReportInBrowser opens the report file from disk in headless
// Chromium.
func TestReportInBrowser(t *testing.T) {
	ctx, pl := browser(t)
	root := session(t)
	out := filepath.Join(t.TempDir(), "report.html")
	plRun(t, "report", "-o", out)
	url := "file://" + out
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	checkPage(t, ctx, root)
	dir := artifacts(t)
	full, err := chromedp.Run(ctx, chromedp.FullScreenshot(80))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url+"#st-stmt_sq_wrap_sub2")); err != nil {
		t.Fatal(err)
	}
	// The screenshot is of the statement the fragment names: wait for a
	// frame drawn with it scrolled into view, not for a fixed time.
	inView := `(() => { const e = document.querySelector(":target"); if (!e) return false;
		const r = e.getBoundingClientRect(); return r.top >= 0 && r.top < innerHeight; })()`
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](inView)); err != nil {
		t.Fatalf("the statement #st-stmt_sq_wrap_sub2 is not in view after navigating to it: %v", err)
	}
	view, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"report-full.jpg": full, "report.png": view} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots in %s", dir)
	if *updateScreenshot {
		if err := os.WriteFile("../../docs/report.png", view, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	errs, reqs := pl.snapshot()
	if len(errs) > 0 {
		t.Errorf("the page logged errors; want none:\n%s", strings.Join(errs, "\n"))
	}
	for _, r := range reqs {
		if !strings.HasPrefix(r, url) {
			t.Errorf("the page requested %q; want no request but the page itself", r)
		}
	}
}

// TestReportGraphInBrowser: the report draws the dependency graph as an
// inline SVG that renders in the browser with no script and no request:
// one box per problem and statement, filled by status, its border the
// grade (kernel-checked green and thick), linked to its section; and the
// formal texts show as text.
func TestReportGraphInBrowser(t *testing.T) {
	ctx, pl := browser(t)
	root := session(t)
	formalSession(t)
	out := filepath.Join(t.TempDir(), "report.html")
	plRun(t, "report", "-o", out)
	url := "file://" + out
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	var want int
	for _, k := range []string{"problem", "statement"} {
		m, _ := filepath.Glob(filepath.Join(root, k, "*.json"))
		want += len(m)
	}
	type box struct {
		Class, Fill, Stroke, Width, Label, Href string
	}
	type graph struct {
		Nodes, Dotted   int
		Width, Height   float64
		Boxes           map[string]box
		FormalText, Pwn string
	}
	js := `(() => { const svg = document.querySelector("#graph svg.dag"); if (!svg) return {Nodes: 0};
		const r = svg.getBoundingClientRect(), boxes = {};
		for (const g of svg.querySelectorAll("g.node")) { const rect = g.querySelector("rect"), a = g.querySelector("a");
			boxes[g.dataset.id] = {Class: g.getAttribute("class"), Fill: rect.getAttribute("fill"), Stroke: rect.getAttribute("stroke"),
				Width: rect.getAttribute("stroke-width"), Label: g.textContent, Href: a ? a.getAttribute("href") : ""}; }
		const pre = document.querySelector("pre.formal");
		return {Nodes: svg.querySelectorAll("g.node").length, Dotted: svg.querySelectorAll("line[stroke-dasharray]").length,
			Width: r.width, Height: r.height, Boxes: boxes, FormalText: pre ? pre.textContent : "", Pwn: String(window.pwned || "")}; })()`
	g, err := chromedp.Run(ctx, chromedp.Evaluate[graph](js))
	if err != nil {
		t.Fatal(err)
	}
	if g.Nodes != want || g.Width < 100 || g.Height < 100 {
		t.Fatalf("the graph has %d boxes, drawn %.0fx%.0f; want %d, drawn", g.Nodes, g.Width, g.Height, want)
	}
	k := g.Boxes["stmt_formal_wrap"]
	if !strings.Contains(k.Class, "grade-kernel_checked") || k.Stroke != "#1a7f37" || k.Width != "4" || k.Href != "#st-stmt_formal_wrap" || !strings.Contains(k.Label, "kernel-checked") {
		t.Errorf("the kernel-checked statement's box = %+v; want a thick green border, its grade and a link to its section", k)
	}
	if p := g.Boxes["prob_formal"]; !strings.Contains(p.Label, "formally verified") {
		t.Errorf("the formally verified problem's box = %+v", p)
	}
	if a := g.Boxes["stmt_sq_wrap_sub1"]; !strings.Contains(a.Class, "grade-agents_word") || a.Fill != "#dafbe1" || !strings.Contains(a.Label, "agents' word") {
		t.Errorf("a statement true on the agents' word: box %+v; want filled as true, its grade named", a)
	}
	if h := g.Boxes["stmt_planted_wrap"]; h.Fill != "#ffd8b5" || strings.Contains(h.Class, "grade-kernel") {
		t.Errorf("a statement with a gap: box %+v; want the has_gap fill and no grade", h)
	}
	if g.Dotted < 1 {
		t.Errorf("no dotted edge; the refuted lemma stmt_sq_wrap_sub3 is a dead end its parent does not rely on")
	}
	if !strings.Contains(g.FormalText, "<script>window.pwned=6</script>") || g.Pwn != "" {
		t.Errorf("formal text %q, window.pwned %q; want the planted script shown as text, and run nowhere", g.FormalText, g.Pwn)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url+"#graph")); err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS("#graph")))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(artifacts(t), "report-graph.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
	errs, reqs := pl.snapshot()
	if len(errs) > 0 {
		t.Errorf("the page logged errors; want none:\n%s", strings.Join(errs, "\n"))
	}
	for _, r := range reqs {
		if !strings.HasPrefix(r, url) {
			t.Errorf("the page requested %q; want no request but the page itself", r)
		}
	}
}

// TestSplitReportInBrowser opens a root problem's page of a split report
// from disk: its math renders with the shared katex.min.js beside it, and
// it loads nothing from outside its folder.
func TestSplitReportInBrowser(t *testing.T) {
	ctx, pl := browser(t)
	dir := splitReport(t)
	for _, page := range []string{"prob_sq.html", "index.html"} {
		if err := chromedp.Do(ctx, chromedp.Navigate("file://"+filepath.Join(dir, page)), chromedp.WaitReady("body")); err != nil {
			t.Fatal(err)
		}
		// The index shows no formula (the objectives have none); KaTeX
		// must still have loaded from the shared file.
		js := `(() => { const spans = [...document.querySelectorAll("span.math")];
			return {Spans: spans.length + (typeof window.katex === "object" ? 1 : 0),
				Sized: spans.filter(s => { const m = s.querySelector("math"); return m && m.getBoundingClientRect().width > 0; }).length + 1}; })()`
		m, err := chromedp.Run(ctx, chromedp.Evaluate[mathCheck](js))
		if err != nil {
			t.Fatal(err)
		}
		if m.Spans == 0 || m.Sized != m.Spans {
			t.Errorf("%s: %d formulas, %d rendered; want some, all rendered", page, m.Spans, m.Sized)
		}
	}
	errs, reqs := pl.snapshot()
	if len(errs) > 0 {
		t.Errorf("the pages logged errors; want none:\n%s", strings.Join(errs, "\n"))
	}
	for _, r := range reqs {
		if !strings.HasPrefix(r, "file://"+dir+"/") {
			t.Errorf("a page requested %q; want nothing outside %s", r, dir)
		}
	}
}
