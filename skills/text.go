package skills

import (
	"fmt"
	"io"
	"os"
	"strings"

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
}

// NewSource is the Source of a command on the store with config cfg.
func NewSource(stdin io.Reader, cfg store.Config) Source {
	return Source{Stdin: stdin, Max: cfg.MaxInputBytes}
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
	return s.file(name, what, "give a readable file, or - for standard input")
}

func (s Source) file(name, what, hint string) ([]byte, error) {
	if name == "-" {
		return ReadCapped(s.Stdin, s.Max, what+" from standard input")
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, store.Errorf(store.CodeInvalidInput, "cannot read %s file %q: %v", what, name, err).WithHint(hint)
	}
	defer f.Close()
	return ReadCapped(f, s.Max, fmt.Sprintf("%s file %q", what, name))
}

// Text resolves a text argument: "@-" reads standard input, "@FILE" reads
// the file, "@@..." stands for a literal text starting with "@", and
// anything else is the text itself.
func (s Source) Text(v string) (string, error) {
	switch {
	case strings.HasPrefix(v, "@@"):
		return v[1:], nil
	case strings.HasPrefix(v, "@"):
		b, err := s.file(v[1:], "text", "@FILE reads a file, @- reads standard input, @@ starts a literal text with @")
		return string(b), err
	}
	return v, nil
}

// Texts resolves each text argument of a list in place.
func (s Source) Texts(vs []string) error {
	for i := range vs {
		v, err := s.Text(vs[i])
		if err != nil {
			return err
		}
		vs[i] = v
	}
	return nil
}
