package skills

import (
	"io"
	"os"
	"strings"

	"github.com/proofloop/proofloop/store"
)

// ReadTextArgs resolves a text argument in place: "@-" reads standard
// input, "@FILE" reads the file, "@@..." stands for a literal text starting
// with "@", and anything else is the text itself.
func ReadTextArgs(stdin io.Reader, s *string) error {
	v := *s
	switch {
	case strings.HasPrefix(v, "@@"):
		*s = v[1:]
	case v == "@-":
		b, err := io.ReadAll(stdin)
		if err != nil {
			return store.Errorf(store.CodeInvalidInput, "read standard input").WithHint("pipe the text in, or give it inline")
		}
		*s = string(b)
	case strings.HasPrefix(v, "@"):
		b, err := os.ReadFile(v[1:])
		if err != nil {
			return store.Errorf(store.CodeInvalidInput, "cannot read text file %q: %v", v[1:], err).
				WithHint("@FILE reads a file, @- reads standard input, @@ starts a literal text with @")
		}
		*s = string(b)
	}
	return nil
}
