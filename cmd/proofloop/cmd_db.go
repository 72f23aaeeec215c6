package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/spf13/cobra"

	"github.com/proofloop/proofloop/skills"
	"github.com/proofloop/proofloop/store"
	"github.com/proofloop/proofloop/store/doctor"
	"github.com/proofloop/proofloop/store/pgstore"
)

// resolveStore settles which store the command uses: --store, else
// $PROOFLOOP_STORE (the flag's default), else "store" in proofloop.json
// beside the root, else the file store. A PostgreSQL store is passed on in
// $PROOFLOOP_STORE, so that the agents and hooks a command starts use it
// too.
func (a *app) resolveStore() error {
	if a.storeURL == "" {
		p := filepath.Join(filepath.Dir(filepath.Clean(a.root)), store.ProjectFile)
		raw, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return store.Errorf(store.CodeInvalidInput, "cannot read %s", p).Wrap(err)
		}
		if err == nil {
			var pf struct {
				Store string `json:"store"`
			}
			if err := json.Unmarshal(raw, &pf); err != nil {
				return store.Errorf(store.CodeInvalidInput, "%s is not a JSON object such as {\"store\": \"postgres://...\"}", p).Wrap(err)
			}
			a.storeURL = pf.Store
		}
	}
	if a.storeURL == "" {
		return nil
	}
	if !pgstore.IsDSN(a.storeURL) {
		return store.Errorf(store.CodeUsage, "--store takes a PostgreSQL URL (postgres://USER@HOST:PORT/DB), not %q", pgstore.Redact(a.storeURL)).
			WithHint("leave it out for the file store under --root")
	}
	os.Setenv("PROOFLOOP_STORE", a.storeURL)
	return nil
}

// openRoot opens the store the command uses: the file store under --root,
// or the PostgreSQL store of --store (then --root is this machine's folder
// for run logs).
func (a *app) openRoot() (*store.Store, error) {
	if a.storeURL == "" {
		return store.Open(a.root)
	}
	var b store.Backend
	var err error
	if a.backends != nil {
		b, err = a.backends.get(a.storeURL)
	} else {
		b, err = pgstore.Open(a.storeURL)
	}
	if err != nil {
		return nil, err
	}
	s, err := store.OpenBackend(a.root, b)
	if err != nil {
		b.Close()
		return nil, err
	}
	return s, nil
}

// backends keeps a PostgreSQL store open per URL for the life of a
// long-lived process, the MCP server: its calls, each a command of its own,
// share one pool and its connection instead of connecting each time.
type backends struct {
	mu   sync.Mutex
	open map[string]*pgstore.Store
}

func (bs *backends) get(dsn string) (store.Backend, error) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if b, ok := bs.open[dsn]; ok {
		return kept{b}, nil
	}
	b, err := pgstore.Open(dsn)
	if err != nil {
		return nil, err
	}
	if bs.open == nil {
		bs.open = map[string]*pgstore.Store{}
	}
	bs.open[dsn] = b
	return kept{b}, nil
}

// close closes every store kept open.
func (bs *backends) close() {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	for _, b := range bs.open {
		b.Close()
	}
	bs.open = nil
}

// kept is a shared store: a command's Close leaves it open for the next.
type kept struct{ *pgstore.Store }

func (kept) Close() error { return nil }

// needDSN refuses a command that only a PostgreSQL store has.
func (a *app) needDSN() error {
	if a.storeURL == "" {
		return store.Errorf(store.CodeUsage, "%s needs a PostgreSQL store: give --store postgres://USER@HOST:PORT/DB or set $PROOFLOOP_STORE", a.command)
	}
	return nil
}

func (a *app) dbCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "db",
		Short: "Manage the PostgreSQL store's tables",
	}
	c.AddCommand(&cobra.Command{
		Use:   "migrate",
		Short: "Create or upgrade the PostgreSQL store's tables (run once, as a role that may create tables)",
		Long: "db migrate brings the tables of the database that --store names up to this binary's schema,\n" +
			"with jackc/tern. It is safe to run again, and from several machines at once (tern holds an\n" +
			"advisory lock). Agents then need only DML on the tables: see docs/postgres.md.",
		Example: "  proofloop db migrate --store postgres://admin@db.example/proofs",
		Args:    noArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := a.needDSN(); err != nil {
				return err
			}
			if err := pgstore.Migrate(a.storeURL); err != nil {
				return err
			}
			b, err := pgstore.Open(a.storeURL)
			if err != nil {
				return err
			}
			defer b.Close()
			return a.ok(&skills.Result{Text: fmt.Sprintf("The tables of %s are up to date.", b),
				Extra: map[string]any{"store": b.String(), "migrated": true}})
		},
	})
	return c
}

func (a *app) importCommand() *cobra.Command {
	var from string
	c := &cobra.Command{
		Use:   "import --from DIR",
		Short: "Load a file store into an empty PostgreSQL store: the same documents, files and events",
		Long: "import loads the file store at DIR (which must pass doctor) into the PostgreSQL store of\n" +
			"--store, which must be migrated and empty, in one transaction: every document, lease, kept\n" +
			"proof revision, transcript, config.json and event line byte for byte, so the hash chain goes\n" +
			"on. The index is then built, and doctor checks the result. `export --to DIR` is the way back.",
		Example: "  proofloop import --from contents --store postgres://agent@db.example/proofs",
		Args:    noArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := a.needDSN(); err != nil {
				return err
			}
			if from == "" {
				return store.Errorf(store.CodeUsage, "import needs --from DIR").WithHint("e.g. --from contents")
			}
			b, err := pgstore.Open(a.storeURL)
			if err != nil {
				return err
			}
			ir, err := store.Import(b, from, doctor.Passes)
			b.Close()
			if err != nil {
				return err
			}
			return a.withStore(func(s *store.Store) error {
				r, err := doctor.Full(s)
				if err != nil {
					return err
				}
				out := map[string]any{"import": ir, "report": r}
				if len(r.Findings) > 0 {
					err := store.Errorf(store.CodeStoreDamaged, "the imported store is damaged: %s", plural(len(r.Findings), "finding", "findings"))
					return &withReport{err, out, r}
				}
				if a.json {
					out["ok"], out["command"] = true, "import"
					return a.writeJSON(out)
				}
				fmt.Fprintf(a.stdout, "Imported %s, %s and %s from %s into %s, up to seq %d.\n",
					plural(ir.Documents, "document", "documents"), plural(ir.Files, "file", "files"), plural(ir.Events, "event", "events"), from, ir.Into, ir.LastSeq)
				fmt.Fprintf(a.stdout, "doctor on %s: consistent; log verified to seq %d.\n", ir.Into, r.Log.VerifiedSeq)
				return nil
			})
		},
	}
	c.Flags().StringVar(&from, "from", "", "the file store's `DIR` (a contents root)")
	return c
}
