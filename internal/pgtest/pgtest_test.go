package pgtest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
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
