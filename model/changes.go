package model

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
)

// DescribeChanges says in readable form what changed in a document between
// two versions (JSON objects; before nil for a creation, after nil for a
// deletion), one line per changed field or list element, for `history`:
//
//	status: "awaiting_verification" → "has_gap"
//	validate.issues[0] added: sentence 2, unjustified_leap, "adding 2n+1 gives (n+1)^2"
//	proof: revision 1 → 2 (sentence 2 replaced)
//
// The bookkeeping fields (revision, updated_at) are left out: every change
// moves them.
func DescribeChanges(before, after []byte) []string {
	switch {
	case before == nil && after == nil:
		return nil
	case before == nil:
		return []string{fmt.Sprintf("created (%s)", gjson.GetBytes(after, "status").String())}
	case after == nil:
		return []string{"deleted"}
	}
	b, a := gjson.ParseBytes(before), gjson.ParseBytes(after)
	var out []string
	for _, key := range unionKeys(b, a) {
		switch key {
		case "revision", "updated_at", "created_at", "proof_revision":
			continue
		case "proof":
			if line := describeProof(b, a); line != "" {
				out = append(out, line)
			}
			continue
		}
		out = append(out, describeValue(key, b.Get(gjson.Escape(key)), a.Get(gjson.Escape(key)))...)
	}
	return out
}

// describeProof names the proof revisions and the sentences that changed.
func describeProof(b, a gjson.Result) string {
	pb, pa := b.Get("proof"), a.Get("proof")
	if pb.Raw == pa.Raw {
		return ""
	}
	rb, ra := b.Get("proof_revision").Int(), a.Get("proof_revision").Int()
	if pb.Type != gjson.String {
		return fmt.Sprintf("proof: revision %d written (%s)", ra, Count(len(Sentences(pa.String())), "sentence"))
	}
	if pa.Type != gjson.String {
		return fmt.Sprintf("proof: revision %d removed", rb)
	}
	sb, sa := Sentences(pb.String()), Sentences(pa.String())
	pre := 0
	for pre < len(sb) && pre < len(sa) && sb[pre] == sa[pre] {
		pre++
	}
	suf := 0
	for suf < len(sb)-pre && suf < len(sa)-pre && sb[len(sb)-1-suf] == sa[len(sa)-1-suf] {
		suf++
	}
	old, now := len(sb)-pre-suf, len(sa)-pre-suf
	var what string
	switch {
	case old == 0 && now == 0:
		what = "whitespace changed"
	case old == 0:
		what = fmt.Sprintf("%s inserted after sentence %d", Count(now, "sentence"), pre)
	case now == 0:
		what = fmt.Sprintf("%s removed", sentenceSpan(pre+1, pre+old))
	case old == now:
		what = fmt.Sprintf("%s replaced", sentenceSpan(pre+1, pre+old))
	default:
		what = fmt.Sprintf("%s replaced by %s", sentenceSpan(pre+1, pre+old), Count(now, "sentence"))
	}
	return fmt.Sprintf("proof: revision %d → %d (%s)", rb, ra, what)
}

func sentenceSpan(from, to int) string {
	if from == to {
		return fmt.Sprintf("sentence %d", from)
	}
	return fmt.Sprintf("sentences %d–%d", from, to)
}

// describeValue compares one field: lists element by element, the validate
// object field by field, anything else as old → new.
func describeValue(path string, b, a gjson.Result) []string {
	if b.Raw == a.Raw {
		return nil
	}
	switch {
	case !a.Exists():
		return []string{path + " removed"}
	case b.IsArray() && a.IsArray():
		eb, ea := b.Array(), a.Array()
		var out []string
		for i := range max(len(eb), len(ea)) {
			p := fmt.Sprintf("%s[%d]", path, i)
			switch {
			case i >= len(ea):
				out = append(out, p+" removed")
			case i >= len(eb):
				out = append(out, p+" added: "+summarize(ea[i]))
			case eb[i].Raw != ea[i].Raw:
				out = append(out, p+" changed: "+strings.Join(changedKeys(eb[i], ea[i]), ", "))
			}
		}
		return out
	case b.IsObject() && a.IsObject() && path == "validate":
		var out []string
		for _, k := range unionKeys(b, a) {
			out = append(out, describeValue(path+"."+k, b.Get(gjson.Escape(k)), a.Get(gjson.Escape(k)))...)
		}
		return out
	case !b.Exists():
		return []string{path + " added: " + short(a)}
	case b.Type == gjson.Null:
		return []string{path + " set: " + short(a)}
	}
	return []string{path + ": " + short(b) + " → " + short(a)}
}

// summarize describes a list element by what matters about it: an issue by
// its sentence, type and quote; a response by its type and issue; anything
// else by its first fields.
func summarize(v gjson.Result) string {
	if !v.IsObject() {
		return short(v)
	}
	if v.Get("error_type").Exists() {
		return fmt.Sprintf("sentence %d, %s, %s", v.Get("sentence").Int(), v.Get("error_type").String(), short(v.Get("sentence_text")))
	}
	if t := v.Get("type"); t.Exists() && v.Get("response_number").Exists() {
		issue := v.Get("issue_addressed")
		if !issue.Exists() {
			issue = v.Get("issues_addressed")
		}
		s := fmt.Sprintf("%s answering issue %s", t.String(), issue.Raw)
		if a := v.Get("actor"); a.Type == gjson.String {
			s += " by " + a.String()
		}
		return s
	}
	if v.Get("verification_summary").Exists() {
		return fmt.Sprintf("confirmed by %s at proof revision %d", v.Get("actor").String(), v.Get("proof_revision").Int())
	}
	var parts []string
	v.ForEach(func(k, x gjson.Result) bool {
		parts = append(parts, k.String()+"="+short(x))
		return len(parts) < 3
	})
	return strings.Join(parts, ", ")
}

func changedKeys(b, a gjson.Result) []string {
	var out []string
	for _, k := range unionKeys(b, a) {
		x, y := b.Get(gjson.Escape(k)), a.Get(gjson.Escape(k))
		switch {
		case x.Raw == y.Raw:
		case !x.Exists():
			out = append(out, k+" added")
		case x.Type == gjson.Null:
			out = append(out, k+" set")
		default:
			out = append(out, k+" "+short(x)+" → "+short(y))
		}
	}
	return out
}

// unionKeys lists the keys of a then those only b has, in document order.
func unionKeys(b, a gjson.Result) []string {
	seen := map[string]bool{}
	var keys []string
	for _, r := range []gjson.Result{a, b} {
		r.ForEach(func(k, _ gjson.Result) bool {
			if !seen[k.String()] {
				seen[k.String()] = true
				keys = append(keys, k.String())
			}
			return true
		})
	}
	return keys
}

// short renders a value in at most about 60 characters.
func short(v gjson.Result) string {
	s := v.Raw
	if v.Type == gjson.String {
		s = fmt.Sprintf("%q", v.String())
	}
	if r := []rune(s); len(r) > 60 {
		s = string(r[:57]) + "…"
		if v.Type == gjson.String {
			s += `"`
		}
	}
	return s
}
