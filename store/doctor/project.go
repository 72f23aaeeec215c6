package doctor

import (
	"bytes"
	"os"

	"github.com/proofloop/proofloop/store"

	"github.com/proofloop/proofloop/model"
	"github.com/tidwall/gjson"
)

// checkProjectArtifact rewrites a debate's missing or stale copy in the
// project folder (debate start --artifact), as doctor does the transcript.
func (s *checker) checkProjectArtifact(r *Report, name string, want []byte, bad findingFunc) {
	project, err := s.ProjectDir()
	if err != nil {
		bad("unreadable", name, 0, "cannot find the project folder: %v", err)
		return
	}
	root, err := os.OpenRoot(project)
	if err != nil {
		bad("unreadable", name, 0, "cannot open the project folder: %v", err)
		return
	}
	defer root.Close()
	if got, err := root.ReadFile(name); err == nil && bytes.Equal(got, want) {
		return
	}
	if err := s.WriteProjectFile(name, want); err != nil {
		bad("unreadable", name, 0, "cannot regenerate the project copy of the transcript: %v", err)
		return
	}
	r.Transcripts = append(r.Transcripts, name)
}

// checkProjectArtifacts is the routine check's look at the project copy of
// every debate it did not read (debate start --artifact): the copy lies
// outside the root, so no fingerprint of the point covers it, and an
// edited copy of an unchanged debate was left as it was (N14). Its bytes
// must be the debate's transcript under the root, which the point vouches
// for (a changed transcript makes the check read every debate); a missing
// or edited copy is rewritten, as the full check does.
func (s *checker) checkProjectArtifacts(r *Report, docs *docSet, bad findingFunc) {
	ids, _ := s.List(model.KindDebate)
	for _, id := range ids {
		if docs.debates[id] != nil {
			continue // read, and its copy checked, by checkDebates
		}
		raw, err := s.Root().ReadFile(store.DocPath(model.KindDebate, id))
		if err != nil {
			continue // a file gone is a change the routine check reports
		}
		f := gjson.GetManyBytes(raw, "project_artifact", "artifact")
		if f[0].Str == "" {
			continue
		}
		want, err := s.Root().ReadFile(f[1].Str)
		if err != nil {
			continue
		}
		s.checkProjectArtifact(r, f[0].Str, want, bad)
	}
}
