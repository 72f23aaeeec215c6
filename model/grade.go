package model

import "slices"

// Grade says what stands behind a true statement or a solved problem
// (DESIGN.md, "Evidence"): derived over the dependency graph with
// fully_proved (Prover), never stored. A statement is no better than the
// weakest statement it relies on, save a kernel-checked one: its formal
// proof was checked whole, from nothing but permitted axioms, so what its
// written proof relies on does not weaken it.
type Grade string

// The grades, strongest first.
const (
	// GradeKernel: a formal statement a checker confirmed, and a formal
	// proof of it the engine's proof checker accepted.
	GradeKernel Grade = "kernel_checked"
	// GradeMeasured: confirmed by checkers whose catch rate is measured
	// (issue 33's level: Backing.Measured is its input).
	GradeMeasured Grade = "measured"
	// GradeAgents: the agents' word, and nothing more.
	GradeAgents Grade = "agents_word"
)

// Grades lists the grades, strongest first.
var Grades = []Grade{GradeKernel, GradeMeasured, GradeAgents}

// Text is the grade in words, for a person: how a statement's line shows it.
func (g Grade) Text() string {
	switch g {
	case GradeKernel:
		return "kernel-checked"
	case GradeMeasured:
		return "measured checkers"
	case GradeAgents:
		return "agents' word"
	}
	return ""
}

// ProblemText is a solved problem's grade in words: "formally verified"
// when every claim it rests on is kernel-checked.
func (g Grade) ProblemText() string {
	if g == GradeKernel {
		return "formally verified"
	}
	return g.Text()
}

// weaker reports whether a is a weaker grade than b.
func weaker(a, b Grade) bool { return slices.Index(Grades, a) > slices.Index(Grades, b) }

// Backing is what one statement's own grade comes from: each level of
// evidence is one input here, and Own the one place they are ranked.
type Backing struct {
	// Kernel: the statement's formal track is complete
	// (Statement.KernelChecked).
	Kernel bool `json:"kernel,omitempty"`
	// Measured: its confirmations came from measured checkers (set by the
	// measured-checkers level when it is there).
	Measured bool `json:"measured,omitempty"`
}

// Own is the grade of a true statement's own evidence.
func (e Backing) Own() Grade {
	switch {
	case e.Kernel:
		return GradeKernel
	case e.Measured:
		return GradeMeasured
	}
	return GradeAgents
}
