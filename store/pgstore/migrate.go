package pgstore

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The migrations are applied by this file rather than by a migration
// library: tern, which did it before, renders every migration as a Go
// template with sprig's functions, and linking sprig (semver, decimal,
// copystructure, ...) cost every command its package init at start. The
// bookkeeping is tern's, so a database tern migrated is read as it left it:
// one row in VersionTable holds the number of the last migration applied,
// the same advisory lock serialises two migrating processes, and each
// migration runs in its own transaction with the version update.

// migrationLock is tern's advisory lock number.
const migrationLock = int64(9628173550095224)

// migrationSplit separates a migration's up part from its down part.
const migrationSplit = "---- create above / drop below ----"

// migration is one file of migrations/: NNN_name.sql.
type migration struct {
	seq int32
	up  string
}

// loadMigrations reads migrations/ in order, each numbered one after the
// other from 1.
func loadMigrations() ([]migration, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var ms []migration
	for i, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		num, _, _ := strings.Cut(base, "_")
		n, err := strconv.Atoi(num)
		if err != nil || n != i+1 {
			return nil, fmt.Errorf("migration %s is not number %d", base, i+1)
		}
		raw, err := fs.ReadFile(migrations, name)
		if err != nil {
			return nil, err
		}
		up, _, _ := strings.Cut(string(raw), migrationSplit)
		ms = append(ms, migration{seq: int32(n), up: up})
	}
	return ms, nil
}

// migrate brings the database on conn up to the last migration.
func migrate(ctx context.Context, conn *pgx.Conn) (err error) {
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
		return err
	}
	defer func() {
		if _, uerr := conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", migrationLock); err == nil {
			err = uerr
		}
	}()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+VersionTable+`(version int4 NOT NULL);
		INSERT INTO `+VersionTable+`(version) SELECT 0 WHERE 0 = (SELECT count(*) FROM `+VersionTable+`)`); err != nil {
		return err
	}
	var v int32
	if err := conn.QueryRow(ctx, "SELECT version FROM "+VersionTable).Scan(&v); err != nil {
		return err
	}
	if v < 0 || int(v) > len(ms) {
		return fmt.Errorf("the database is at schema version %d, which this binary does not know (it knows 0 to %d)", v, len(ms))
	}
	for _, m := range ms[v:] {
		if err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.up); err != nil {
				return fmt.Errorf("migration %d: %w", m.seq, err)
			}
			_, err := tx.Exec(ctx, "UPDATE "+VersionTable+" SET version = $1", m.seq)
			return err
		}); err != nil {
			return err
		}
	}
	return nil
}
