package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/schemas"
)

// Names of the files of a contents root besides the documents.
const (
	ConfigFile  = "config.json"
	EventsFile  = "events.jsonl"
	JournalFile = ".journal"
)

// DefaultLockTimeout is how long a transaction waits for the lock.
const DefaultLockTimeout = 10 * time.Second

// Store is a contents root opened for reading and transactions.
type Store struct {
	Dir         string
	LockTimeout time.Duration
	// Now is the clock; tests may replace it.
	Now func() time.Time
	// ExpectHead is a head hash of the event log that the user kept
	// elsewhere: doctor then reports damage unless the verified chain
	// passes through it (doctor --expect-head).
	ExpectHead string
	root       *os.Root
	projectDir string // the project folder, when not the parent of Dir (doctor's snapshot of a backend)

	cfgMu  sync.Mutex
	cfg    *Config
	cfgKey string    // size and modification time of the config.json cfg was read from
	cfgAt  time.Time // when a backend's cfg was read

	backend Backend     // nil for the file store
	walOK   atomic.Bool // walRecover found nothing to replay
}

// Open opens the contents root at dir. It fails with not_found when dir is
// not a contents root (no config.json).
func Open(dir string) (*Store, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, Errorf(CodeNotFound, "no contents root at %s", dir).WithHint("run `proofloop init --root " + dir + "` first")
	}
	if _, err := root.Stat(ConfigFile); err != nil {
		root.Close()
		return nil, Errorf(CodeNotFound, "%s is not a contents root: it has no %s", dir, ConfigFile).WithHint("run `proofloop init --root " + dir + "` first")
	}
	if err := checkFolders(root); err != nil {
		root.Close()
		return nil, err
	}
	return &Store{Dir: dir, LockTimeout: DefaultLockTimeout, Now: localNow, root: root}, nil
}

// checkFolders refuses a store whose folders (problem/, statement/, ...)
// os.Root cannot enter: a folder replaced by a symlink out of the root
// would otherwise fail the first command that touches it with a bare
// "path escapes from parent", as an internal error.
func checkFolders(root *os.Root) error {
	for _, d := range slices.Sorted(maps.Keys(exportDir)) {
		_, err := root.Stat(d)
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			continue
		}
		what := "cannot be read"
		if fi, lerr := root.Lstat(d); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			what = "is a symlink out of the contents root"
			if to, rerr := root.Readlink(d); rerr == nil {
				what += " (to " + to + ")"
			}
		}
		return (&Error{Code: CodeStoreDamaged, Msg: fmt.Sprintf("the folder %s/ %s", d, what), Err: err}).
			WithHint(fmt.Sprintf("a store's folders must be inside it: replace the link %s with the folder it names (move the files back), then run `proofloop doctor`", d))
	}
	return nil
}

// OpenBackend opens the store that b keeps. dir is this machine's folder
// for what is not shared (run logs); it is made when missing. It fails with
// not_found when b holds no store yet (no config.json).
func OpenBackend(dir string, b Backend) (*Store, error) {
	// The config and the clock in one round trip: a command's first.
	t0 := localNow()
	cfg, at, err := b.ReadFileNow(ConfigFile)
	if err != nil {
		return nil, err
	}
	// The backend's clock, as this machine's clock plus the offset
	// measured now: a query per reading would cost a connection of its own
	// while a transaction holds one. Transactions read the backend's clock
	// itself (BackendTx.Now), and that is what leases are written and
	// judged by inside them.
	offset := at.Sub(t0.Add(localNow().Sub(t0) / 2))
	if cfg == nil {
		return nil, Errorf(CodeNotFound, "%s holds no proofloop store yet", b).WithHint("run `proofloop init` with the same --store first")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, Errorf(CodeInvalidInput, "cannot create %s", dir).Wrap(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, Errorf(CodeInvalidInput, "cannot open %s", dir).Wrap(err)
	}
	s := &Store{Dir: dir, LockTimeout: DefaultLockTimeout, root: root, backend: b}
	s.Now = func() time.Time { return localNow().Add(offset) }
	// The config just read serves the command's first asks (Config): one
	// that does not parse is left for Config to refuse.
	if c, err := ParseConfig(cfg); err == nil {
		s.cfg, s.cfgAt = &c, time.Now()
	}
	return s, nil
}

// InitBackend writes a default config.json to b when it has none, and an
// empty index. It reports false when b already holds a store.
func InitBackend(b Backend) (bool, error) {
	raw, err := b.ReadFile(ConfigFile)
	if err != nil || raw != nil {
		return false, err
	}
	cfg, _ := json.MarshalIndent(DefaultConfig(), "", "  ")
	if err := schemas.Validate(schemas.Config, cfg); err != nil {
		return false, Errorf(CodeInternal, "default config").Wrap(err)
	}
	bt, err := b.Begin(BeginOptions{LockTimeout: DefaultLockTimeout})
	if err != nil {
		return false, err
	}
	defer bt.Rollback()
	if raw, err := bt.ReadFile(ConfigFile); err != nil || raw != nil {
		return false, err // initialised meanwhile
	}
	if _, err := bt.Commit([]Write{{Path: ConfigFile, Content: append(cfg, '\n')}}, nil); err != nil {
		return false, err
	}
	return true, nil
}

// Close releases the root, and the backend's connections.
func (s *Store) Close() error {
	if s.backend != nil {
		s.backend.Close()
	}
	return s.root.Close()
}

// Init creates a contents root at dir with problem/, statement/, an empty
// events.jsonl and a default config.json. It reports false when dir already
// is a contents root, which it leaves unchanged.
func Init(dir string) (bool, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, Errorf(CodeInvalidInput, "cannot create %s", dir).Wrap(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return false, Errorf(CodeInternal, "open %s", dir).Wrap(err)
	}
	defer root.Close()
	if _, err := root.Stat(ConfigFile); err == nil {
		return false, nil
	}
	for _, d := range []string{string(model.KindProblem), string(model.KindStatement), LeaseDir} {
		if err := root.Mkdir(d, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return false, Errorf(CodeInternal, "create %s", d).Wrap(err)
		}
	}
	f, err := root.OpenFile(EventsFile, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return false, Errorf(CodeInternal, "create %s", EventsFile).Wrap(err)
	}
	f.Close()
	cfg, _ := json.MarshalIndent(DefaultConfig(), "", "  ")
	if err := schemas.Validate(schemas.Config, cfg); err != nil {
		return false, Errorf(CodeInternal, "default config").Wrap(err)
	}
	// config.json last: its presence is what marks a finished root.
	if err := writeAtomic(root, ConfigFile, append(cfg, '\n')); err != nil {
		return false, Errorf(CodeInternal, "write %s", ConfigFile).Wrap(err)
	}
	if err := syncDir(root, "."); err != nil {
		return false, Errorf(CodeInternal, "sync %s", dir).Wrap(err)
	}
	s, err := Open(dir)
	if err != nil {
		return false, err
	}
	defer s.Close()
	_, err = s.Reindex() // an empty index, so that the first write need not build one
	return true, err
}

// Wrap sets the underlying error and returns e.
//
// A cause that a backend already classed as retry-later (a lost
// connection is conflict: it may or may not have taken effect; or
// lock_timeout) keeps its class and hint when wrapped as internal or as
// damage: exit 1 or 6 would tell an agent to stop over a network blip.
func (e *Error) Wrap(err error) *Error {
	e.Err = err
	if e.Code == CodeInternal || e.Code == CodeStoreDamaged {
		var se *Error
		if errors.As(err, &se) && (se.Code == CodeConflict || se.Code == CodeLockTimeout || se.Code == CodeStoreUnwritable) {
			e.Code, e.Hint = se.Code, se.Hint
		} else if se == nil && Unwritable(err) {
			e.Code, e.Msg, e.Hint = CodeStoreUnwritable, "the store's files may not be written here (permission denied)", UnwritableHint
			if errors.Is(err, syscall.EROFS) {
				e.Msg = "the store cannot be written here (a read-only file system)"
			}
		}
	}
	return e
}

// Unwritable reports whether err is the operating system's refusal to
// write (or to open for writing): a read-only file system, or permission
// denied. Such a store is not damaged: it is where this process may not
// write, and a sandbox (Codex's read-only one, a read-only mount, another
// user's files) is the usual cause.
func Unwritable(err error) bool {
	return errors.Is(err, syscall.EROFS) || errors.Is(err, fs.ErrPermission)
}

// UnwritableHint is what to do about a store this process may not write.
const UnwritableHint = "nothing was written; proofloop may not write the contents root here: a sandbox may be the cause " +
	"(an agent CLI's read-only sandbox must let the proofloop command out of it: `proofloop gen --cli CLI` writes that rule), " +
	"or a read-only mount, or files owned by another user; run it where it may write, or give it the permission"

// DocPath is the root-relative path of a document. The id must already have
// passed model.KindOf.
func DocPath(k model.Kind, id string) string { return k.Dir() + "/" + id + ".json" }

// ParseRef turns a document reference, a bare id or a path of a document
// file inside the root ("statement/stmt_x_wrap.json", or the same under the
// root's own path), into a checked id. Anything else is invalid input.
func (s *Store) ParseRef(ref string) (string, model.Kind, error) {
	return ParseRef(s.Dir, ref)
}

// ParseRef is Store.ParseRef for a root directory that need not be open.
func ParseRef(rootDir, ref string) (string, model.Kind, error) {
	id := ref
	if strings.ContainsAny(ref, "/\\") || strings.HasSuffix(ref, ".json") {
		// A path as the caller's shell sees it (absolute, or relative to
		// the working directory) that lies inside the root; else a path
		// relative to the root.
		rel := filepath.Clean(ref)
		absRoot, err1 := filepath.Abs(rootDir)
		absRef, err2 := filepath.Abs(rel)
		if err1 != nil || err2 != nil {
			return "", "", Errorf(CodeInvalidInput, "cannot resolve path %q", ref)
		}
		if r, err := filepath.Rel(absRoot, absRef); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
			rel = r
		} else if filepath.IsAbs(rel) {
			return "", "", Errorf(CodeInvalidInput, "path %q is not a document of the contents root %s: it lies outside it", ref, rootDir).
				WithHint("give a bare id such as stmt_x_wrap, or a path inside the root")
		}
		dir, file := filepath.Split(rel)
		if strings.HasPrefix(rel, "..") || (dir != "problem/" && dir != "statement/") || !strings.HasSuffix(file, ".json") {
			return "", "", Errorf(CodeInvalidInput, "path %q is not a document of the contents root %s", ref, rootDir).
				WithHint("give a bare id such as stmt_x_wrap, or a path like statement/stmt_x_wrap.json")
		}
		id = strings.TrimSuffix(file, ".json")
		k, err := model.KindOf(id)
		if err != nil {
			return "", "", &Error{Code: CodeInvalidInput, Msg: "bad document path", Err: err}
		}
		if k.Dir()+"/" != dir {
			return "", "", Errorf(CodeInvalidInput, "%s must live in %s/, not %s", id, k.Dir(), dir)
		}
		return id, k, nil
	}
	k, err := model.KindOf(id)
	if err != nil {
		return "", "", &Error{Code: CodeInvalidInput, Msg: "bad id", Err: err}
	}
	return id, k, nil
}

func damaged(path string, err error) *Error {
	// WithHint first: Wrap keeps a lost connection's own class and hint.
	return Errorf(CodeStoreDamaged, "%s is damaged", path).
		WithHint("run `proofloop doctor` to list every damaged file; repair it by hand or restore it from a backup").
		Wrap(err)
}

// List returns the ids of every document of kind k, sorted. It reads the
// folder, so only whole-store commands (status, next, doctor) call it.
func (s *Store) List(k model.Kind) ([]string, error) { return s.src().ListDocs(k) }

// LastSeq is the seq of the log's last event: the store's revision, as a
// cache of anything derived from the whole store keys it. It reads the end
// of the log (or the backend's counter), not the log.
func (s *Store) LastSeq() (int, error) {
	if s.backend != nil {
		seq, _, err := s.backend.Tail()
		return seq, err
	}
	if err := s.finishJournal(); err != nil {
		return 0, err
	}
	t, err := s.tail()
	return t.Seq, err
}

// OpenEvents opens events.jsonl for reading, once a leftover journal is
// finished (or a log from another boot replayed: see finishJournal).
func (s *Store) OpenEvents() (*os.File, error) {
	if err := s.finishJournal(); err != nil {
		return nil, err
	}
	f, err := s.root.Open(EventsFile)
	if err != nil {
		return nil, Errorf(CodeStoreDamaged, "open %s", EventsFile).Wrap(err)
	}
	return f, nil
}

// Root is the store's os.Root, for the run orchestrator's logs.
func (s *Store) Root() *os.Root { return s.root }
