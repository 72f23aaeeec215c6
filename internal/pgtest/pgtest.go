// Package pgtest gives tests a throwaway PostgreSQL cluster: initdb in a
// temp directory, a server on a free port of 127.0.0.1, a fresh database
// per test (empty, or migrated: a clone of a template migrated once), and
// the stop/start pair that the server-kill fault tests need.
//
// One cluster serves a whole package run:
//
//	var cluster *pgtest.Cluster
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m, &cluster)) }
//
//	func TestX(t *testing.T) {
//		dsn := cluster.NewDB(t) // skips, loudly, when PostgreSQL is missing
//		...
//	}
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/proofloop/proofloop/store/pgstore"
)

// RequireEnv names the variable that turns a missing PostgreSQL from a
// skip into a failure, for CI that must run the PostgreSQL tests.
const RequireEnv = "PROOFLOOP_PG_REQUIRED"

// Cluster is a PostgreSQL cluster in a temp directory, owned by the test
// process (or by nobody, when the tests run as root: initdb refuses root).
type Cluster struct {
	Bin  string // the directory of initdb, pg_ctl, postgres
	Dir  string // the temp directory: data/, the socket, the server log
	Port int

	cred *syscall.Credential // nil unless the server runs as another user

	mu  sync.Mutex
	dbs int

	tmplOnce sync.Once // makes the template of CreateMigratedDB
	tmplErr  error

	drops  sync.WaitGroup // the DropDB calls under way
	dropMu sync.Mutex     // one drop at a time
}

// Main starts one cluster for the package's tests, stores it in *c, runs
// them and removes the cluster. When PostgreSQL cannot be found or
// installed it prints a banner and runs the tests with *c nil: NewDB then
// skips them (or fails them, when $PROOFLOOP_PG_REQUIRED is set).
func Main(m *testing.M, c **Cluster) int {
	cl, err := Start()
	if err != nil {
		Banner(err)
	} else {
		*c = cl
		defer cl.Remove()
	}
	return m.Run()
}

// Banner says loudly on stderr that the PostgreSQL tests will not run.
func Banner(err error) {
	line := strings.Repeat("!", 72)
	fmt.Fprintf(os.Stderr, "%s\n!!! NO POSTGRESQL: %v\n!!! The PostgreSQL store tests will be SKIPPED (set %s=1 to fail instead).\n%s\n",
		line, err, RequireEnv, line)
}

// Start finds PostgreSQL (installing it with apt-get when it is missing),
// makes a cluster in a new temp directory and starts it.
func Start() (*Cluster, error) {
	bin, err := BinDir()
	if err != nil {
		return nil, err
	}
	c := &Cluster{Bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			return nil, fmt.Errorf("running as root, and initdb refuses root: no user nobody to run it as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	c.sweep()
	if c.Dir, err = os.MkdirTemp("", "pgtest-"); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(c.Dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		os.RemoveAll(c.Dir)
		return nil, err
	}
	if c.cred != nil {
		if err := os.Chown(c.Dir, int(c.cred.Uid), int(c.cred.Gid)); err != nil {
			os.RemoveAll(c.Dir)
			return nil, err
		}
	}
	// -A trust: the server listens on 127.0.0.1 and on a socket inside
	// the temp directory only, so only this machine's users can connect.
	// --no-sync: a throwaway cluster need not survive a power cut while
	// it is being made; the server itself keeps fsync on.
	if err := c.run("initdb", "-D", c.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"); err != nil {
		os.RemoveAll(c.Dir)
		return nil, err
	}
	// A port picked free can be taken before the server binds it (other
	// test processes pick ports too): try a few.
	for try := 0; ; try++ {
		if c.Port, err = freePort(); err == nil {
			if err = c.configure(); err == nil {
				if err = c.Start(); err == nil {
					return c, nil
				}
			}
		}
		if try == 3 {
			os.RemoveAll(c.Dir)
			return nil, err
		}
	}
}

// ownerFile holds the pid of the test process that made a cluster.
const ownerFile = "owner.pid"

// sweep stops and removes the clusters of test processes that died
// without removing them (a killed `go test`, a timeout's panic): their
// servers would run on otherwise. A cluster whose owner lives is left.
func (c *Cluster) sweep() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "pgtest-*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(string(b))
		if err != nil || pid <= 0 || !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			continue
		}
		old := &Cluster{Bin: c.Bin, Dir: dir, cred: c.cred}
		if _, err := os.Stat(filepath.Join(old.data(), "postmaster.pid")); err == nil {
			if err := old.StopImmediate(); err != nil {
				continue // not ours to stop (another user's): leave it
			}
		}
		os.RemoveAll(dir)
	}
}

// BinDir finds the directory of PostgreSQL's server programs, installing
// the postgresql package with apt-get (as root, or through sudo -n) when
// none is found.
func BinDir() (string, error) {
	if dir := findBin(); dir != "" {
		return dir, nil
	}
	fmt.Fprintln(os.Stderr, "pgtest: no PostgreSQL found: installing it with apt-get install -y postgresql")
	if err := aptGet("install", "-y", "postgresql"); err != nil {
		// A machine that never ran apt-get update has no package lists.
		if err := aptGet("update"); err != nil {
			return "", fmt.Errorf("apt-get update: %w", err)
		}
		if err := aptGet("install", "-y", "postgresql"); err != nil {
			return "", fmt.Errorf("apt-get install -y postgresql: %w", err)
		}
	}
	if dir := findBin(); dir != "" {
		return dir, nil
	}
	return "", errors.New("apt-get installed postgresql, but no initdb was found in /usr/lib/postgresql/*/bin or pg_config --bindir")
}

// aptGet runs apt-get with args, through sudo -n when not root.
func aptGet(args ...string) error {
	name := "apt-get"
	if os.Geteuid() != 0 {
		name, args = "sudo", append([]string{"-n", "apt-get"}, args...)
	}
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

// findBin returns the newest /usr/lib/postgresql/<major>/bin that has
// initdb, else pg_config --bindir, else "".
func findBin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	major := func(d string) int {
		n, _ := strconv.Atoi(filepath.Base(filepath.Dir(d)))
		return n
	}
	slices.SortFunc(dirs, func(a, b string) int { return major(b) - major(a) })
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dirs = append(dirs, strings.TrimSpace(string(out)))
	}
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d
		}
	}
	return ""
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (c *Cluster) data() string { return filepath.Join(c.Dir, "data") }

// configure writes the server's settings into postgresql.auto.conf (the
// last file read, so its values win).
func (c *Cluster) configure() error {
	conf := fmt.Sprintf(`listen_addresses = '127.0.0.1'
port = %d
unix_socket_directories = '%s'
max_connections = 300
# The deadlock tests wait this long before one side is chosen and retried.
deadlock_timeout = '100ms'
`, c.Port, c.Dir)
	// Opened, not created: the file keeps its owner, the server's user.
	return os.WriteFile(filepath.Join(c.data(), "postgresql.auto.conf"), []byte(conf), 0o600)
}

// run runs one of the cluster's programs as the cluster's user.
func (c *Cluster) run(prog string, args ...string) error {
	cmd := exec.Command(filepath.Join(c.Bin, prog), args...)
	cmd.Dir = c.Dir
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w\n%s", prog, strings.Join(args, " "), err, out)
	}
	return nil
}

// Start starts the server and waits until it accepts connections: the
// first time, and again after Stop or StopImmediate. After an immediate
// stop this is crash recovery: the server replays its WAL.
func (c *Cluster) Start() error {
	return c.run("pg_ctl", "start", "-w", "-D", c.data(), "-l", filepath.Join(c.Dir, "server.log"))
}

// Stop shuts the server down cleanly (pg_ctl stop -m fast: open
// transactions are rolled back, the connections closed).
func (c *Cluster) Stop() error { return c.run("pg_ctl", "stop", "-w", "-m", "fast", "-D", c.data()) }

// StopImmediate kills the server without a shutdown checkpoint, as a
// crash would: what was committed must survive the next Start.
func (c *Cluster) StopImmediate() error {
	return c.run("pg_ctl", "stop", "-w", "-m", "immediate", "-D", c.data())
}

// Remove waits for the drops under way, stops the server and deletes the
// cluster's directory.
func (c *Cluster) Remove() {
	c.drops.Wait()
	c.Stop()
	os.RemoveAll(c.Dir)
}

// DSN is the connection string for database db, as the superuser
// postgres over TCP.
func (c *Cluster) DSN(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.Port, db)
}

var unsafeName = regexp.MustCompile(`[^a-z0-9_]+`)

// NewDB creates a fresh database for the test and returns its DSN. On a
// nil cluster (no PostgreSQL) it skips the test, or fails it when
// $PROOFLOOP_PG_REQUIRED is set.
func (c *Cluster) NewDB(t testing.TB) string {
	t.Helper()
	c.require(t)
	dsn, err := c.CreateDB(t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.DropDB(dsn) })
	return dsn
}

// require skips the test on a nil cluster (no PostgreSQL), or fails it
// when $PROOFLOOP_PG_REQUIRED is set.
func (c *Cluster) require(t testing.TB) {
	t.Helper()
	if c == nil {
		if os.Getenv(RequireEnv) != "" {
			t.Fatalf("no PostgreSQL cluster, and %s is set (see the banner above)", RequireEnv)
		}
		t.Skip("no PostgreSQL cluster (see the banner above)")
	}
}

// CreateDB creates a fresh, empty database named after label and returns
// its DSN.
func (c *Cluster) CreateDB(label string) (string, error) { return c.createDB(label, "template1") }

// templateDB is the database that CreateMigratedDB clones: migrated once
// per cluster, then closed to connections.
const templateDB = "proofloop_template"

// CreateMigratedDB creates a fresh database named after label that holds
// the store's tables (as pgstore.Migrate leaves them) and returns its DSN.
// The first call migrates a template database (once: a cluster belongs to
// one test process); each call clones it with CREATE DATABASE ... TEMPLATE,
// a copy of its blocks, where a migration per test cost a connection, an
// advisory lock and the migration's statements and commits. The migration
// itself stays tested on empty databases (pgstore's
// TestMigrateConcurrently, TestMigratedDBIsMigratedAndOwn, the `db migrate`
// before TestTamperCatalogPostgres's import).
func (c *Cluster) CreateMigratedDB(label string) (string, error) {
	c.tmplOnce.Do(func() { c.tmplErr = c.makeTemplate() })
	if c.tmplErr != nil {
		return "", c.tmplErr
	}
	return c.createDB(label, templateDB)
}

// NewMigratedDB is CreateMigratedDB for the test, skipping or failing it
// as NewDB does when there is no cluster.
func (c *Cluster) NewMigratedDB(t testing.TB) string {
	t.Helper()
	c.require(t)
	dsn, err := c.CreateMigratedDB(t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.DropDB(dsn) })
	return dsn
}

// DropDB drops the database of dsn, which a test is done with, in the
// background; Remove waits for it. Each database is some 300 files, and
// unlinking them on this machine's disk (ext4 mounted with discard) takes
// about 2 ms each: left to Remove, the 130 databases of a package run
// cost minutes of waiting at its end, where dropped one by one they cost
// a disk busy while the tests use the CPUs. A drop that fails (the
// server was stopped by a fault test) leaves the database to Remove.
func (c *Cluster) DropDB(dsn string) {
	u, err := url.Parse(dsn)
	if err != nil {
		return
	}
	name := strings.TrimPrefix(u.Path, "/")
	c.drops.Go(func() {
		c.dropMu.Lock()
		defer c.dropMu.Unlock()
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, c.DSN("postgres"))
		if err != nil {
			return
		}
		defer conn.Close(ctx)
		// FORCE: a session the test left open (a pool not yet closed)
		// is ended rather than failing the drop.
		conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
	})
}

// makeTemplate creates and migrates the template database, then forbids
// connections to it: CREATE DATABASE ... TEMPLATE fails while any session
// is connected to its template, and a test that connected by mistake
// would make every later clone fail.
func (c *Cluster) makeTemplate() error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return fmt.Errorf("connect to the test cluster: %w", err)
	}
	defer conn.Close(ctx)
	name := pgx.Identifier{templateDB}.Sanitize()
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return fmt.Errorf("create the template database: %w", err)
	}
	if err := pgstore.Migrate(c.DSN(templateDB)); err != nil {
		return fmt.Errorf("migrate the template database: %w", err)
	}
	// Migrate has closed its connection, but its server process may not
	// have exited yet: CREATE DATABASE waits up to 5 s for such a session.
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+name+" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"); err != nil {
		return fmt.Errorf("close the template database: %w", err)
	}
	return nil
}

// createDB creates a database named after label as a copy of template.
func (c *Cluster) createDB(label, template string) (string, error) {
	c.mu.Lock()
	c.dbs++
	n := c.dbs
	c.mu.Unlock()
	name := fmt.Sprintf("t%d_%s", n, unsafeName.ReplaceAllString(strings.ToLower(label), "_"))
	if len(name) > 63 { // PostgreSQL's identifier limit
		name = name[:63]
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.DSN("postgres"))
	if err != nil {
		return "", fmt.Errorf("connect to the test cluster: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" TEMPLATE "+pgx.Identifier{template}.Sanitize()); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return c.DSN(name), nil
}

// Shared is one cluster for a test binary, started by the first Get (so
// that a run of other tests costs nothing) and removed by Done, which
// TestMain calls after m.Run.
type Shared struct {
	once sync.Once
	c    *Cluster
	err  error
}

// Get starts the cluster on first use. When PostgreSQL cannot be found or
// installed it prints the banner once and returns the error.
func (s *Shared) Get() (*Cluster, error) {
	s.once.Do(func() {
		if s.c, s.err = Start(); s.err != nil {
			Banner(s.err)
		}
	})
	return s.c, s.err
}

// NewDB is Cluster.NewDB on the shared cluster: it skips the test (or
// fails it, with $PROOFLOOP_PG_REQUIRED) when there is no PostgreSQL.
func (s *Shared) NewDB(t testing.TB) string {
	t.Helper()
	c, _ := s.Get()
	return c.NewDB(t)
}

// NewMigratedDB is Cluster.NewMigratedDB on the shared cluster.
func (s *Shared) NewMigratedDB(t testing.TB) string {
	t.Helper()
	c, _ := s.Get()
	return c.NewMigratedDB(t)
}

// Done removes the cluster, if one was started.
func (s *Shared) Done() {
	if s.c != nil {
		s.c.Remove()
	}
}
