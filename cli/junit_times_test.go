package cli_test

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// junitCases reads the test cases of a JUnit report: name, time, failed.
func junitCases(t *testing.T, path string) map[string]struct {
	time   float64
	failed bool
} {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Time    string    `xml:"time,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]struct {
		time   float64
		failed bool
	}{}
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			f, err := strconv.ParseFloat(c.Time, 64)
			if err != nil {
				t.Errorf("%s: case %s: time %q", path, c.Name, c.Time)
			}
			out[c.Name] = struct {
				time   float64
				failed bool
			}{f, c.Failure != nil}
		}
	}
	return out
}

// TestJUnitRealTimes: the cases of test and doctor carry the time their
// phase took (a handshake with a server that waits 5 ms first takes more than nothing), not 0.
func TestJUnitRealTimes(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	demo := []string{"--", r.bin, "serve-demo", "--start-delay", "5ms"}
	r.run(t, append([]string{"test", "--junit", "t.xml"}, demo...)...).want(t, 0)
	cases := junitCases(t, filepath.Join(r.dir, "t.xml"))
	if c := cases["initialize"]; c.time <= 0 {
		t.Errorf("test: the initialize case has no time: %+v", cases)
	}
	r.run(t, append([]string{"doctor", "--junit", "d.xml"}, demo...)...).want(t, 0)
	cases = junitCases(t, filepath.Join(r.dir, "d.xml"))
	if c := cases["initialize"]; c.time <= 0 {
		t.Errorf("doctor: the initialize case has no time: %+v", cases)
	}
}

// TestDoctorFailOnWarn: a server that prints garbage on stdout is a
// warning; --fail-on warn makes it fail the job (exit 1, a JUnit failure).
func TestDoctorFailOnWarn(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	garbage := []string{"--", r.bin, "serve-demo", "--garbage"}
	r.run(t, append([]string{"doctor", "--junit", "ok.xml"}, garbage...)...).want(t, 0)
	if junitCases(t, filepath.Join(r.dir, "ok.xml"))["stdout"].failed {
		t.Errorf("a warning failed the JUnit case without --fail-on warn")
	}
	res := r.run(t, append([]string{"doctor", "--fail-on", "warn", "--junit", "warn.xml"}, garbage...)...).want(t, 1)
	if !strings.Contains(res.stderr, "--fail-on warn: 1 warning") {
		t.Errorf("no word of the warning that failed:\n%s", res)
	}
	if !junitCases(t, filepath.Join(r.dir, "warn.xml"))["stdout"].failed {
		t.Errorf("the warning is not a JUnit failure with --fail-on warn")
	}
	r.run(t, "doctor", "--fail-on", "warn", "--demo").want(t, 0)
	r.run(t, "doctor", "--fail-on", "never", "--demo").want(t, 2)
}
