package hostile

import (
	"regexp"
	"slices"
	"testing"
)

// wasTag is the expression tags replaced.
var wasTag = regexp.MustCompile(`<[^>]*>?`)

func checkTags(t *testing.T, html string) {
	t.Helper()
	if got, want := tags(html), wasTag.FindAllString(html, -1); !slices.Equal(got, want) {
		t.Errorf("tags(%q) = %q, the expression finds %q", html, got, want)
	}
}

var tagCases = []string{"", "x", "<p>a</p>", "<", ">", "<<a>", "a<b", "<!-- c -->d<e", "<a><b>>", "<td align=\"left\">"}

// TestTags: tags finds what `<[^>]*>?` found.
func TestTags(t *testing.T) {
	for _, s := range tagCases {
		checkTags(t, s)
	}
}

// FuzzTags holds tags to the expression on any text.
func FuzzTags(f *testing.F) {
	for _, s := range tagCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkTags(t, s) })
}
