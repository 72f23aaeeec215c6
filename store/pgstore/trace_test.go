package pgstore

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestReadTraceReadsTheTracer: what the tracer writes, ReadTrace reads
// back: a connection is counted and is not a round trip, a batch is one
// round trip of its statements, in the order they ended; Writes tells the
// commit's statements from the reads.
func TestReadTraceReadsTheTracer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	tr := tracer{path}
	ctx := context.Background()
	tr.TraceConnectEnd(tr.TraceConnectStart(ctx, pgx.TraceConnectStartData{ConnConfig: &pgx.ConnConfig{}}), pgx.TraceConnectEndData{})
	tr.TraceQueryEnd(tr.TraceQueryStart(ctx, nil, pgx.TraceQueryStartData{SQL: "SELECT content FROM files WHERE name = $1"}), nil, pgx.TraceQueryEndData{})
	batch := &pgx.Batch{}
	batch.Queue("INSERT INTO events VALUES ($1)")
	batch.Queue("COMMIT")
	tr.TraceBatchEnd(tr.TraceBatchStart(ctx, nil, pgx.TraceBatchStartData{Batch: batch}), nil, pgx.TraceBatchEndData{})
	got, err := ReadTrace(path)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"SELECT content FROM files WHERE name = $1"}, {"INSERT INTO events VALUES ($1)", "COMMIT"}}
	if got.Connects != 1 || got.Statements() != 3 || !slices.EqualFunc(got.RoundTrips, want, slices.Equal) {
		t.Errorf("ReadTrace = %+v; want 1 connection and the round trips %q", got, want)
	}
	if Writes(want[0][0]) || !Writes(want[1][0]) || !Writes("  with e AS (INSERT INTO x) SELECT 1") {
		t.Error("Writes does not tell an INSERT (or the sealing WITH) from a SELECT")
	}
}
