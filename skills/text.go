package skills

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/proofloop/proofloop/internal/seal"
	"github.com/proofloop/proofloop/store"
)

// Source reads what a command takes from outside its arguments: a text
// flag's @FILE or @-, the file or stdin of --input, and any later input
// file (debate turns). Every read stops at Max+1 bytes, so an endless pipe
// or /dev/zero costs at most that much memory before it is refused.
type Source struct {
	Stdin io.Reader
	// Max is config.json's max_input_bytes; the store must be open
	// before any input is read, so that its cap is known.
	Max int64
	// Literal, set for a call over MCP, makes every text argument the
	// text itself (no @FILE, no @-) and refuses a named input file: a
	// client names no file on the server's disk. Every flag that reads a
	// file reads it through Text, Texts, File or Path, so this one switch
	// covers them all.
	Literal bool
	// Project, set with Literal or Confined, is the folder that a path
	// argument must resolve inside (symlinks followed): the folder holding
	// the root.
	Project string
	// Confined, set for a CLI call where an agent may be acting (a run's
	// turn, a lease), keeps @FILE, a named input file and a path argument
	// inside Project, as over MCP; relative paths are read from the
	// working folder, as a shell would. A person's CLI reads any file.
	Confined bool
	// Sealed are config.json's canary sets: no file is read from them, nor
	// from the seal folder (seal.Guard), so that no command an agent may
	// run reads a canary's label.
	Sealed []string
}

// NewSource is the Source of a command on the store with config cfg.
func NewSource(stdin io.Reader, cfg store.Config) Source {
	src := Source{Stdin: stdin, Max: cfg.MaxInputBytes}
	if cfg.Canaries != nil {
		src.Sealed = cfg.Canaries.Sets
	}
	return src
}

// ReadCapped reads r to its end, or refuses with invalid_input (exit 2) as
// soon as it has read more than max bytes. what names the input in the
// message ("--input file.json", "standard input").
func ReadCapped(r io.Reader, max int64, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, store.Errorf(store.CodeInvalidInput, "cannot read %s: %v", what, err)
	}
	if int64(len(b)) > max {
		return nil, store.Errorf(store.CodeInvalidInput, "%s is larger than max_input_bytes (%d bytes); it was not read to its end", what, max).
			WithHint("give a shorter input, or raise max_input_bytes in config.json")
	}
	return b, nil
}

// File reads a named input, "-" being standard input. what names the
// input for messages ("--input", "text").
func (s Source) File(name, what string) ([]byte, error) {
	if s.Literal && name != "-" {
		return nil, store.Errorf(store.CodeInvalidInput, "%s %q: over MCP a tool reads no file", what, name).
			WithHint("give the content itself in the tool's arguments")
	}
	return s.file(name, what, "give a readable file, or - for standard input")
}

func (s Source) file(name, what, hint string) ([]byte, error) {
	if name == "-" {
		return ReadCapped(s.Stdin, s.Max, what+" from standard input")
	}
	if err := seal.Guard(name, s.Sealed); err != nil {
		return nil, err
	}
	if s.Confined {
		if _, err := s.confined(name, what); err != nil {
			return nil, err
		}
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, store.Errorf(store.CodeInvalidInput, "cannot read %s file %q: %v", what, name, err).WithHint(hint)
	}
	defer f.Close()
	return ReadCapped(f, s.Max, fmt.Sprintf("%s file %q", what, name))
}

// Text resolves the text argument v of parameter name (snake_case):
// "@-" reads standard input, "@FILE" reads the file, "@@..." stands for a
// literal text starting with "@", and anything else is the text itself.
// The text it returns has passed CheckValue: the one text check and the
// parameter's limit, for a file's content as for a text given whole.
func (s Source) Text(name, v string) (string, error) {
	switch {
	case s.Literal:
	case strings.HasPrefix(v, "@@"):
		v = v[1:]
	case strings.HasPrefix(v, "@"):
		b, err := s.file(v[1:], "text", "@FILE reads a file, @- reads standard input, @@ starts a literal text with @")
		if err != nil {
			return "", err
		}
		v = string(b)
	}
	return v, CheckValue(name, "--"+FlagName(name), v, s.Max)
}

// Texts resolves each text argument of a list of parameter name in place.
func (s Source) Texts(name string, vs []string) error {
	for i := range vs {
		v, err := s.Text(name, vs[i])
		if err != nil {
			return err
		}
		vs[i] = v
	}
	return nil
}

// Path checks a file path argument (such as a debate's --source). For a
// call over MCP it must resolve inside the project folder (Inside) and
// exist, and Path returns the resolved path; otherwise the path is returned
// as given.
func (s Source) Path(p, what string) (string, error) {
	if p == "" || !s.Literal && !s.Confined {
		return p, nil
	}
	if s.Confined {
		return s.confined(p, what)
	}
	p, err := s.Inside(p, what)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", store.Errorf(store.CodeInvalidInput, "cannot read %s file %q: %v", what, p, err).
			WithHint("give a file inside the project folder " + s.Project + ", as a path relative to it")
	}
	return real, nil
}

// confined is Inside for a CLI call in an agent's turn: a relative p is
// read from the working folder, as the shell that typed it would.
func (s Source) confined(p, what string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", store.Errorf(store.CodeInvalidInput, "%s %q: %v", what, p, err)
	}
	return s.Inside(abs, what)
}

// Inside is the check of every path a call over MCP names, read or
// written: p, taken from the project folder when relative, must resolve
// inside that folder with every symlink followed (a file not yet there
// through its nearest existing folder, as a write would follow them). It
// returns p made absolute; outside, or when it cannot tell, it refuses
// (invalid_input, exit 2). The MCP server runs it on every flag whose value
// is a FILE, PATH or DIR before a command runs, so a command that forgets
// to is still covered.
func (s Source) Inside(p, what string) (string, error) {
	project, err := filepath.EvalSymlinks(s.Project)
	if err != nil {
		return "", store.Errorf(store.CodeInvalidInput, "the project folder %s: %v", s.Project, err)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(project, p)
	}
	if in, err := store.Inside(project, p); err != nil || !in {
		return "", store.Errorf(store.CodeInvalidInput, "%s %q is outside the project folder %s (symlinks followed); over MCP and in an agent's turn proofloop reads and writes only inside it", what, p, project).
			WithHint("nothing was written; give a path inside the project folder, relative to it")
	}
	return p, nil
}
