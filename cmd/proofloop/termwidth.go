package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"
)

// defaultWidth is the width plain tables fit in when the terminal's is
// unknown (stdout is a file or a pipe and $COLUMNS is not set).
const defaultWidth = 80

// termWidth is the width plain tables fit in: $COLUMNS when it is a
// number, else the width of the terminal stdout is, else 80. --wide and
// --json print without wrapping.
func (a *app) termWidth() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return max(n, 40)
	}
	if f, ok := a.stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return max(w, 40)
		}
	}
	return defaultWidth
}

// hang prints text wrapped at blanks to width, its first line after first
// and the others after indent (a longer word gets a line of its own).
func (a *app) hang(width int, first, indent, text string) {
	line, empty := first, true
	for _, w := range strings.Fields(text) {
		switch {
		case empty:
			line += w
		case len(line)+1+len(w) > width:
			fmt.Fprintln(a.stdout, line)
			line = indent + w
		default:
			line += " " + w
		}
		empty = false
	}
	fmt.Fprintln(a.stdout, line)
}

// hangTable prints rows whose cells line up in columns, as tabwriter does,
// with the last cell wrapped within width and its further lines under its
// first. When the other cells leave less than minLast columns for it, the
// last cell goes on the lines below, indented by four.
func (a *app) hangTable(width int, rows [][]string) {
	const minLast = 24
	if len(rows) == 0 {
		return
	}
	n := len(rows[0])
	widths := make([]int, n-1)
	for _, r := range rows {
		for j := range n - 1 {
			widths[j] = max(widths[j], len(r[j]))
		}
	}
	prefix := 0
	for _, w := range widths {
		prefix += w + 2
	}
	for _, r := range rows {
		var b strings.Builder
		for j := range n - 1 {
			b.WriteString(r[j] + strings.Repeat(" ", widths[j]-len(r[j])+2))
		}
		if width-prefix >= minLast {
			pad := strings.Repeat(" ", prefix)
			for i, l := range wrap(r[n-1], width-prefix, "") {
				if i > 0 {
					b.WriteString("\n" + pad)
				}
				b.WriteString(l)
			}
			fmt.Fprintln(a.stdout, strings.TrimRight(b.String(), " "))
			continue
		}
		lead := strings.TrimRight(b.String(), " ")
		ind := len(lead) - len(strings.TrimLeft(lead, " "))
		fmt.Fprintln(a.stdout, lead)
		if r[n-1] != "" {
			a.hang(width, strings.Repeat(" ", ind+4), strings.Repeat(" ", ind+4), r[n-1])
		}
	}
}
