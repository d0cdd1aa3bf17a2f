package cli

import (
	"encoding/xml"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
)

// parsedJUnit is the report read back by encoding/xml.
type parsedJUnit struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Suites   []struct {
		Name  string `xml:"name,attr"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
			SystemOut string `xml:"system-out"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// xmlSafe is what a string becomes in an attribute of the report: one
// line, every character XML 1.0 cannot hold (and every other one a
// terminal would act on) shown escaped, as safe.Sanitize shows it.
func xmlSafe(s string) string { return safe.Sanitize(s) }

func encodeOne(t *testing.T, s string) (*parsedJUnit, []byte) {
	t.Helper()
	r := &junitReport{Name: "mcpwire test", start: time.Now()}
	suite := r.suite(s)
	suite.pass("c", s, time.Millisecond, s)
	suite.fail("c", "f", 0, s, s)
	suite.skip("c", "s", s)
	data, err := r.encode()
	if err != nil {
		t.Fatal(err)
	}
	var p parsedJUnit
	if err := xml.Unmarshal(data, &p); err != nil {
		t.Fatalf("not XML: %v\n%s", err, data)
	}
	return &p, data
}

// TestJUnitXML: the hand-written report is XML that encoding/xml reads
// back, with every kind of text a server may send.
func TestJUnitXML(t *testing.T) {
	for _, s := range []string{"plain", `<&>"'`, "two\nlines\r\nand\ttab", "\x1b[31mred\x00\x7f", "bad \xff utf-8", "\u202eevil", ""} {
		p, data := encodeOne(t, s)
		if p.Tests != 3 || p.Failures != 1 || p.Skipped != 1 || len(p.Suites) != 1 || len(p.Suites[0].Cases) != 3 {
			t.Fatalf("%q: counts wrong:\n%s", s, data)
		}
		want := xmlSafe(s)
		c := p.Suites[0].Cases
		// Text keeps its lines (safe.SanitizeText).
		text := safe.SanitizeText(s)
		if p.Suites[0].Name != want || c[0].Name != want || c[1].Failure.Message != want || c[2].Skipped.Message != want ||
			c[0].SystemOut != text || c[1].Failure.Text != text {
			t.Errorf("%q did not come back as %q:\n%s", s, want, data)
		}
	}
}

// FuzzJUnitText: any text gives a report that encoding/xml reads back as
// that text (the characters XML cannot hold shown escaped).
func FuzzJUnitText(f *testing.F) {
	f.Add("a<b>&\"c\"\n\x00")
	f.Add("\r\n\r")
	f.Fuzz(func(t *testing.T, s string) {
		p, data := encodeOne(t, s)
		if got, want := p.Suites[0].Cases[1].Failure.Message, xmlSafe(s); got != want {
			t.Fatalf("attribute %q, want %q\n%s", got, want, data)
		}
	})
}
