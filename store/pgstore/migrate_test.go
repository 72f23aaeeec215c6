package pgstore_test

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/proofloop/proofloop/store/pgstore"
)

// TestMigrateConcurrently: eight processes' worth of `db migrate` on one
// fresh database at once all succeed, the advisory lock lets each
// migration run once (a second CREATE TABLE of a migration would fail),
// and the version table holds one row at the last migration. Migrating
// again is a no-op.
func TestMigrateConcurrently(t *testing.T) {
	dsn := cluster.NewDB(t)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { errs[i] = pgstore.Migrate(dsn) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("migrate %d of 8 at once: %v", i, err)
		}
	}
	if err := pgstore.Migrate(dsn); err != nil {
		t.Fatalf("migrate again: %v", err)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var rows, version int
	if err := conn.QueryRow(ctx, "SELECT count(*), max(version) FROM "+pgstore.VersionTable).Scan(&rows, &version); err != nil {
		t.Fatal(err)
	}
	if rows != 1 || version < 1 {
		t.Errorf("%s holds %d rows at version %d; want 1 row at the last migration", pgstore.VersionTable, rows, version)
	}
	var tables int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_name IN ('documents','events','log_counter','files','index_kv')").Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 5 {
		t.Errorf("%d of the store's 5 tables exist after migrating", tables)
	}
}
