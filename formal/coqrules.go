package formal

import (
	"fmt"
	"slices"
	"strings"
)

// Refusal is a formal text refused before any run, with the line and the
// words that refuse it quoted.
type Refusal struct {
	Line   int
	Reason string
}

func (r *Refusal) Error() string { return fmt.Sprintf("line %d: %s", r.Line, r.Reason) }

// unproved are the words that leave a proof unfinished or assume what it
// should prove: comparator's list, and their plurals and Coq's other
// spellings of the same.
var unproved = []string{"Admitted", "admit", "give_up", "Axiom", "Axioms", "Parameter", "Parameters",
	"Conjecture", "Conjectures", "Hypothesis", "Hypotheses"}

// outside are the words of commands that read or write files, load code,
// leave the checker or undo what the engine's check file declares: refused
// anywhere in a text, as Coq does not let a command's name be anything but
// its keyword there. Load reads a file, Redirect writes one, Extraction
// writes OCaml files (and TestCompile runs a compiler), Cd moves the
// working folder, Drop leaves for an OCaml toplevel, Declare ML Module and
// Add ML Path load native code, Add LoadPath widens what Require reads,
// Write/Restore State write and read a state file, Reset/Back/BackTo undo
// declarations, Quit stops before the engine's check, Register rebinds the
// kernel's primitives, and bypass_check turns the kernel's checks off.
var outside = []string{"Load", "Redirect", "Extraction", "Extract", "Cd", "Drop", "ML", "LoadPath", "Write", "Restore",
	"Reset", "Back", "BackTo", "Quit", "Register", "bypass_check", "Separate"}

// unsafeOptions are the options whose unsetting makes the kernel accept
// what it should not (non-terminating fixpoints, non-positive inductives,
// universe inconsistencies).
var unsafeOptions = []string{"Guard", "Positivity", "Universe"}

// theoremWords start the declarations a formal statement's theorem may use.
var theoremWords = []string{"Theorem", "Lemma", "Fact", "Remark", "Corollary", "Proposition", "Property", "Example"}

// declWords start a declaration that can name a formal proof's theorem.
var declWords = append(slices.Clone(theoremWords), "Definition", "Fixpoint", "CoFixpoint", "Instance", "Let")

// Reserved is the prefix of the names the engine's check file declares
// (its modules and its check): a text that names one is refused, so that
// it cannot close the engine's module or stand in for its check.
const Reserved = "proofloop_"

// scan splits src and refuses what no formal text may hold: the outside
// words, unsafe options, a string after Require or From (a file path), and
// a reserved name.
func scan(src string) ([]sentence, error) {
	ss, err := sentences(src)
	if err != nil {
		return nil, err
	}
	for _, s := range ss {
		if err := refuseSentence(s); err != nil {
			return nil, err
		}
	}
	return ss, nil
}

func refuseSentence(s sentence) error {
	for i, w := range s.words {
		switch {
		case w.str && i > 0 && (s.words[i-1].text == "Require" || s.words[i-1].text == "From" || s.words[i-1].text == "Import"):
			return &Refusal{w.line, fmt.Sprintf("%s %q names a file: require a library by its logical name (Require Import Arith.)", s.words[i-1].text, w.text)}
		case !w.ident():
			continue
		case slices.Contains(outside, w.last()):
			return &Refusal{w.line, fmt.Sprintf("%q reads or writes files, loads code or undoes the check; it is refused before any run", w.text)}
		case strings.HasPrefix(strings.ToLower(w.text), Reserved):
			return &Refusal{w.line, fmt.Sprintf("%q: names starting with %s are the engine's", w.text, Reserved)}
		}
	}
	if head := command(s); head == "Unset" || head == "Set" {
		for i, w := range s.words[:len(s.words)-1] {
			if slices.Contains(unsafeOptions, w.text) && s.words[i+1].text == "Checking" {
				return &Refusal{s.line, fmt.Sprintf("%s %s Checking changes a check of the kernel; it is refused", head, w.text)}
			}
		}
	}
	return nil
}

// command is a sentence's command keyword: its first word after bullets,
// braces, a goal selector (2: or all:), attributes (#[...]) and the
// prefixes that qualify a command (Local, Fail, Time...).
func command(s sentence) string {
	ws := s.words
	for len(ws) > 0 {
		w := ws[0]
		switch {
		case !w.str && strings.Contains("-+*{}", w.text):
			ws = ws[1:]
		case len(ws) > 1 && ws[1].text == ":" && (w.text == "all" || isNumber(w.text)):
			ws = ws[2:]
		case w.text == "#" && len(ws) > 1 && ws[1].text == "[":
			j := slices.IndexFunc(ws, func(x word) bool { return x.text == "]" })
			if j < 0 {
				return ""
			}
			ws = ws[j+1:]
		case slices.Contains(prefixes, w.text):
			ws = ws[1:]
		case w.text == "Timeout" && len(ws) > 1:
			ws = ws[2:]
		default:
			return w.text
		}
	}
	return ""
}

// prefixes qualify the command after them.
var prefixes = []string{"Local", "Global", "Polymorphic", "Monomorphic", "Cumulative", "NonCumulative",
	"Private", "Program", "Fail", "Succeed", "Time", "Instructions", "Profile"}

func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// declared is the name a declaration sentence declares, when its command
// is one of words ("" otherwise).
func declared(s sentence, words []string) string {
	head := command(s)
	if !slices.Contains(words, head) {
		return ""
	}
	for i, w := range s.words {
		if w.text == head && i+1 < len(s.words) && s.words[i+1].ident() {
			return s.words[i+1].text
		}
	}
	return ""
}

// firstUnproved is the first word of ss that leaves a proof unfinished or
// assumes what it should prove, skipping the sentence at index skip.
func firstUnproved(ss []sentence, skip int) *word {
	for i, s := range ss {
		if i == skip {
			continue
		}
		for _, w := range s.words {
			if w.ident() && slices.Contains(unproved, w.last()) {
				return &w
			}
		}
	}
	return nil
}

// CheckStatement checks a Coq formal statement before it is attached: its
// sentences lex, no word of it is refused, it declares exactly one theorem
// (Theorem, Lemma, ... NAME : TYPE.) and ends that theorem with Admitted
// (after an optional Proof.), and nothing else in it is admitted or
// assumed. It returns the theorem's name.
func CheckStatement(src string) (string, error) {
	ss, err := scan(src)
	if err != nil {
		return "", err
	}
	at, name := -1, ""
	for i, s := range ss {
		if n := declared(s, theoremWords); n != "" {
			if at >= 0 {
				return "", &Refusal{s.line, fmt.Sprintf("it declares a second theorem, %s, after %s: a formal statement declares one", n, name)}
			}
			at, name = i, n
		}
	}
	if at < 0 {
		return "", &Refusal{1, "it declares no theorem: state it as `Theorem NAME : TYPE.` followed by `Admitted.`"}
	}
	end := at + 1
	if end < len(ss) && command(ss[end]) == "Proof" && len(ss[end].words) == 1 {
		end++
	}
	if end >= len(ss) || len(ss[end].words) != 1 || ss[end].words[0].text != "Admitted" {
		return "", &Refusal{ss[at].line, fmt.Sprintf("the theorem %s is not ended by Admitted.: a formal statement states the theorem and proves nothing", name)}
	}
	if w := firstUnproved(ss, end); w != nil {
		return "", &Refusal{w.line, fmt.Sprintf("%q: a formal statement may admit or assume nothing but its theorem", w.text)}
	}
	return name, nil
}

// CheckProof checks a Coq formal proof before it is recorded or run: its
// sentences lex, no word of it is refused, it has no Admitted, admit,
// Axiom, Parameter, Conjecture or Hypothesis (nor their other spellings),
// and it declares theorem.
func CheckProof(src, theorem string) error {
	ss, err := scan(src)
	if err != nil {
		return err
	}
	if w := firstUnproved(ss, -1); w != nil {
		return &Refusal{w.line, fmt.Sprintf("%q leaves the proof unfinished or assumes what it should prove", w.text)}
	}
	for _, s := range ss {
		if declared(s, declWords) == theorem {
			return nil
		}
	}
	return &Refusal{1, fmt.Sprintf("it declares no %s: the formal proof must prove the formal statement's theorem under its name", theorem)}
}
