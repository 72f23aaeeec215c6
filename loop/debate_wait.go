package loop

import (
	"context"
	"time"

	"github.com/proofloop/proofloop/model"
	"github.com/proofloop/proofloop/store"
)

// CodeTimeout is `debate wait`'s error code when its time runs out (exit 5).
const CodeTimeout store.Code = "timeout"

// WaitDebate blocks until it is participantID's turn on the debate or the
// debate is closed, and returns its state then. It watches events.jsonl
// with inotify (every commit appends one line), and re-reads the debate
// only when the log changed: no sleep loop, no checksum. At timeout (0:
// none) it returns a CodeTimeout error (exit 5). Any number of
// waiters may run at once; each holds only an inotify watch.
func WaitDebate(ctx context.Context, s *store.Store, id, participantID string, timeout time.Duration) (*DebateResult, error) {
	// Watch before the first read, so a commit in between still wakes us.
	w, err := watchStore(s)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	for {
		d, r, err := ShowDebate(s, id)
		if err != nil {
			return nil, err
		}
		if participantID != model.ParticipantUser && d.ParticipantByID(participantID) == nil {
			return nil, store.Errorf(store.CodeInvalidInput, "%q is not a participant of %s", participantID, id).
				WithHint("`proofloop debate join` gives the participant id")
		}
		if r.WhoseTurn.Closed || r.WhoseTurn.ParticipantID == participantID || participantID == model.ParticipantUser {
			r.ParticipantID = participantID
			if p := d.ParticipantByID(participantID); p != nil {
				r.Role = p.Role
			}
			return r, nil
		}
		select {
		case <-ctx.Done():
			return nil, store.Errorf(CodeTimeout, "debate wait on %s was interrupted", id)
		case <-expired:
			return nil, store.Errorf(CodeTimeout, "timeout: it is still not %s's turn on %s after %s (%s)", participantID, id, timeout, model.DebateTurnOf(d).Reason).
				WithHint("wait again, or close the debate")
		case _, ok := <-w.c:
			if !ok {
				return nil, store.Errorf(store.CodeInternal, "the watch on %s ended", store.EventsFile)
			}
		}
	}
}
