// Package watchtest lets a test wait until processes watch the store for
// commits, instead of sleeping and hoping they do: a test of a waiter
// (debate wait, events --follow, serve's streams) commits once its
// waiters are watching, so that the commit is the one that wakes them.
//
// A waiter watches the file store with an inotify watch on events.jsonl,
// and PostgreSQL with LISTEN (see loop's watchStore and pgstore's Wait):
// Count sees the first in /proc (Linux, as inotify is) and the second in
// pg_stat_activity.
package watchtest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Count is the number of watches on the store: with dsn empty (the file
// store), the inotify watches that the processes pids hold; else the
// sessions of the database dsn that wait for a notification, whoever
// holds them.
func Count(dsn string, pids ...int) (int, error) {
	if dsn == "" {
		n := 0
		for _, pid := range pids {
			infos, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "fdinfo", "*"))
			for _, f := range infos {
				b, _ := os.ReadFile(f) // a descriptor closed meanwhile: no watch
				n += strings.Count(string(b), "inotify wd:")
			}
		}
		return n, nil
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	// pgstore's Wait runs LISTEN, reads the counter, then waits idle for
	// a notification: its session shows that read as its last query.
	var n int
	err = conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND state = 'idle' AND query = 'SELECT seq FROM log_counter'`).Scan(&n)
	return n, err
}

// Wait waits until Count(dsn, pids...) reaches n, and fails the test when
// a minute passes first (a bound against a hang, not a timing assertion).
func Wait(t testing.TB, n int, dsn string, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got, err := Count(dsn, pids...)
		if err != nil {
			t.Fatalf("count the store's watchers: %v", err)
		}
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d watches on the store after a minute; want %d", got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
