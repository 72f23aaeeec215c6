package pgstore

import (
	"context"
	"encoding/json"
	"os"

	"github.com/jackc/pgx/v5"
)

// TraceEnv is a test hook: a file to which every round trip this process
// makes to PostgreSQL is appended as one JSON line, {"sql": [...]}, the
// statements it sent (one, or a batch's), and every connection it opens as
// {"connect": ["DB"]}. The tests that count the statements, round trips
// and connections of commands through the real binary set it.
const TraceEnv = "PROOFLOOP_TEST_PG_TRACE"

// tracer appends the round trips to a file: a query is one, a batch one.
type tracer struct{ path string }

func (t tracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	t.write([]string{d.SQL})
	return ctx
}

func (tracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (t tracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	sql := make([]string, len(d.Batch.QueuedQueries))
	for i, q := range d.Batch.QueuedQueries {
		sql[i] = q.SQL
	}
	t.write(sql)
	return ctx
}

func (t tracer) TraceConnectStart(ctx context.Context, d pgx.TraceConnectStartData) context.Context {
	t.line("connect", []string{d.ConnConfig.Database})
	return ctx
}

func (tracer) TraceConnectEnd(context.Context, pgx.TraceConnectEndData) {}

func (tracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (tracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

// write appends one line in one write, so that the lines of processes
// tracing to the same file do not interleave.
func (t tracer) write(sql []string) { t.line("sql", sql) }

func (t tracer) line(key string, v []string) {
	line, _ := json.Marshal(map[string][]string{key: v})
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
