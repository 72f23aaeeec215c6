package pgstore

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// TraceEnv is a test hook: a file to which every round trip this process
// makes to PostgreSQL is appended as one JSON line once it ends,
// {"sql": [...], "at_ms": A, "ms": D}: the statements it sent (one, or a
// batch's), when it began in milliseconds since this package's init (about
// the process's start) and how long it took; and every connection it opens
// as {"connect": ["DB"], "at_ms": A, "ms": D}. The tests that count the
// statements, round trips and connections of commands through the real
// binary set it; the times show where a call's wall time goes.
const TraceEnv = "PROOFLOOP_TEST_PG_TRACE"

// started is when the process (near enough: this package's init) began.
var started = time.Now()

// tracer appends the round trips to a file: a query is one, a batch one.
type tracer struct{ path string }

// traced is what a round trip's start hands its end, in the context.
type traced struct {
	sql []string
	at  time.Time
}

type traceKey struct{}

func (tracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	return context.WithValue(ctx, traceKey{}, traced{[]string{d.SQL}, time.Now()})
}

func (t tracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	t.end(ctx, "sql")
}

func (tracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	sql := make([]string, len(d.Batch.QueuedQueries))
	for i, q := range d.Batch.QueuedQueries {
		sql[i] = q.SQL
	}
	return context.WithValue(ctx, traceKey{}, traced{sql, time.Now()})
}

func (tracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (t tracer) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchEndData) {
	t.end(ctx, "sql")
}

func (tracer) TraceConnectStart(ctx context.Context, d pgx.TraceConnectStartData) context.Context {
	return context.WithValue(ctx, traceKey{}, traced{[]string{d.ConnConfig.Database}, time.Now()})
}

func (t tracer) TraceConnectEnd(ctx context.Context, _ pgx.TraceConnectEndData) {
	t.end(ctx, "connect")
}

// end appends the round trip that ctx began as one line in one write, so
// that the lines of processes tracing to the same file do not interleave.
func (t tracer) end(ctx context.Context, key string) {
	d, ok := ctx.Value(traceKey{}).(traced)
	if !ok {
		return
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	line, _ := json.Marshal(map[string]any{key: d.sql, "at_ms": ms(d.at.Sub(started)), "ms": ms(time.Since(d.at))})
	f, err := os.OpenFile(t.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	f.Write(append(line, '\n'))
	f.Close()
}

var (
	_ pgx.QueryTracer   = tracer{}
	_ pgx.BatchTracer   = tracer{}
	_ pgx.ConnectTracer = tracer{}
)

// Trace is what a TraceEnv file holds: the round trips, each the
// statements it sent, in the order they ended, and the connections opened.
type Trace struct {
	RoundTrips [][]string
	Connects   int
}

// Statements counts the statements of every round trip.
func (t Trace) Statements() int {
	n := 0
	for _, rt := range t.RoundTrips {
		n += len(rt)
	}
	return n
}

// ReadTrace reads a TraceEnv file: the one reader of what tracer writes,
// for the tests and benchmarks that count.
func ReadTrace(path string) (Trace, error) {
	var t Trace
	raw, err := os.ReadFile(path)
	if err != nil {
		return t, err
	}
	for line := range strings.Lines(string(raw)) {
		var l struct{ SQL, Connect []string }
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			return t, fmt.Errorf("%s: %v", path, err)
		}
		t.Connects += len(l.Connect)
		if l.SQL != nil {
			t.RoundTrips = append(t.RoundTrips, l.SQL)
		}
	}
	return t, nil
}

var writeRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^\s*(INSERT|UPDATE|DELETE|WITH e AS \(INSERT)`) })

// Writes says whether a traced statement writes: the statements of a
// commit, which a call sends in its last round trip only.
func Writes(sql string) bool { return writeRe().MatchString(sql) }
