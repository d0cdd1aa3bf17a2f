package surface

import "strings"

// A WordChange is one run of a text diff: words kept, removed or added.
type WordChange struct {
	Op   byte   // '=' kept, '-' removed, '+' added
	Text string // the words, separated by single spaces
}

// maxWordCells bounds the table of the word diff (old words × new
// words); past it the middle of the two texts, between their common
// first and last words, shows as removed and added whole.
const maxWordCells = 1 << 20

// WordDiff compares two texts word by word (words are what
// strings.Fields splits): the fewest words removed and added, runs of
// one kind merged. Its work is bounded by maxWordCells whatever the
// texts' sizes.
func WordDiff(old, new string) []WordChange {
	a, b := strings.Fields(old), strings.Fields(new)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []WordChange
	add := func(op byte, words ...string) {
		if len(words) == 0 {
			return
		}
		text := strings.Join(words, " ")
		if n := len(out); n > 0 && out[n-1].Op == op {
			out[n-1].Text += " " + text
			return
		}
		out = append(out, WordChange{Op: op, Text: text})
	}
	add('=', a[:pre]...)
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	if len(ma)*len(mb) > maxWordCells {
		add('-', ma...)
		add('+', mb...)
	} else {
		lcsDiff(ma, mb, add)
	}
	add('=', a[len(a)-suf:]...)
	return out
}

// lcsDiff gives the diff of a and b by their longest common subsequence
// of words, in order, to add.
func lcsDiff(a, b []string, add func(op byte, words ...string)) {
	// l[i][j] is the length of the LCS of a[i:] and b[j:].
	w := len(b) + 1
	l := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				l[i*w+j] = l[(i+1)*w+j+1] + 1
			} else {
				l[i*w+j] = max(l[(i+1)*w+j], l[i*w+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			add('=', a[i])
			i, j = i+1, j+1
		case l[(i+1)*w+j] >= l[i*w+j+1]:
			add('-', a[i])
			i++
		default:
			add('+', b[j])
			j++
		}
	}
	add('-', a[i:]...)
	add('+', b[j:]...)
}
