package report

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/proofloop/proofloop/loop"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// Handler serves the report of s (limited to problem unless "") live and
// read-only: GET / (and /index.html, and /<root problem>.html of a split
// report) renders the pages afresh from the store, and GET /events streams
// the seq of each new event as server-sent events, from the same code as
// `events --follow` (loop.Events, inotify), so the page reloads its <main>
// when the store changes. Nothing writes: any method but GET and HEAD gets
// 405, any other path 404.
func Handler(s *store.Store, problem string) http.Handler {
	return &handler{s: s, problem: problem}
}

type handler struct {
	s       *store.Store
	problem string
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "read-only: only GET and HEAD", http.StatusMethodNotAllowed)
		return
	}
	switch p := r.URL.Path; {
	case p == "/events":
		h.events(w, r)
	case p == "/" || strings.HasSuffix(p, ".html") && !strings.Contains(p[1:], "/"):
		h.page(w, r, strings.TrimPrefix(p, "/"))
	default:
		http.NotFound(w, r)
	}
}

// page renders one page of the report; a store error is shown as text with
// the status that best fits its contract code.
func (h *handler) page(w http.ResponseWriter, r *http.Request, name string) {
	if name == "" {
		name = "index.html"
	}
	if root := strings.TrimSuffix(name, ".html"); name != "index.html" {
		if k, err := model.KindOf(root); err != nil || k != model.KindProblem {
			http.NotFound(w, r)
			return
		}
	}
	d, err := Load(r.Context(), h.s, h.problem)
	if err != nil {
		status := http.StatusInternalServerError
		if store.CodeOf(err) == store.CodeNotFound {
			status = http.StatusNotFound
		}
		http.Error(w, err.Error(), status)
		return
	}
	o := Options{Live: true, Nonce: NewNonce(), MainOnly: r.URL.Query().Get("part") == "main"}
	b, ok, err := RenderOne(d, o, name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Security-Policy", CSP(o.Nonce)+"; frame-ancestors 'none'")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	if r.Method == http.MethodGet {
		_, _ = w.Write(b)
	}
}

// events sends "data: SEQ" for each event above ?since=, as it commits,
// until the client goes away or the server stops.
func (h *handler) events(w http.ResponseWriter, r *http.Request) {
	since, _ := strconv.Atoi(r.URL.Query().Get("since"))
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported here", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	if r.Method == http.MethodHead {
		return
	}
	_ = loop.Events(r.Context(), h.s, since, true, func(seq int, _ []byte) error {
		if _, err := fmt.Fprintf(w, "id: %d\ndata: %d\n\n", seq, seq); err != nil {
			return err
		}
		fl.Flush()
		return nil
	})
}

// Serve serves Handler on ln until ctx ends, then stops: the open event
// streams end with ctx (their requests' context derives from it), and the
// server waits a few seconds for the other requests.
func Serve(ctx context.Context, ln net.Listener, s *store.Store, problem string) error {
	srv := &http.Server{Handler: Handler(s, problem), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return store.Errorf(store.CodeInternal, "serve").Wrap(err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return store.Errorf(store.CodeInternal, "stop serving").Wrap(err)
	}
	return nil
}
