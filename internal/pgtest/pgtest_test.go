package pgtest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/proofloop/proofloop/store/pgstore"
)

var cluster *Cluster

func TestMain(m *testing.M) { os.Exit(Main(m, &cluster)) }

// TestImmediateStopKeepsCommitted kills the server the way a crash would,
// with a transaction committed and another open, and starts it again: the
// committed row is there, the open transaction's row is not, and the
// database NewDB made is still reachable by its DSN.
func TestImmediateStopKeepsCommitted(t *testing.T) {
	dsn := cluster.NewDB(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE t (v text); INSERT INTO t VALUES ('committed')"); err != nil {
		t.Fatal(err)
	}
	open, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := open.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO t VALUES ('open')"); err != nil {
		t.Fatal(err)
	}

	if err := cluster.StopImmediate(); err != nil {
		t.Fatal(err)
	}
	if err := conn.Ping(ctx); err == nil {
		t.Errorf("Ping after StopImmediate = nil; want an error: the server should be down")
	}
	if err := cluster.Start(); err != nil {
		t.Fatal(err)
	}

	again, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect after restart: %v", err)
	}
	defer again.Close(ctx)
	rows, err := again.Query(ctx, "SELECT v FROM t ORDER BY v")
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "committed" {
		t.Errorf("rows after crash and restart = %q; want [committed]", got)
	}
}

// TestNewDBIsFresh checks that each test gets its own empty database.
func TestNewDBIsFresh(t *testing.T) {
	a, b := cluster.NewDB(t), cluster.NewDB(t)
	if a == b {
		t.Fatalf("NewDB twice = %s both times; want two databases", a)
	}
	ctx := context.Background()
	ca, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close(ctx)
	if _, err := ca.Exec(ctx, "CREATE TABLE only_in_a (v int)"); err != nil {
		t.Fatal(err)
	}
	cb, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close(ctx)
	var n int
	if err := cb.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("tables named only_in_a in the second database = %d; want 0", n)
	}
}

// TestSweepRemovesOrphans: a cluster whose test process died (here: its
// owner.pid names a process that has exited) is stopped and removed by
// the next sweep; the cluster of a live process is left alone.
func TestSweepRemovesOrphans(t *testing.T) {
	cluster.NewDB(t) // skips without PostgreSQL
	orphan, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer orphan.Remove()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(orphan.Dir, ownerFile), []byte(strconv.Itoa(gone.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	cluster.sweep()
	if _, err := os.Stat(orphan.Dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("orphan's directory after sweep: %v; want it removed", err)
	}
	ctx := context.Background()
	if conn, err := pgx.Connect(ctx, orphan.DSN("postgres")); err == nil {
		conn.Close(ctx)
		t.Errorf("the orphan's server still accepts connections after sweep")
	}
	if _, err := os.Stat(cluster.Dir); err != nil {
		t.Errorf("the live cluster's directory after sweep: %v; want it kept", err)
	}
}

// TestMigratedDBIsMigratedAndOwn: databases cloned at once from the
// template have the schema a migration of an empty database gives (every
// column of every table, and the version row), each its own: a row written
// in one is not in another; and the template accepts no connection, so no
// test can hold it open and make the next clone fail.
func TestMigratedDBIsMigratedAndOwn(t *testing.T) {
	fresh := cluster.NewDB(t)
	if err := pgstore.Migrate(fresh); err != nil {
		t.Fatal(err)
	}
	want := schema(t, fresh)
	dsns := make([]string, 4)
	errs := make([]error, len(dsns))
	var wg sync.WaitGroup
	for i := range dsns {
		wg.Go(func() { dsns[i], errs[i] = cluster.CreateMigratedDB(fmt.Sprint("clone", i)) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for _, dsn := range dsns {
		if got := schema(t, dsn); !slices.Equal(got, want) {
			t.Errorf("schema of the clone %s:\n%s\nwant, as Migrate leaves an empty database:\n%s", dsn, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
	ctx := context.Background()
	a, err := pgx.Connect(ctx, dsns[0])
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx)
	if _, err := a.Exec(ctx, "UPDATE log_counter SET seq = 42"); err != nil {
		t.Fatal(err)
	}
	b, err := pgx.Connect(ctx, dsns[1])
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(ctx)
	var seq int
	if err := b.QueryRow(ctx, "SELECT seq FROM log_counter").Scan(&seq); err != nil {
		t.Fatal(err)
	}
	if seq != 0 {
		t.Errorf("log_counter.seq of a second clone after an update in the first = %d; want 0", seq)
	}
	if conn, err := pgx.Connect(ctx, cluster.DSN(templateDB)); err == nil {
		conn.Close(ctx)
		t.Errorf("connect to the template %s succeeded; want it refused", templateDB)
	}
}

// schema lists the columns of the database's tables, its migration
// version and its log counter, one line each, in order.
func schema(t *testing.T, dsn string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT table_name || '.' || column_name || ' ' || data_type FROM information_schema.columns
		WHERE table_schema = 'public' 
		UNION ALL SELECT 'version ' || version FROM `+pgstore.VersionTable+`
		UNION ALL SELECT 'log_counter ' || seq || ' ' || hash FROM log_counter ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestDropDB: a database dropped while a session is still connected to it
// is gone once the drops are done, so Remove has nothing left to unlink.
func TestDropDB(t *testing.T) {
	dsn := cluster.NewMigratedDB(t)
	ctx := context.Background()
	open, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close(ctx)
	cluster.DropDB(dsn)
	cluster.drops.Wait()
	if conn, err := pgx.Connect(ctx, dsn); err == nil {
		conn.Close(ctx)
		t.Errorf("connect to %s after DropDB succeeded; want no such database", dsn)
	}
}
