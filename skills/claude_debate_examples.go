package skills

import "github.com/proofloop/proofloop/model"

// The worked examples of the debate files. TestClaudeDebateExamples runs
// each, as printed in its generated file, in an empty folder and checks that
// the debate ends as the file says; a turn that breaks its protocol fails
// there, since the engine validates it.

// turn is a turn of seat pid, written by the actor who holds it: a seat
// belongs to the actor who joined it.
func turn(id, pid, actor string) string {
	return "debate turn " + id + " --participant-id " + pid + " --actor " + actor + " --input -"
}

func wait(id, pid string) string {
	return "debate wait " + id + " --participant-id " + pid + " --timeout 5m"
}

var socraticExample = DebateExample{
	ID:      "deb_is_p_np",
	Outcome: model.SocraticAcceptedConsensus,
	Steps: []ExampleStep{
		{Args: "init"},
		{Note: "alice starts the debate and joins; bob joins in his own session", Args: "debate start --protocol socratic --topic 'Is P = NP?'"},
		{Args: "debate join deb_is_p_np --participant-name alice --actor alice"},
		{Args: "debate join deb_is_p_np --participant-name bob --actor bob"},
		{Note: "turn 1 (alice, p1)", Args: turn("deb_is_p_np", "p1", "alice"), Input: `{"stance": "OPEN_TO_DEBATE", "position": "P differs from NP.", "counterpoints": [{"addresses": "topic", "claim": "The question presumes a model of computation.", "support": [{"text": "Turing machines are the usual model."}]}], "agreements": ["The question is open."], "novel_argument": {"text": "Relativization barriers block simple proofs."}, "unresolved": [{"text": "Which barrier matters most?", "blocking": true}]}`},
		{Note: "bob waits for his turn (it is his now, so it returns at once), then writes turn 2", Args: wait("deb_is_p_np", "p2")},
		{Args: turn("deb_is_p_np", "p2", "bob"), Input: `{"stance": "ACCEPTING_CONSENSUS", "position": "P differs from NP is likely and unproved.", "counterpoints": [{"addresses": "turn-1", "claim": "Barriers say what fails, not what is true.", "support": [{"text": "Baker-Gill-Solovay gives oracles both ways."}]}], "agreements": ["Relativization is a real barrier."], "novel_argument": {"text": "Natural proofs are a second barrier."}, "unresolved": [{"text": "Whether GCT avoids both.", "blocking": false}]}`},
		{Note: "alice changes her stance, so she gives stance_revision_support; both latest turns now accept consensus with no blocking item", Args: wait("deb_is_p_np", "p1")},
		{Args: turn("deb_is_p_np", "p1", "alice"), Input: `{"stance": "ACCEPTING_CONSENSUS", "position": "P differs from NP is likely and unproved.", "counterpoints": [{"addresses": "turn-2", "claim": "Natural proofs apply to circuit lower bounds.", "support": [{"text": "Razborov-Rudich 1997."}]}], "agreements": ["It is unproved."], "novel_argument": {"text": "Algebrization is a third barrier."}, "unresolved": [{"text": "Whether GCT avoids all three.", "blocking": false}], "stance_revision_support": [{"text": "Turn 2 showed that barriers do not decide the question."}]}`},
		{Args: "debate list"},
	},
}

var reviewExample = DebateExample{
	ID:      "deb_review_the_lock_code",
	Outcome: model.ReviewConsensusOutcome,
	Steps: []ExampleStep{
		{Args: "init"},
		{Note: "the first session to join reviews, the second responds", Args: "debate start --protocol review --topic 'Review the lock code' --subject 'store/lock.go'"},
		{Args: "debate join deb_review_the_lock_code --participant-name rita --actor rita"},
		{Args: "debate join deb_review_the_lock_code --participant-name rob --actor rob"},
		{Note: "the review: numbered points", Args: turn("deb_review_the_lock_code", "p1", "rita"), Input: `{"points": [{"point": 1, "text": "The lock is not released on error."}, {"point": 2, "text": "The timeout is hard-coded."}]}`},
		{Note: "the response: one reply per point", Args: wait("deb_review_the_lock_code", "p2")},
		{Args: turn("deb_review_the_lock_code", "p2", "rob"), Input: `{"replies": [{"point": 1, "verdict": "agreed", "reasoning": "Yes, defer the unlock."}, {"point": 2, "verdict": "disagreed", "reasoning": "It is read from config."}]}`},
		{Note: "a follow-up on the point that is not agreed, and its reply", Args: turn("deb_review_the_lock_code", "p1", "rita"), Input: `{"follow_ups": [{"point": 2, "text": "Config is read after the lock is taken."}]}`},
		{Args: turn("deb_review_the_lock_code", "p2", "rob"), Input: `{"replies": [{"point": 2, "verdict": "agreed", "reasoning": "Right, read it first."}]}`},
		{Note: "every point is agreed: the reviewer's consensus turn closes the review", Args: turn("deb_review_the_lock_code", "p1", "rita"), Input: `{"consensus": {"agreed": [1, 2], "action_items": ["defer the unlock", "read the timeout first"], "disagreements": []}}`},
		{Args: "debate list"},
	},
}

var agoraExample = DebateExample{
	ID:      "deb_tabs_or_spaces",
	Outcome: model.AgoraConsensus,
	Steps: []ExampleStep{
		{Args: "init"},
		{Note: "one participant per position, in order: ann argues tabs, ben spaces", Args: "debate start --protocol agora --topic 'Tabs or spaces' --position 'tabs=Tabs are better' --position 'spaces=Spaces are better'"},
		{Args: "debate join deb_tabs_or_spaces --participant-name ann --actor ann"},
		{Args: "debate join deb_tabs_or_spaces --participant-name ben --actor ben"},
		{Args: turn("deb_tabs_or_spaces", "p1", "ann"), Input: `{"signal": "propose", "message": "Use tabs for indentation: each reader picks the width.", "confidence": 0.8, "target": null, "evidence": [{"source": "gofmt", "content": "gofmt indents with tabs.", "confidence": 0.9}]}`},
		{Note: "ben is convinced and approves the tabs proposal (never your own)", Args: wait("deb_tabs_or_spaces", "p2")},
		{Args: turn("deb_tabs_or_spaces", "p2", "ben"), Input: `{"signal": "approve", "message": "Fine: the width argument holds.", "confidence": 0.7, "target": "proposal-tabs"}`},
		{Note: "ann keeps her position: every last signal is approve or no-change, so the engine closes it", Args: wait("deb_tabs_or_spaces", "p1")},
		{Args: turn("deb_tabs_or_spaces", "p1", "ann"), Input: `{"signal": "no-change", "message": "I stay with tabs.", "confidence": 0.8}`},
		{Args: "debate list"},
	},
}

var dialecticExample = DebateExample{
	ID:      "deb_should_we_split_the_store_package",
	Outcome: model.DialecticConsensus,
	Steps: []ExampleStep{
		{Args: "init"},
		{Note: "you (main) start and join; the partner joins in its own session", Args: "debate start --protocol dialectic --topic 'Should we split the store package'"},
		{Args: "debate join deb_should_we_split_the_store_package --participant-name claude --actor claude"},
		{Args: "debate join deb_should_we_split_the_store_package --participant-name codex --actor codex"},
		{Args: "debate turn deb_should_we_split_the_store_package --participant-id p1 --actor claude --body 'The store has grown to 4000 lines; the index could be its own package.'"},
		{Note: "the partner's turn, with a suggestion that waits for consent", Args: wait("deb_should_we_split_the_store_package", "p2")},
		{Args: "debate turn deb_should_we_split_the_store_package --participant-id p2 --actor codex --body 'Split the index out, keep the journal.' --suggestion 'Move index*.go to store/index'"},
		{Note: "the user accepts the suggestion", Args: "decide deb_should_we_split_the_store_package --suggestion 1 --accept"},
		{Note: "main concludes, which closes the debate", Args: "debate turn deb_should_we_split_the_store_package --participant-id p1 --actor claude --body 'Agreed.' --conclusion consensus --conclusion-text 'Split the index into store/index; keep the journal.'"},
		{Args: "debate transcript deb_should_we_split_the_store_package"},
		{Args: "debate list"},
	},
}
