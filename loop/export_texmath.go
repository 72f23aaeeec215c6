package loop

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// The LaTeX export's math check (issue 34 N1). A formula is agent text that
// reaches TeX as code: \input{FILE} in a claim printed a host file into the
// PDF, \openout wrote one, and "$x}\end{proof}\end{document}$" ended the
// document. So every formula is read token by token before it is copied,
// and passes only when each control sequence is a math command of
// mathCommands (or an environment of mathEnvs), its braces balance, and it
// holds no ^^ (TeX's escape for any character, \input included), no %
// (a comment, which would hide the closing delimiter), no # and no $. A
// formula that fails is shown as text, with a footnote saying why.

// mathCommands are the control words a formula may use, by how they take
// their arguments (the compile test gives each its arguments from this).
var mathCommands = struct{ symbols, prefixes, delimiters, oneArg, twoArgs []string }{
	symbols: strings.Fields(`
		alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa varkappa lambda mu nu xi
		pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega digamma
		Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega
		varGamma varDelta varTheta varLambda varXi varPi varSigma varUpsilon varPhi varPsi varOmega
		aleph beth gimel daleth hbar hslash ell wp Re Im imath jmath partial infty nabla forall exists nexists
		emptyset varnothing neg lnot top bot angle measuredangle sphericalangle triangle triangledown
		square blacksquare Box Diamond diamond lozenge blacklozenge bigstar star clubsuit diamondsuit
		heartsuit spadesuit flat natural sharp prime backprime complement surd checkmark mho eth Finv Game
		Bbbk circledS backslash
		ldots cdots vdots ddots dots dotsb dotsc dotsi dotsm dotso cdotp ldotp colon
		pm mp times div cdot ast circ bullet oplus ominus otimes oslash odot cap cup sqcap sqcup uplus vee
		wedge land lor setminus smallsetminus wr amalg dagger ddagger triangleleft triangleright bigtriangleup
		bigtriangledown boxplus boxminus boxtimes boxdot dotplus divideontimes ltimes rtimes leftthreetimes
		rightthreetimes curlyvee curlywedge barwedge doublebarwedge veebar intercal circledast circledcirc
		circleddash centerdot Cap Cup
		le leq ge geq ne neq equiv approx approxeq sim simeq cong propto subset subseteq subseteqq
		subsetneq subsetneqq supset supseteq supseteqq supsetneq supsetneqq in ni notin owns mid nmid
		parallel nparallel perp prec succ preceq succeq ll gg lll ggg vdash dashv models vDash Vdash
		nvdash nvDash asymp doteq doteqdot bowtie smile frown leqslant geqslant lesssim gtrsim lessapprox
		gtrapprox lessgtr gtrless leqq geqq nleq ngeq nless ngtr nsubseteq nsupseteq ncong nsim
		trianglelefteq trianglerighteq vartriangleleft vartriangleright ntriangleleft ntriangleright
		sqsubset sqsupset sqsubseteq sqsupseteq Subset Supset therefore because between pitchfork backsim
		backsimeq eqsim fallingdotseq risingdotseq circeq triangleq bumpeq Bumpeq thicksim thickapprox
		varpropto shortmid shortparallel nshortmid precsim succsim precapprox succapprox curlyeqprec
		curlyeqsucc preccurlyeq succcurlyeq
		to gets rightarrow leftarrow Rightarrow Leftarrow leftrightarrow Leftrightarrow longrightarrow
		longleftarrow Longrightarrow Longleftarrow longleftrightarrow Longleftrightarrow iff implies
		impliedby mapsto longmapsto hookrightarrow hookleftarrow uparrow downarrow updownarrow Uparrow
		Downarrow Updownarrow nearrow searrow nwarrow swarrow rightharpoonup rightharpoondown
		leftharpoonup leftharpoondown rightleftharpoons leftrightharpoons twoheadrightarrow
		twoheadleftarrow rightarrowtail leftarrowtail rightrightarrows leftleftarrows rightleftarrows
		leftrightarrows upuparrows downdownarrows Rsh Lsh looparrowright looparrowleft curvearrowright
		curvearrowleft circlearrowright circlearrowleft rightsquigarrow leftrightsquigarrow multimap
		nrightarrow nleftarrow nRightarrow nLeftarrow nleftrightarrow nLeftrightarrow
		sum prod coprod int iint iiint iiiint idotsint oint bigcup bigcap bigoplus bigotimes bigodot
		biguplus bigsqcup bigvee bigwedge
		arccos arcsin arctan arg cos cosh cot coth csc deg det dim exp gcd hom inf ker lg lim liminf
		limsup ln log max min Pr sec sin sinh sup tan tanh varliminf varlimsup bmod
		langle rangle lceil rceil lfloor rfloor lvert rvert lVert rVert vert Vert lbrace rbrace lbrack
		rbrack ulcorner urcorner llcorner lrcorner
		quad qquad enspace thinspace medspace thickspace negthinspace negmedspace negthickspace
		mathstrut displaystyle textstyle scriptstyle scriptscriptstyle notag nonumber`),
	// prefixes act on what follows them: an operator (limits), a relation (not).
	prefixes: strings.Fields(`limits nolimits not`),
	// delimiters size the delimiter that follows them; left and right pair.
	delimiters: strings.Fields(`left right middle big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr bigm Bigm biggm Biggm`),
	oneArg: strings.Fields(`
		mathbb mathcal mathfrak mathrm mathbf mathit mathsf mathtt mathnormal boldsymbol pmb
		text textrm textbf textit textsf texttt textup textsl textsc textnormal emph mbox operatorname
		hat widehat tilde widetilde bar overline underline vec dot ddot dddot acute grave check breve
		mathring overrightarrow overleftarrow overleftrightarrow underrightarrow underleftarrow
		underleftrightarrow overbrace underbrace sqrt boxed phantom hphantom vphantom smash pmod pod mod
		tag substack xrightarrow xleftarrow`),
	twoArgs: strings.Fields(`frac dfrac tfrac cfrac binom dbinom tbinom stackrel overset underset`),
}

// mathEnvs are the environments a formula may open with \begin (and close
// with \end): arrays and alignments that live inside math.
var mathEnvs = strings.Fields(`matrix pmatrix bmatrix Bmatrix vmatrix Vmatrix smallmatrix cases aligned alignedat gathered split array`)

// alignEnvs are the formula delimiters and environments in which & and \\
// separate cells and rows; elsewhere & does not compile.
var alignEnvs = map[string]bool{"align": true, "align*": true, "eqnarray": true, "eqnarray*": true,
	"matrix": true, "pmatrix": true, "bmatrix": true, "Bmatrix": true, "vmatrix": true, "Vmatrix": true,
	"smallmatrix": true, "cases": true, "aligned": true, "alignedat": true, "split": true, "array": true}

// mathSymbols are the control symbols (a backslash and one character that
// is not a letter) a formula may use: spaces, escaped specials, \\ and \|.
const mathSymbols = ",:;!> {}|\\#$%&_\n\t"

var allowedMath = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{"begin": true, "end": true}
	c := mathCommands
	for _, list := range [][]string{c.symbols, c.prefixes, c.delimiters, c.oneArg, c.twoArgs} {
		for _, name := range list {
			m[name] = true
		}
	}
	return m
})

// checkMath says why a formula (m.Open + body + m.Close) must not reach
// TeX, or "" when it may. env is the formula's own environment when its
// delimiter is one (\begin{align}), else "".
func checkMath(body, env string) string {
	if strings.Contains(body, "^^") {
		return "^^ (TeX's escape for any character) is not allowed in math"
	}
	depth, envs := 0, []string{}
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\':
			name, next, why := controlSequence(body, i)
			if why != "" {
				return why
			}
			if name == "begin" || name == "end" {
				var err string
				if next, envs, err = mathEnv(body, next, name, envs); err != "" {
					return err
				}
			}
			i = next
			continue
		case c == '{':
			depth++
		case c == '}':
			if depth--; depth < 0 {
				return "a } closes a group the formula did not open"
			}
		case c == '%':
			return "% starts a TeX comment, which would hide the closing delimiter"
		case c == '#':
			return "# is TeX's parameter character"
		case c == '$':
			return "a $ inside a formula ends math mode early"
		case c == '&' && !alignEnvs[env] && !inAlign(envs):
			return "& separates cells only inside an alignment (aligned, cases, a matrix, align)"
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r', c == 0x7f:
			return fmt.Sprintf("the control character %U", rune(c))
		}
		i++
	}
	switch {
	case depth > 0:
		return "a { is not closed"
	case len(envs) > 0:
		return `\begin{` + envs[len(envs)-1] + `} is not closed`
	}
	return ""
}

// controlSequence reads the control sequence at body[i] (a backslash):
// a control word (letters) or a control symbol (one other character), and
// says why it is not allowed, if it is not.
func controlSequence(body string, i int) (name string, next int, why string) {
	j := i + 1
	if j == len(body) {
		return "", j, "a backslash ends the formula: it would escape the closing delimiter"
	}
	for j < len(body) && isTeXLetter(body[j]) {
		j++
	}
	if j > i+1 {
		name = body[i+1 : j]
		if !allowedMath()[name] {
			return name, j, fmt.Sprintf(`\%s is not a math command the export allows`, name)
		}
		return name, j, ""
	}
	r, size := utf8.DecodeRuneInString(body[j:])
	if r >= utf8.RuneSelf || !strings.ContainsRune(mathSymbols, r) {
		return string(r), j + size, fmt.Sprintf(`\%s is not a math command the export allows`, string(r))
	}
	return string(r), j + size, ""
}

// mathEnv reads the {name} after \begin or \end at body[i:], and keeps the
// stack of open environments.
func mathEnv(body string, i int, cmd string, envs []string) (int, []string, string) {
	for i < len(body) && (body[i] == ' ' || body[i] == '\n' || body[i] == '\t') {
		i++
	}
	if i == len(body) || body[i] != '{' {
		return i, envs, `\` + cmd + ` must be followed by {ENVIRONMENT}`
	}
	end := strings.IndexByte(body[i:], '}')
	if end < 0 {
		return i, envs, `\` + cmd + `{ is not closed`
	}
	name := body[i+1 : i+end]
	i += end + 1
	if cmd == "end" {
		if len(envs) == 0 || envs[len(envs)-1] != name {
			return i, envs, `\end{` + name + `} closes no environment the formula opened`
		}
		return i, envs[:len(envs)-1], ""
	}
	for _, e := range mathEnvs {
		if e == name {
			return i, append(envs, name), ""
		}
	}
	return i, envs, `\begin{` + name + `} is not a math environment the export allows (` + strings.Join(mathEnvs, ", ") + `)`
}

func inAlign(envs []string) bool { return len(envs) > 0 && alignEnvs[envs[len(envs)-1]] }

// isTeXLetter: a letter of TeX's category 11 in a LaTeX document (@ is not).
func isTeXLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
