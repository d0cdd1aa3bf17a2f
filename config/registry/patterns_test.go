package registry

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// The expressions the hand matchers of patterns.go replaced.
var (
	wasName     = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)
	wasSHA256   = regexp.MustCompile(`^[a-f0-9]{64}$`)
	wasBrace    = regexp.MustCompile(`\{([A-Za-z0-9_.-]+)\}`)
	wasManifest = regexp.MustCompile(`\$\{(__dirname|user_config\.[A-Za-z0-9_.-]+)\}`)
)

// checkPatterns fails when a hand matcher and its expression disagree on s.
func checkPatterns(t *testing.T, s string) {
	t.Helper()
	if got, want := validRegistryName(s), wasName.MatchString(s); got != want {
		t.Errorf("validRegistryName(%q) = %v, the expression says %v", s, got, want)
	}
	if got, want := validSHA256(s), wasSHA256.MatchString(s); got != want {
		t.Errorf("validSHA256(%q) = %v, the expression says %v", s, got, want)
	}
	mark := func(m string) string { return "<" + strings.ToUpper(m) + ">" }
	if got, want := replaceRefs(s, "{", anyName, mark), wasBrace.ReplaceAllStringFunc(s, mark); got != want {
		t.Errorf("replaceRefs(%q, {) = %q, the expression gives %q", s, got, want)
	}
	if got, want := replaceRefs(s, "${", manifestName, mark), wasManifest.ReplaceAllStringFunc(s, mark); got != want {
		t.Errorf("replaceRefs(%q, ${) = %q, the expression gives %q", s, got, want)
	}
}

var patternCases = []string{
	"", "a/b", "io.github.x/server-y_1", "/b", "a/", "a/b/c", "a b/c", "a_b/c",
	strings.Repeat("0af", 21) + "9", strings.Repeat("A", 64), strings.Repeat("a", 63),
	"{x}", "{x}{y}", "{{x}}", "{}", "{x", "x}", "{a b}", "pre{x.y-z_1}post{", "{é}",
	"${__dirname}/bin", "${user_config.key}", "${user_config.}", "${user_config}", "$${__dirname}",
	"${__dirnamex}", "${__dirname", "${user_config.a.b-c}${__dirname}", "${{x}}",
}

// TestPatterns: each hand matcher agrees with the expression it replaced.
func TestPatterns(t *testing.T) {
	for _, s := range patternCases {
		checkPatterns(t, s)
	}
}

// FuzzPatterns holds the hand matchers to the expressions on any text.
func FuzzPatterns(f *testing.F) {
	for _, s := range patternCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkPatterns(t, s) })
}

// pathologicalURLTemplates are remote URL templates a hostile registry
// entry could hold, each with a URL to match against it. When only calls
// counted as steps, the fuzz input of the first shape took 61 s; with
// every candidate end counted, but an agreement check that walked every
// earlier hole, the miss over 5,000 distinct names still took 46 s.
func pathologicalURLTemplates() []struct{ name, template, url string } {
	long := strings.Repeat("ab", 4000)
	var distinct strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&distinct, "{v%d}", i)
	}
	return []struct{ name, template, url string }{
		{"seven holes, two names, over a filled URL", "{00}{0}{0}{0}{0}{0}{0}", strings.Repeat("n.\xb3\x98-", 700)},
		{"one name seven times, then a missing literal", strings.Repeat("{0}", 7) + "z", long},
		{"one name 5,000 times", strings.Repeat("{0}", 5000), long},
		{"5,000 distinct names, then a missing literal", distinct.String() + "z", long},
		{"a name between literals, then a missing literal", strings.Repeat("{a}b{c}", 50) + "z", long},
	}
}

// TestURLVarsGivesUp: a template too ambiguous to match within the bound
// of steps gives nil and says it gave up, rather than searching on.
func TestURLVarsGivesUp(t *testing.T) {
	for _, c := range pathologicalURLTemplates() {
		vars, gaveUp := matchURLVars(c.template, c.url)
		if vars != nil || !gaveUp {
			t.Errorf("%s: %d variables, gave up %v; want nil, gave up", c.name, len(vars), gaveUp)
		}
	}
}

// BenchmarkURLVarsPathological: the worst templates above, each matched
// once per iteration.
func BenchmarkURLVarsPathological(b *testing.B) {
	cases := pathologicalURLTemplates()
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cases {
			matchURLVars(c.template, c.url)
		}
	}
}
