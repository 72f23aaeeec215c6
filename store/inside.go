package store

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Inside reports whether the path target lands inside the folder root once
// every symlink on either path is followed, as a write to target would
// follow them: a target that does not exist yet is resolved through its
// nearest existing parent, and a dangling symlink through what it names.
// Comparing the paths as written would let `-o link/events.jsonl`, with
// link pointing into the root, replace the store's files.
func Inside(root, target string) (bool, error) {
	r, err := resolvePath(root)
	if err != nil {
		return false, err
	}
	t, err := resolvePath(target)
	if err != nil {
		return false, err
	}
	return under(r, t), nil
}

// under reports whether the resolved path t is the resolved folder r or
// lies in it.
func under(r, t string) bool { return t == r || strings.HasPrefix(t, r+string(filepath.Separator)) }

// CheckOutput is the one check of every path a command writes to that a
// person names (report -o, export -o, export --to; the CLI runs it on each
// flag it marks as an output before the command runs): target must not
// land inside the contents root, symlinks followed (Inside), or the file
// written would replace the store's own (events.jsonl, a statement) behind
// its transactions; nor be the project's ProjectFile beside the root.
// what names the file for the message ("the report"),
// flag the flag for the hint ("-o"). A target it cannot resolve is refused
// too: invalid_input, exit 2, nothing written.
func CheckOutput(root, target, what, flag string) error {
	r, err := resolvePath(root)
	t, terr := resolvePath(target)
	if err = cmp.Or(err, terr); err != nil {
		return Errorf(CodeInvalidInput, "cannot write %s to %s", what, target).Wrap(err).
			WithHint("give " + flag + " a path that can be resolved, outside the contents root")
	}
	if pf, err := resolvePath(filepath.Join(filepath.Dir(filepath.Clean(root)), ProjectFile)); err == nil && t == pf {
		return projectFileRefusal(flag, target)
	}
	if under(r, t) {
		if abs, err := filepath.Abs(root); err == nil {
			root = abs
		}
		return Errorf(CodeInvalidInput, "cannot write %s to %s: it is inside the store %s", what, target, root).
			WithHint("give " + flag + " a path outside the contents root (symlinks are followed): only proofloop's transactions write the store's files")
	}
	return nil
}

// resolvePath is filepath.EvalSymlinks for a path that need not exist.
func resolvePath(p string) (string, error) {
	p, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	for hops := 0; hops < 64; hops++ {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return r, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		dir, base := filepath.Split(p)
		if fi, lerr := os.Lstat(p); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			// A dangling symlink: a write creates what it names.
			to, err := os.Readlink(p)
			if err != nil {
				return "", err
			}
			if !filepath.IsAbs(to) {
				to = filepath.Join(dir, to)
			}
			p = filepath.Clean(to)
			continue
		}
		if dir == p || dir == "" {
			return p, nil
		}
		parent, err := resolvePath(filepath.Clean(dir))
		if err != nil {
			return "", err
		}
		return filepath.Join(parent, base), nil
	}
	return "", errors.New("too many levels of symbolic links")
}
