package model

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func TestTopicSlug(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Is P = NP?", "is_p_np"},
		{"  --Tabs\tand\nlines--  ", "tabs_and_lines"},
		{"Ünïcode café 42", "unicode_cafe_42"},
		{"Cafe\u0301 42", "cafe_42"}, // a decomposed accent
		{"Straße, Æsir, Łódź", "strasse_aesir_lodz"},
		{"", "t" + slugHash("")},
		{"???", "t" + slugHash("???")},
		// Other scripts are transliterated (seed 001's topics are Chinese).
		{"Свобода воли", "svoboda_voli"},
		{"自由意志 vs determinism", "zi_you_yi_zhi_vs_determinism"},
		{"ελευθερία", "eleutheria"},
		{"हिन्दी", "hindii"},
		// A letter with no spelling (beyond the BMP) keeps the hash.
		{"𝗄𝗆 per hour", "per_hour_" + slugHash("𝗄𝗆 per hour")},
		{"𝗄𝗆", "t" + slugHash("𝗄𝗆")},
		{strings.Repeat("ab ", 30) + "𝗄", "ab_ab_ab_ab_ab_ab_ab_ab_ab_ab_a_" + slugHash(strings.Repeat("ab ", 30)+"𝗄")},
		{strings.Repeat("ab ", 30), "ab_ab_ab_ab_ab_ab_ab_ab_ab_ab_ab_ab_ab_a"},
		{strings.Repeat("x", 39) + " y", strings.Repeat("x", 39)},
	} {
		got := TopicSlug(c.in)
		if got != c.want {
			t.Errorf("TopicSlug(%q) = %q; want %q", c.in, got, c.want)
		}
		if _, err := KindOf(DebateID(got, 2)); err != nil || len(got) > maxSlugLen {
			t.Errorf("TopicSlug(%q) = %q (%d bytes): %v; want an id slug of at most %d bytes", c.in, got, len(got), err, maxSlugLen)
		}
	}
}

func TestFileSlug(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Is P = NP?", "is-p-np"},
		{"Свобода воли?", "свобода-воли"},
		{"自由意志 vs determinism", "自由意志-vs-determinism"},
		{"Straße oder Gasse: café à Łódź?", "straße-oder-gasse-café-à-łódź"},
		{"Cafe\u0301", "caf\u00e9"}, // NFC: one é, however it was typed
		{"हिन्दी ठीक है", "हिन्दी-ठीक-है"},
		{"???", "t" + slugHash("???")},
		{strings.Repeat("я", 50), strings.Repeat("я", 40)},
		{strings.Repeat("я", 39) + " b", strings.Repeat("я", 39)},
	} {
		if got := FileSlug(c.in); got != c.want {
			t.Errorf("FileSlug(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}

func slugHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

func TestDebateID(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{1, "deb_is_p_np"}, {2, "deb_is_p_np_2"}, {13, "deb_is_p_np_13"}} {
		got := DebateID("is_p_np", c.n)
		if got != c.want {
			t.Errorf("DebateID(is_p_np, %d) = %q; want %q", c.n, got, c.want)
		}
		if k, err := KindOf(got); k != KindDebate || err != nil {
			t.Errorf("KindOf(%q) = %s, %v; want debate", got, k, err)
		}
	}
	taken := []string{"deb_x", "deb_x_2"}
	if n := NextNumber(taken, func(n int) string { return DebateID("x", n) }); n != 3 {
		t.Errorf("NextNumber = %d; want 3", n)
	}
	for _, bad := range []string{"deb_", "deb_A", "debate_x", "deb_x-y"} {
		if _, err := KindOf(bad); err == nil {
			t.Errorf("KindOf(%q) = nil error; want one", bad)
		}
	}
	if got := Statuses(KindDebate); len(got) != 3 || got[0] != DebateOpen {
		t.Errorf("Statuses(debate) = %v; want open, completed, invalidated", got)
	}
}

func TestArtifactPath(t *testing.T) {
	if got := ArtifactPath("2026-11-23T09:00:00.5Z", "is_p_np"); got != ".debates/2026-11-23-is-p-np.md" {
		t.Errorf("ArtifactPath = %q", got)
	}
}

func TestNewDebate(t *testing.T) {
	d := NewDebate(&Agora, "Cache policy?", 1, "2026-11-23T09:00:00Z")
	if d.ID != "deb_cache_policy" || d.Status != DebateOpen || d.MaxTurns != 20 || d.TopicSlug != "cache_policy" ||
		d.Artifact != ".debates/2026-11-23-cache-policy.md" || d.Participants == nil || d.Turns == nil {
		t.Errorf("NewDebate = %+v", d)
	}
	for _, c := range []struct {
		topic        string
		n            int
		id, artifact string
	}{
		{"Cache policy?", 2, "deb_cache_policy_2", ".debates/2026-11-23-cache-policy-2.md"},
		{"自由意志", 1, "deb_zi_you_yi_zhi", ".debates/2026-11-23-自由意志.md"},
		{"自由意志", 3, "deb_zi_you_yi_zhi_3", ".debates/2026-11-23-自由意志-3.md"},
		{strings.Repeat("я", 45), 12, "deb_" + strings.Repeat("ia", 20) + "_12", ".debates/2026-11-23-" + strings.Repeat("я", 37) + "-12.md"},
	} {
		d := NewDebate(&Dialectic, c.topic, c.n, "2026-11-23T09:00:00Z")
		if d.ID != c.id || d.Artifact != c.artifact {
			t.Errorf("NewDebate(%q, %d): id %q, artifact %q; want %q, %q", c.topic, c.n, d.ID, d.Artifact, c.id, c.artifact)
		}
	}
}

func TestLookupProtocol(t *testing.T) {
	// The four seed protocols come first, in seed order; more may follow.
	if got := strings.Join(ProtocolNames(), ","); !strings.HasPrefix(got, "socratic,review,agora,dialectic") {
		t.Errorf("ProtocolNames = %s; want socratic,review,agora,dialectic first", got)
	}
	for _, p := range Protocols {
		got, err := LookupProtocol(p.Name)
		if err != nil || got != p {
			t.Errorf("LookupProtocol(%s) = %v, %v", p.Name, got, err)
		}
		if p.Limit.N < 1 || len(p.Fields) == 0 || p.Invalidated == "" || p.validate == nil || p.terminal == nil {
			t.Errorf("protocol %s is incomplete", p.Name)
		}
	}
	_, err := LookupProtocol("duel")
	wantTurnError(t, err, "protocol", `"duel" is not a protocol`)
}

func TestJoin(t *testing.T) {
	positions := func(d *Debate) {
		d.Positions = []Position{{"pro", "yes"}, {"con", "no"}, {"skeptic", "unsure"}}
	}
	for _, c := range []struct {
		p     *Protocol
		mut   []func(*Debate)
		roles []string
	}{
		{&Socratic, nil, []string{"participant", "participant"}},
		{&Review, nil, []string{RoleReviewer, RoleResponder}},
		{&Agora, []func(*Debate){positions}, []string{"pro", "con", "skeptic"}},
		{&Dialectic, nil, []string{RoleMain, RolePartner}},
	} {
		t.Run(c.p.Name, func(t *testing.T) {
			d := newDebate(c.p, c.mut...)
			var names []string
			for i := range c.roles {
				names = append(names, "n"+string(rune('a'+i)))
			}
			joinAll(t, c.p, d, names...)
			for i, p := range d.Participants {
				if p.Role != c.roles[i] || p.ParticipantID != "p"+string(rune('1'+i)) {
					t.Errorf("participant %d = %s %s; want p%d %s", i, p.ParticipantID, p.Role, i+1, c.roles[i])
				}
			}
			_, err := c.p.JoinRole(d)
			wantRefusal(t, err, "already has its")
			if got := d.ParticipantByName("nb"); got == nil || got.ParticipantID != "p2" {
				t.Errorf("ParticipantByName(nb) = %v; want p2", got)
			}
			if d.ParticipantByName("nobody") != nil {
				t.Errorf("ParticipantByName(nobody) found someone")
			}
			d.Status = DebateCompleted
			_, err = c.p.JoinRole(d)
			wantRefusal(t, err, "the debate is completed")
		})
	}
}

func TestCheckStart(t *testing.T) {
	for _, c := range []struct {
		name  string
		p     *Protocol
		mut   func(*Debate)
		field string
		frag  string
	}{
		{"socratic", &Socratic, func(*Debate) {}, "", ""},
		{"empty topic", &Socratic, func(d *Debate) { d.Topic = " " }, "topic", "non-empty topic"},
		{"zero max turns", &Review, func(d *Debate) { d.MaxTurns = 0 }, "max_turns", "at least 1"},
		{"dispute outside socratic", &Review, func(d *Debate) { d.About = &DisputeLink{"stmt_a", 1} }, "about", "only a socratic"},
		{"agora", &Agora, func(d *Debate) { d.Positions = []Position{{"pro", "a"}, {"con", "b"}} }, "", ""},
		{"agora one position", &Agora, func(d *Debate) { d.Positions = []Position{{"pro", "a"}} }, "positions", "at least 2"},
		{"agora duplicate role", &Agora, func(d *Debate) { d.Positions = []Position{{"pro", "a"}, {"pro", "b"}} }, "positions[1].role", "given twice"},
		{"agora bad role", &Agora, func(d *Debate) { d.Positions = []Position{{"Pro X", "a"}, {"con", "b"}} }, "positions[0].role", "not a role name"},
		{"agora mediator position", &Agora, func(d *Debate) { d.Positions = []Position{{"mediator", "a"}, {"con", "b"}} }, "positions[0].role", "mediator"},
		{"agora empty position", &Agora, func(d *Debate) { d.Positions = []Position{{"pro", ""}, {"con", "b"}} }, "positions[0].text", "required"},
		{"agora methodology", &Agora, func(d *Debate) {
			d.Positions = []Position{{"pro", "a"}, {"con", "b"}}
			d.Methodology = "vibes"
		}, "methodology", `"vibes" is not accepted`},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newDebate(c.p, c.mut)
			err := c.p.CheckStart(d)
			wantTurnError(t, err, c.field, c.frag)
		})
	}
	d := newDebate(&Agora, func(d *Debate) { d.Positions = []Position{{"pro", "a"}, {"con", "b"}} })
	if err := Agora.CheckStart(d); err != nil || d.Methodology != "opinion" {
		t.Errorf("CheckStart = %v, methodology %q; want nil and the default opinion", err, d.Methodology)
	}
}

func TestCheckClose(t *testing.T) {
	halfJoined := func() *Debate {
		d := newDebate(&Socratic)
		joinAll(t, &Socratic, d, "alice")
		return d
	}
	bothOpen := func() *Debate {
		d := halfJoined()
		joinAll(t, &Socratic, d, "bob")
		play(t, &Socratic, d, "p1", sTurn(StanceOpen, true))
		play(t, &Socratic, d, "p2", sTurn(StanceOpen, true))
		return d
	}
	for _, c := range []struct {
		name       string
		p          *Protocol
		d          *Debate
		outcome    string
		reason     string
		forTimeout bool
		refusal    string // "" when accepted
	}{
		{"timeout after a re-checked timeout claim", &Socratic, halfJoined(), SocraticTimeout, "", true, ""},
		{"timeout without the claim", &Socratic, halfJoined(), SocraticTimeout, "", false, "--for-timeout"},
		{"timeout once the peer joined", &Socratic, bothOpen(), SocraticTimeout, "", true, "all 2 participants joined"},
		{"invalidated with a reason", &Socratic, bothOpen(), SocraticInvalidated, "the source changed", false, ""},
		{"invalidated without a reason", &Socratic, bothOpen(), SocraticInvalidated, " ", false, "needs a reason"},
		{"consensus that does not hold", &Socratic, bothOpen(), SocraticAcceptedConsensus, "", false, "both participants' latest turns must be ACCEPTING_CONSENSUS"},
		{"dissent that does not hold", &Socratic, bothOpen(), SocraticDissent, "", false, "DISSENTING"},
		{"dialectic outcome needs a conclusion turn", &Dialectic, newDebate(&Dialectic), DialecticPartial, "", false, "conclusion turn"},
		{"review partial before the limit", &Review, newDebate(&Review), ReviewPartial, "", false, "at the round limit the last writer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.p.CheckClose(c.d, c.outcome, c.reason, c.forTimeout)
			if c.refusal == "" {
				if err != nil {
					t.Fatalf("CheckClose = %v; want nil", err)
				}
				return
			}
			wantRefusal(t, err, c.refusal)
		})
	}
	wantTurnError(t, Socratic.CheckClose(bothOpen(), "consensus", "", false), "outcome", `"consensus" is not an outcome of socratic`)
	closed := bothOpen()
	closed.Status = DebateCompleted
	wantRefusal(t, Socratic.CheckClose(closed, SocraticInvalidated, "x", false), "already completed")
	if Socratic.ClosedStatus(SocraticInvalidated) != DebateInvalidated || Agora.ClosedStatus(AgoraTimeout) != DebateCompleted {
		t.Errorf("ClosedStatus maps INVALIDATED to invalidated and the rest to completed")
	}
}

func TestAppendTurnAndSuggestions(t *testing.T) {
	d := newDebate(&Dialectic)
	joinAll(t, &Dialectic, d, "main", "partner")
	play(t, &Dialectic, d, "p1", DebateTurn{Body: "view"})
	play(t, &Dialectic, d, "p2", DebateTurn{Body: "challenge", Suggestions: []SuggestionInput{{"a"}, {"b"}}})
	play(t, &Dialectic, d, "p1", DebateTurn{Body: "view 2"})
	play(t, &Dialectic, d, "p2", DebateTurn{Body: "challenge 2", Suggestions: []SuggestionInput{{"c"}}})
	if got := len(d.Suggestions); got != 3 {
		t.Fatalf("%d suggestions; want 3", got)
	}
	for i, s := range d.Suggestions {
		wantTurn := []int{2, 2, 4}[i]
		if s.Number != i+1 || s.TurnNumber != wantTurn || s.State != SuggestionPending {
			t.Errorf("suggestion %d = %+v; want number %d, turn %d, pending", i, s, i+1, wantTurn)
		}
	}
	if err := d.DecideSuggestion(2, true, "ann", at0); err != nil {
		t.Fatalf("DecideSuggestion = %v", err)
	}
	if s := d.Suggestions[1]; s.State != SuggestionAccepted || *s.DecidedBy != "ann" || *s.DecidedAt != at0 {
		t.Errorf("suggestion 2 = %+v; want accepted by ann", s)
	}
	if err := d.DecideSuggestion(3, false, "bo", at0); err != nil || d.Suggestions[2].State != SuggestionRejected {
		t.Errorf("DecideSuggestion(3, reject) = %v, state %s; want rejected", err, d.Suggestions[2].State)
	}
	wantRefusal(t, d.DecideSuggestion(2, false, "bo", at0), "suggestion 2 was already accepted")
	wantTurnError(t, d.DecideSuggestion(4, true, "bo", at0), "suggestion", "suggestion 4 does not exist")
	for i, tt := range d.Turns {
		if tt.TurnNumber != i+1 || tt.At != at0 {
			t.Errorf("turn %d numbered %d at %q", i+1, tt.TurnNumber, tt.At)
		}
	}
}

func TestQuoteInSource(t *testing.T) {
	for _, c := range []struct {
		quote string
		want  bool
	}{
		{"The bound holds", true},
		{"It fails at zero.", true},
		{"It  fails\tat\n zero.", true},
		{"it fails at zero.", false},
		{"The bound holds for all m", false},
		{"   ", false},
	} {
		if got := QuoteInSource(c.quote, []byte(sourceText)); got != c.want {
			t.Errorf("QuoteInSource(%q) = %v; want %v", c.quote, got, c.want)
		}
	}
}

func TestParseTurn(t *testing.T) {
	tt, err := ParseTurn([]byte(`{"signal": "approve", "message": "ok", "confidence": 0.5, "target": null, "turn_number": 9, "participant_id": "p7", "role": "x", "at": "then"}`))
	if err != nil {
		t.Fatalf("ParseTurn = %v", err)
	}
	if tt.Signal != SignalApprove || *tt.Confidence != 0.5 || tt.Target != nil || tt.TurnNumber != 0 || tt.ParticipantID != "" || tt.Role != "" || tt.At != "" {
		t.Errorf("ParseTurn = %+v; want the signal, confidence and nil target, and no stamped fields", tt)
	}
	for _, c := range []struct{ in, frag string }{
		{`{"signal": "approve", "mood": "good"}`, `unknown field "mood"`},
		{`{"confidence": "high"}`, "cannot unmarshal"},
		{`{} {}`, "more than one JSON value"},
		{`[`, "not a turn"},
	} {
		_, err := ParseTurn([]byte(c.in))
		wantTurnError(t, err, "input", c.frag)
	}
}

func TestNoteFlags(t *testing.T) {
	d := newDebate(&Agora)
	if got := d.NoteFlags(Assessment{}, at0); got != nil || d.Flags != nil {
		t.Errorf("NoteFlags(nothing) = %v, flags %v; want nothing", got, d.Flags)
	}
	got := d.NoteFlags(Assessment{MediatorNeeded: true, CandidateConvergence: true}, at0)
	if strings.Join(got, ",") != "candidate_convergence,mediator_needed" || *d.Flags.MediatorNeededAt != at0 || d.Flags.SoftLimitReachedAt != nil {
		t.Errorf("NoteFlags = %v, flags %+v; want two new flags at %s", got, d.Flags, at0)
	}
	later := "2026-11-23T10:00:00Z"
	if got := d.NoteFlags(Assessment{MediatorNeeded: true, SoftLimitReached: true}, later); strings.Join(got, ",") != "soft_limit_reached" || *d.Flags.MediatorNeededAt != at0 {
		t.Errorf("NoteFlags again = %v, mediator at %s; want only the soft limit new, the first time kept", got, *d.Flags.MediatorNeededAt)
	}
}
