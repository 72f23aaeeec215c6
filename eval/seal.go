package eval

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/google/renameio/v2"
	"github.com/tidwall/gjson"

	"github.com/proofloop/proofloop/internal/seal"
	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// A canary's seal is one file in the seal folder (seal.Dir), under a
// folder named for the store: the item with its label, where it was put
// up, and which process put it up. It is written, and synced, before the
// canary's first document, and removed after the transaction that
// withdraws it: a canary in the store always has its seal, so a run or
// doctor after a kill -9 can tell it from real work. The store is named by
// its event log's first hash, which no later change alters and which a
// copy of the store keeps (a folder moved or a database dumped and
// restored still finds its seals).
type sealEntry struct {
	Token         string         `json:"token"`
	Problem       string         `json:"problem"`
	Statement     string         `json:"statement"`
	Role          model.Role     `json:"role"`
	Set           string         `json:"set"`
	Item          model.EvalItem `json:"item"`
	ProofRevision int            `json:"proof_revision"`
	PlantedAt     string         `json:"planted_at"`
	Run           string         `json:"run"`
	Host          string         `json:"host"`
	PID           int            `json:"pid"`
	// Start is the planting process's start time (/proc/PID/stat), so
	// that a dead run's PID reused by another process is not taken for
	// the run.
	Start string `json:"start"`
}

// sealBox is the seal folder of one store.
type sealBox struct{ dir string }

// storeKey names a store: 24 hex digits of its first event's hash; "" for
// a store with no event yet (it has no canary either). It reads that one
// line: a backend's log is not streamed for it.
func storeKey(s *store.Store) (string, error) {
	var first []byte
	if b := s.Backend(); b != nil {
		lines, err := b.EventLines([]int{1})
		if err != nil {
			return "", err
		}
		if len(lines) > 0 {
			first = lines[0]
		}
	} else {
		f, err := s.OpenEvents()
		if err != nil {
			return "", err
		}
		defer f.Close()
		first, _ = bufio.NewReader(f).ReadBytes('\n')
	}
	key := gjson.GetBytes(first, "hash").String()
	if len(key) < 24 {
		return "", nil
	}
	return key[:24], nil
}

// openSeal is s's seal folder; nil when s has no event yet.
func openSeal(s *store.Store) (*sealBox, error) {
	key, err := storeKey(s)
	if err != nil || key == "" {
		return nil, err
	}
	dir, err := seal.Dir()
	if err != nil {
		return nil, err
	}
	return &sealBox{filepath.Join(dir, key)}, nil
}

func (b *sealBox) path(token string) string { return filepath.Join(b.dir, token+".json") }

// put writes e durably: the file, then the folder's entry.
func (b *sealBox) put(e *sealEntry) error {
	if err := seal.MkdirAll(b.dir); err != nil {
		return err
	}
	raw, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return store.Errorf(store.CodeInternal, "encode a seal").Wrap(err)
	}
	if err := renameio.WriteFile(b.path(e.Token), append(raw, '\n'), 0o600); err != nil {
		return store.Errorf(store.CodeInternal, "write a seal in %s", b.dir).Wrap(err)
	}
	return syncDir(b.dir)
}

func (b *sealBox) remove(e *sealEntry) error {
	if err := os.Remove(b.path(e.Token)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return store.Errorf(store.CodeInternal, "remove a seal in %s", b.dir).Wrap(err)
	}
	return syncDir(b.dir)
}

// list reads every seal of the store, in file name order.
func (b *sealBox) list() ([]*sealEntry, error) {
	names, err := os.ReadDir(b.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, store.Errorf(store.CodeInternal, "read the seal folder %s", b.dir).Wrap(err)
	}
	var out []*sealEntry
	for _, n := range names {
		token, ok := strings.CutSuffix(n.Name(), ".json")
		if !ok || strings.HasPrefix(token, ".") {
			continue // renameio's temporary files
		}
		raw, err := os.ReadFile(filepath.Join(b.dir, n.Name()))
		if err != nil {
			return nil, store.Errorf(store.CodeInternal, "read a seal").Wrap(err)
		}
		var e sealEntry
		if err := json.Unmarshal(raw, &e); err != nil || e.Token != token {
			return nil, store.Errorf(store.CodeInternal, "the seal %s does not parse", filepath.Join(b.dir, n.Name())).
				WithHint("move it aside and run `proofloop doctor`: the canary it names, if any, then stays in the tree as real work")
		}
		out = append(out, &e)
	}
	return out, nil
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return store.Errorf(store.CodeInternal, "open %s", dir).Wrap(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return store.Errorf(store.CodeInternal, "sync %s", dir).Wrap(err)
	}
	return nil
}

func newToken() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// processStart is a process's start time in clock ticks since boot, from
// /proc (field 22 of stat); "" where there is none.
func processStart(pid int) string {
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	if i := bytes.LastIndexByte(raw, ')'); i >= 0 {
		if f := strings.Fields(string(raw[i+1:])); len(f) > 19 {
			return f[19]
		}
	}
	return ""
}

// alive reports whether the process that planted e may still settle it:
// it runs on this machine with the same start time. A seal of another
// machine (a seal folder shared between machines) is that machine's.
func (e *sealEntry) alive(host string) bool {
	if e.Host != host {
		return true
	}
	if err := syscall.Kill(e.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return e.Start == "" || processStart(e.PID) == e.Start
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return fmt.Sprintf("uid-%d", os.Getuid())
	}
	return h
}
