package model

// Sources of a CheckerRecord.
const (
	RecordCanary = "canary" // a canary settled in a live run
	RecordEval   = "eval"   // an eval run's figures for one agent
)

// RecordSources lists them (the schema's enum).
var RecordSources = []string{RecordCanary, RecordEval}

// CheckerRecord is one line of checkers.jsonl, derived from the event that
// wrote it (a canary-settle or an eval event carries the same record): one
// party's figures on labelled items. The party is the agent of config.json
// and its model label, as a run's lease records them; a record with
// neither measures nobody the quorum rule can name.
type CheckerRecord struct {
	Source string `json:"source"`
	At     string `json:"at"`
	Role   Role   `json:"role"`
	AgentLabel
	// Label is how people know the agent when config.json names it not:
	// its command's program, as `run` shows it.
	Label  string `json:"label,omitempty"`
	Actor  string `json:"actor,omitempty"`
	Set    string `json:"set"`
	Counts Counts `json:"counts"`
	// Canary is the settled canary's own record; nil for an eval's.
	Canary *CanaryRecord `json:"canary,omitempty"`
}

// CanaryRecord is what a settled canary was and what became of it.
type CanaryRecord struct {
	Item            string `json:"item"`
	Label           string `json:"label"`
	Category        string `json:"category,omitempty"`
	FlawedSentences []int  `json:"flawed_sentences,omitempty"`
	// Problem and Statement are the ids it had in the tree, now withdrawn.
	Problem   string `json:"problem"`
	Statement string `json:"statement"`
	Verdict   string `json:"verdict"`
	Located   bool   `json:"located,omitempty"`
	PlantedAt string `json:"planted_at"`
	Run       string `json:"run,omitempty"`
	// Recovered is set when the run that planted it ended before it settled
	// it (killed): the next run or doctor settled it from the statement.
	Recovered bool `json:"recovered,omitempty"`
}
