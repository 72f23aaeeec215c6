package doctor

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"syscall"

	"github.com/proofloop/proofloop/store"

	"github.com/proofloop/proofloop/model"
)

// point is the content of store.PointFile.
type point struct {
	seq       int    // the last event the clean check verified
	hash      string // its hash
	size      int64  // the bytes of events.jsonl up to and with its line
	chainFrom int    // the first sealed seq (LogReport.ChainFrom)
	config    []byte // config.json as it was: the settings the log gave
	files     map[string]fileStamp
	index     map[string]uint64 // per item id, the digest of its index entries
	// checkersSize and checkersHash are the length and SHA-256 of
	// checkers.jsonl: the routine check holds that much of it unchanged.
	checkersSize int64
	checkersHash string
	// indexVersion is the index's version and policy (model.Policy.Key) when the digests
	// were taken: rows derived under others differ without damage.
	indexVersion string
}

// fileStamp is the stat fingerprint of one file. ctime is set by the kernel
// on every write, so a hand edit that restores size and mtime still shows.
type fileStamp struct {
	size, mtime, ctime int64
	ino                uint64
}

// stampOf is the fingerprint of a directory entry.
func stampOf(e fs.DirEntry) (fileStamp, bool) {
	info, err := e.Info()
	if err != nil {
		return fileStamp{}, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}, false
	}
	return fileStamp{size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: st.Ino}, true
}

// pointHeader names the format; a point of another version is no point
// (the next doctor is the full check, which records one of this version).
const pointHeader = "proofloop verified point 2"

// encode writes the point as lines, ending with the SHA-256 of the lines
// before it.
func (p *point) encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\nseq %d\nhash %s\nsize %d\nchain_from %d\nindex_version %s\nconfig %s\ncheckers %d %s\n", pointHeader, p.seq, p.hash, p.size, p.chainFrom,
		p.indexVersion, base64.StdEncoding.EncodeToString(p.config), p.checkersSize, p.checkersHash)
	for name, f := range p.files {
		fmt.Fprintf(&b, "f %d %d %d %d %s\n", f.size, f.mtime, f.ctime, f.ino, name)
	}
	for id, d := range p.index {
		fmt.Fprintf(&b, "i %016x %s\n", d, id)
	}
	sum := sha256.Sum256(b.Bytes())
	fmt.Fprintf(&b, "sum %s\n", hex.EncodeToString(sum[:]))
	return b.Bytes()
}

// decodePoint parses a point; any damage is an error (and a full check).
func decodePoint(raw []byte) (*point, error) {
	i := bytes.LastIndex(raw, []byte("sum "))
	if i < 0 || !bytes.HasSuffix(raw, []byte("\n")) {
		return nil, fmt.Errorf("no checksum")
	}
	sum := sha256.Sum256(raw[:i])
	if string(bytes.TrimSpace(raw[i+4:])) != hex.EncodeToString(sum[:]) {
		return nil, fmt.Errorf("the checksum does not match")
	}
	n := bytes.Count(raw, []byte("\n"))
	p := &point{files: make(map[string]fileStamp, n/2), index: make(map[string]uint64, n/2)}
	sc := bufio.NewScanner(bytes.NewReader(raw[:i]))
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() || sc.Text() != pointHeader {
		return nil, fmt.Errorf("not a verified point of this version")
	}
	for sc.Scan() {
		key, val, _ := strings.Cut(sc.Text(), " ")
		var err error
		switch key {
		case "seq":
			p.seq, err = strconv.Atoi(val)
		case "hash":
			p.hash = val
		case "size":
			p.size, err = strconv.ParseInt(val, 10, 64)
		case "chain_from":
			p.chainFrom, err = strconv.Atoi(val)
		case "index_version":
			p.indexVersion = val
		case "config":
			p.config, err = base64.StdEncoding.DecodeString(val)
		case "checkers":
			size, hash, _ := strings.Cut(val, " ")
			p.checkersSize, err = strconv.ParseInt(size, 10, 64)
			p.checkersHash = hash
		case "f":
			var f fileStamp
			fs := strings.SplitN(val, " ", 5)
			if len(fs) != 5 {
				return nil, fmt.Errorf("a file line has %d fields", len(fs))
			}
			for i, v := range []*int64{&f.size, &f.mtime, &f.ctime} {
				if *v, err = strconv.ParseInt(fs[i], 10, 64); err != nil {
					break
				}
			}
			if err == nil {
				f.ino, err = strconv.ParseUint(fs[3], 10, 64)
			}
			p.files[fs[4]] = f
		case "i":
			id, d, ok := strings.Cut(val, " ")
			var v uint64
			if v, err = strconv.ParseUint(id, 16, 64); err == nil && ok {
				p.index[d] = v
			}
		default:
			err = fmt.Errorf("unknown line %q", key)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", key, err)
		}
	}
	if p.seq < 0 || p.size < 0 || p.checkersSize < 0 || len(p.checkersHash) != 64 {
		return nil, fmt.Errorf("out of range")
	}
	return p, nil
}

// readPoint reads the last verified point; nil when there is none or it is
// damaged.
func (s *checker) readPoint() *point {
	raw, err := s.Root().ReadFile(store.PointFile)
	if err != nil {
		return nil
	}
	p, err := decodePoint(raw)
	if err != nil {
		return nil
	}
	return p
}

// writePoint records a clean check's point. A failure to write it is not
// damage: the next doctor is a full check.
func (s *checker) writePoint(p *point) {
	s.WriteDerived(store.PointFile, p.encode())
}

// pointDirs are the folders whose files the point fingerprints: every
// document, lease, kept revision and transcript.
func pointDirs() []string {
	return append(store.KindDirs(), store.LeaseDir, store.ProofsDir, model.TranscriptDir)
}
