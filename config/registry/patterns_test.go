package registry

import (
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
