package report

import (
	"bytes"
	"context"
	_ "embed"
	"html/template"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/store"
)

// serve's view of a run in progress, at /run: each agent's turn in flight
// (role, item, CLI, model, time so far), the leases and when they expire,
// the run's turns, tokens and cost against max_cost_usd, its failures and
// given-up agents, and the stuck items. Like the report it is read from
// the store (loop.RunLog folds the log's events, loop.RunLog.View adds the
// leases and the index), and the page swaps in its fresh <main> after each
// event. The log is folded once: each request adds only the events since
// the last one.

//go:embed run.tmpl
var runTmplText string

var runTmpl = sync.OnceValue(func() *template.Template { return template.Must(template.New("run").Parse(runTmplText)) })

// runState is serve's fold of the log.
type runState struct {
	s   *store.Store
	mu  sync.Mutex
	log *loop.RunLog
}

// view folds the events since the last request in and makes the view.
func (r *runState) view(ctx context.Context) (*loop.RunView, int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.log == nil {
		r.log = loop.NewRunLog()
	}
	if err := loop.Events(ctx, r.s, r.log.Seq, false, func(seq int, line []byte) error {
		r.log.Add(seq, line)
		return nil
	}); err != nil {
		return nil, 0, err
	}
	v, err := r.log.View(r.s)
	return v, r.log.Seq, err
}

// runPageData is what run.tmpl reads.
type runPageData struct {
	CSP, Nonce, Root, Now string
	Style                 template.CSS
	Script                template.JS
	Seq                   int
	V                     *loop.RunView
	Turns                 []liveTurnRow
	Leases                []liveLeaseRow
}

type liveTurnRow struct {
	loop.LiveTurn
	Elapsed string
}

type liveLeaseRow struct {
	loop.LiveLease
	ExpiresIn string
}

// RenderRun renders the run view (mainOnly: its <main>).
func RenderRun(root string, v *loop.RunView, seq int, nonce string, mainOnly bool) ([]byte, error) {
	d := runPageData{CSP: CSP(nonce), Nonce: nonce, Root: root, Now: v.Now.UTC().Format(time.RFC3339), Style: template.CSS(pageCSS),
		Script: template.JS(pageJS), Seq: seq, V: v}
	for _, t := range v.InFlight {
		d.Turns = append(d.Turns, liveTurnRow{t, t.Elapsed.Round(time.Second).String()})
	}
	for _, l := range v.Leases {
		d.Leases = append(d.Leases, liveLeaseRow{l, l.ExpiresIn.Round(time.Second).String()})
	}
	var b bytes.Buffer
	name := "run"
	if mainOnly {
		name = "main"
	}
	err := runTmpl().ExecuteTemplate(&b, name, d)
	return b.Bytes(), err
}

// runPage serves /run.
func (h *Handler) runPage(w http.ResponseWriter, r *http.Request) {
	v, seq, err := h.run.view(r.Context())
	if err != nil {
		status := http.StatusInternalServerError
		http.Error(w, err.Error(), status)
		return
	}
	nonce := NewNonce()
	b, err := RenderRun(h.run.s.Dir, v, seq, nonce, r.URL.Query().Get("part") == "main")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Security-Policy", CSP(nonce)+"; frame-ancestors 'none'")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	if r.Method == http.MethodGet {
		_, _ = w.Write(b)
	}
}
