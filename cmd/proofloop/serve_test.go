package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/proofloop/proofloop/report"
	"github.com/proofloop/proofloop/store"
)

// serveSession serves the report of a session's store, as `proofloop
// serve` does.
func serveSession(t *testing.T) (root string, srv *httptest.Server) {
	t.Helper()
	root = session(t)
	s, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	srv = newServer(s, "")
	t.Cleanup(func() {
		srv.CloseClientConnections() // the event streams end only when their clients go
		srv.Close()
		s.Close()
	})
	return root, srv
}

// newServer is an httptest server of the serve handler, answering the
// host it listens on.
func newServer(s *store.Store, problem string) *httptest.Server {
	srv := httptest.NewUnstartedServer(nil)
	a := srv.Listener.Addr()
	srv.Config.Handler = report.NewHandler(s, report.ServeOptions{Problem: problem, Hosts: report.NewHosts(a.String(), a)})
	srv.Start()
	return srv
}

// TestServeHTTP checks serve without a browser: read-only, a strict CSP
// whose nonce is the page's, 404 for anything but the pages and events.
func TestServeHTTP(t *testing.T) {
	root, srv := serveSession(t)
	before := snapshot(t, root)
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS"} {
		req, _ := http.NewRequest(m, srv.URL+"/", strings.NewReader("x"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD" {
			t.Errorf("%s / = %d, Allow %q; want 405, Allow GET, HEAD", m, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
	for _, p := range []string{"/nope", "/statement/stmt_sq_wrap.json", "/events.jsonl", "/prob_sq.html", "/../config.json", "/a/b.html"} {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s = %d; want 404", p, resp.StatusCode)
		}
	}
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	nonce := regexp.MustCompile(`'nonce-([A-Za-z0-9_-]+)'`).FindStringSubmatch(csp)
	if resp.StatusCode != 200 || !strings.HasPrefix(csp, "default-src 'none'; script-src 'nonce-") || nonce == nil ||
		!strings.Contains(csp, "connect-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Fatalf("GET / = %d, CSP %q; want 200 and default-src 'none', nonced scripts, connect-src 'self', frame-ancestors 'none'", resp.StatusCode, csp)
	}
	if got := strings.Count(string(body), `nonce="`+nonce[1]+`"`); got != 3 {
		t.Errorf("the page has %d elements with the header's nonce; want 3 (style, KaTeX, script)", got)
	}
	if !strings.Contains(string(body), `data-live="1"`) || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("the served page is not live or lacks nosniff")
	}
	// The dependency graph, as the report draws it (TestReportGraphInBrowser).
	if !strings.Contains(string(body), `<svg class="dag"`) || !strings.Contains(string(body), `data-id="stmt_sq_wrap"`) {
		t.Errorf("the served page does not draw the dependency graph")
	}
	resp2, _ := http.Get(srv.URL + "/")
	resp2.Body.Close()
	if n2 := resp2.Header.Get("Content-Security-Policy"); n2 == csp {
		t.Errorf("two responses share the nonce %q; want a new one each time", nonce[1])
	}
	// --problem: that subtree only.
	s, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	one := newServer(s, "prob_planted")
	defer one.Close()
	resp3, err := http.Get(one.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp3.Body)
	resp3.Body.Close()
	if !strings.Contains(string(page), `id="st-stmt_planted_wrap"`) || strings.Contains(string(page), `id="st-stmt_sq_wrap"`) {
		t.Errorf("serve --problem prob_planted does not show exactly that problem's statements")
	}
	if after := snapshot(t, root); !maps.Equal(after, before) {
		t.Errorf("serving changed the store; want it read-only")
	}
}

// TestServeInBrowser watches the served page in headless Chromium while a
// command commits: the new event must show, and the issue asks within 2 s.
func TestServeInBrowser(t *testing.T) {
	ctx, pl := browser(t)
	root, srv := serveSession(t)
	log, err := os.ReadFile(filepath.Join(root, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	last := strings.Count(string(log), "\n")
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(fmt.Sprintf("#ev-%d", last))); err != nil {
		t.Fatal(err)
	}
	checkPage(t, ctx, root)
	plRun(t, "new-problem", "--name", "late", "--objective", "Show that $1 + 1 = 2$.", "--actor", "sol")
	committed := time.Now()
	// The wait is long, so that a slow machine reports its figure
	// instead of hanging; the assertion is the 2 s.
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Do(wctx, chromedp.WaitVisible(fmt.Sprintf("#ev-%d", last+1), chromedp.RetryInterval(10*time.Millisecond))); err != nil {
		t.Fatalf("event %d did not show within 10 s of its commit: %v", last+1, err)
	}
	took := time.Since(committed)
	t.Logf("commit -> visible in the served page: %v", took)
	if took > 2*time.Second {
		t.Errorf("the new event showed %v after its commit; the issue asks for 2 s", took)
	}
	checkPage(t, ctx, root) // the swapped-in content has its math rendered too
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#tree .id").length`))
	if err != nil || n != 11 {
		t.Errorf("the tree shows %d items (%v); want 11 with the new problem", n, err)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(artifacts(t), "serve.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
	errs, reqs := pl.snapshot()
	if len(errs) > 0 {
		t.Errorf("the page logged errors; want none:\n%s", strings.Join(errs, "\n"))
	}
	for _, r := range reqs {
		if !strings.HasPrefix(r, srv.URL+"/") {
			t.Errorf("the page requested %q; want only its own origin %s", r, srv.URL)
		}
	}
}

// TestServeCommand runs `proofloop serve` itself: it prints where it
// listens (on localhost by default), serves the page, and stops cleanly,
// exit 0, on SIGINT.
func TestServeCommand(t *testing.T) {
	session(t) // sets PROOFLOOP_ROOT
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"serve", "--addr", "127.0.0.1:0"}, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`^Serving the report of \S+ at (http://127\.0\.0\.1:[0-9]+/) \(read-only; Ctrl-C stops\)\.\n$`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("serve printed %q; want where it listens, on 127.0.0.1", line)
	}
	go io.Copy(io.Discard, pr)
	resp, err := http.Get(m[1])
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `id="st-stmt_sq_wrap_sub2"`) {
		t.Errorf("GET %s = %d; want 200 and the report", m[1], resp.StatusCode)
	}
	// An open event stream must not keep serve from stopping.
	ev, err := http.Get(m[1] + "events")
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Body.Close()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("serve exited %d on SIGINT; want 0", c)
		}
	case <-time.After(time.Minute): // hang protection only
		t.Fatal("serve did not stop on SIGINT")
	}
}
