package cli

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwire/mcpwire/internal/safe"
	"github.com/mcpwire/mcpwire/manager"
)

// A junitReport is the JUnit XML file of `--junit FILE`: one test suite
// per server (or per diff), one test case per check, in the shape CI
// systems (GitHub Actions reporters, GitLab, Jenkins) show natively.
type junitReport struct {
	Name     string
	Tests    int
	Failures int
	Errors   int
	Skipped  int
	Time     string
	Suites   []*junitSuite

	path  string    // where it goes
	start time.Time // when the command started
}

// A junitSuite groups the cases of one server.
type junitSuite struct {
	Name      string
	Tests     int
	Failures  int
	Errors    int
	Skipped   int
	Time      string
	Timestamp string
	Cases     []*junitCase
}

// A junitCase is one check: passed, failed, or skipped.
type junitCase struct {
	_ [0]func() // not comparable: no equality function in the binary

	Name      string
	Classname string
	Time      string
	Failure   *junitProblem
	Skipped   *junitProblem
	SystemOut string
	SystemErr string

	dur time.Duration
}

// A junitProblem is a failure or a reason to skip.
type junitProblem struct {
	_ [0]func() // not comparable: no equality function in the binary

	Message string
	Type    string
	Text    string
}

// junitFlag registers --junit FILE.
func (inv *invocation) junitFlag(fs *flagSetT) {
	fs.Func("junit", "also write a JUnit XML report to `FILE` (one test case per server or check)", func(v string) error {
		if v == "" {
			return fmt.Errorf("--junit needs a file")
		}
		inv.junit = &junitReport{Name: inv.prog + " " + inv.cmd.name, path: v, start: time.Now()}
		return nil
	})
}

// suite returns the suite called name, adding it when new.
func (r *junitReport) suite(name string) *junitSuite {
	for _, s := range r.Suites {
		if s.Name == name {
			return s
		}
	}
	s := &junitSuite{Name: name, Timestamp: time.Now().UTC().Format("2006-01-02T15:04:05")}
	r.Suites = append(r.Suites, s)
	return s
}

// pass adds a passed case; out, when not empty, is its system-out.
func (s *junitSuite) pass(class, name string, d time.Duration, out string) *junitCase {
	c := &junitCase{Name: name, Classname: class, dur: d, SystemOut: out}
	s.Cases = append(s.Cases, c)
	return c
}

// fail adds a failed case with a one-line message and the details.
func (s *junitSuite) fail(class, name string, d time.Duration, message, details string) *junitCase {
	c := &junitCase{Name: name, Classname: class, dur: d, Failure: &junitProblem{Message: message, Type: "failure", Text: details}}
	s.Cases = append(s.Cases, c)
	return c
}

// skip adds a skipped case.
func (s *junitSuite) skip(class, name, why string) *junitCase {
	c := &junitCase{Name: name, Classname: class, Skipped: &junitProblem{Message: why}}
	s.Cases = append(s.Cases, c)
	return c
}

// seconds formats a duration as JUnit does: seconds, three decimals.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}

// encode totals the counts and returns the XML document.
func (r *junitReport) encode() ([]byte, error) {
	r.Tests, r.Failures, r.Errors, r.Skipped = 0, 0, 0, 0
	for _, s := range r.Suites {
		s.Tests, s.Failures, s.Skipped = len(s.Cases), 0, 0
		var total time.Duration
		for _, c := range s.Cases {
			c.Time = seconds(c.dur)
			total += c.dur
			switch {
			case c.Failure != nil:
				s.Failures++
			case c.Skipped != nil:
				s.Skipped++
			}
		}
		s.Time = seconds(total)
		r.Tests += s.Tests
		r.Failures += s.Failures
		r.Errors += s.Errors
		r.Skipped += s.Skipped
	}
	r.Time = seconds(time.Since(r.start))
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	fmt.Fprintf(&b, "<testsuites name=%s tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%s\">\n",
		xmlAttr(r.Name), r.Tests, r.Failures, r.Errors, r.Skipped, r.Time)
	for _, s := range r.Suites {
		fmt.Fprintf(&b, "  <testsuite name=%s tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%s\" timestamp=\"%s\">\n",
			xmlAttr(s.Name), s.Tests, s.Failures, s.Errors, s.Skipped, s.Time, s.Timestamp)
		for _, c := range s.Cases {
			fmt.Fprintf(&b, "    <testcase name=%s classname=%s time=\"%s\"", xmlAttr(c.Name), xmlAttr(c.Classname), c.Time)
			if c.Failure == nil && c.Skipped == nil && c.SystemOut == "" && c.SystemErr == "" {
				b.WriteString("/>\n")
				continue
			}
			b.WriteString(">\n")
			if p := c.Failure; p != nil {
				fmt.Fprintf(&b, "      <failure message=%s type=%s>%s</failure>\n", xmlAttr(p.Message), xmlAttr(p.Type), xmlText(p.Text))
			}
			if p := c.Skipped; p != nil {
				fmt.Fprintf(&b, "      <skipped message=%s/>\n", xmlAttr(p.Message))
			}
			if c.SystemOut != "" {
				fmt.Fprintf(&b, "      <system-out>%s</system-out>\n", xmlText(c.SystemOut))
			}
			if c.SystemErr != "" {
				fmt.Fprintf(&b, "      <system-err>%s</system-err>\n", xmlText(c.SystemErr))
			}
			b.WriteString("    </testcase>\n")
		}
		b.WriteString("  </testsuite>\n")
	}
	b.WriteString("</testsuites>\n")
	return b.Bytes(), nil
}

// xmlAttr is s as a quoted XML attribute value (safe.XMLAttr): every
// attribute of the report is written through it.
func xmlAttr(s string) string { return `"` + safe.XMLAttr(s) + `"` }

// xmlText is s as XML character data (safe.XMLText): every text of the
// report is written through it.
func xmlText(s string) string { return safe.XMLText(s) }

// writeJUnit writes the report of --junit, when asked for; a command that
// failed before it added a case gets one failed case saying why.
func (inv *invocation) writeJUnit(f *failure) error {
	r := inv.junit
	if r == nil {
		return nil
	}
	if f != nil && f.code != ExitUsage && len(r.Suites) == 0 {
		name := f.server
		if name == "" {
			name = inv.cmd.name
		}
		phase := f.phase
		if phase == "" {
			phase = "run"
		}
		msg := f.err.Error()
		details := msg
		for _, h := range f.hints {
			details += "\nhint: " + h
		}
		if f.stderr != "" {
			details += "\nthe server's last words on stderr:\n" + f.stderr
		}
		r.suite(name).fail(inv.cmd.name+"."+name, phase, time.Since(r.start), msg, details)
	}
	for _, s := range r.Suites {
		s.Name = inv.redact(s.Name)
		for _, c := range s.Cases {
			c.Name, c.Classname = inv.redact(c.Name), inv.redact(c.Classname)
			c.SystemOut, c.SystemErr = inv.redact(c.SystemOut), inv.redact(c.SystemErr)
			for _, p := range []*junitProblem{c.Failure, c.Skipped} {
				if p != nil {
					p.Message, p.Text = inv.redact(p.Message), inv.redact(p.Text)
				}
			}
		}
	}
	data, err := r.encode()
	if err != nil {
		return err
	}
	path := r.path
	if !filepath.IsAbs(path) {
		path = filepath.Join(inv.env.Dir, path)
	}
	return safe.WriteAtomic(path, data, 0o644)
}

// finishJUnit writes the --junit report at the end of a run; a report
// that cannot be written is an error on stderr (and exit 1 when the run
// itself succeeded).
func (inv *invocation) finishJUnit(f *failure) {
	if err := inv.writeJUnit(f); err != nil {
		inv.say("error: --junit: %s\n", safe.Sanitize(err.Error()))
		if inv.exit == ExitOK && f == nil {
			inv.exit = ExitServer
		}
	}
}

// testJUnit reports `mcpwire test`: one case per phase and list.
func (inv *invocation) testJUnit(rep *testReport) {
	s := inv.junit.suite(rep.Server)
	class := "test." + rep.Server
	ms := func(k string) time.Duration { return time.Duration(rep.Timing[k]) * time.Millisecond }
	s.pass(class, "connect", ms("spawn"), rep.Transport+" "+rep.Target)
	s.pass(class, "initialize", ms("initialize"), fmt.Sprintf("%s %s, protocol %s", rep.ServerInfo.Name, rep.ServerInfo.Version, rep.Protocol))
	took := ms("list")
	if d, ok := rep.took["tools/list"]; ok {
		took = d
	}
	s.pass(class, "tools/list", took, plural(len(rep.Tools), "tool"))
	warned := func(method string) string {
		for _, w := range rep.Warnings {
			if strings.HasPrefix(w, method+":") {
				return w
			}
		}
		return ""
	}
	lists := []struct {
		method string
		n      int
		what   string
		offer  bool
	}{
		{"resources/list", len(rep.Resources), "resource", rep.Capabilities.Resources != nil},
		{"resources/templates/list", len(rep.ResourceTemplates), "resource template", rep.Capabilities.Resources != nil},
		{"prompts/list", len(rep.Prompts), "prompt", rep.Capabilities.Prompts != nil},
	}
	for _, l := range lists {
		switch w := warned(l.method); {
		case !l.offer:
			s.skip(class, l.method, "the server does not offer it")
		case w != "":
			s.fail(class, l.method, rep.took[l.method], w, w)
		default:
			s.pass(class, l.method, rep.took[l.method], plural(l.n, l.what))
		}
	}
}

// listJUnit reports `mcpwire list`: one case per configured server.
func (inv *invocation) listJUnit(entries []listEntry) {
	s := inv.junit.suite("servers")
	for _, e := range entries {
		class := "list." + e.Scope
		switch {
		case e.Error != nil:
			s.fail(class, e.Server, e.took, e.Error.Phase+": "+e.Error.Message, e.Error.Phase+": "+e.Error.Message)
		case manager.State(e.State) == manager.StateConnected:
			s.pass(class, e.Server, e.took, e.Transport+" "+e.Target+": "+e.State)
		case manager.State(e.State) == manager.StateNeedsLogin:
			s.fail(class, e.Server, 0, "needs login", "log in with: "+inv.suggest("login", e.Server))
		case manager.State(e.State) == manager.StateNeedsApproval:
			s.fail(class, e.Server, 0, "needs approval", "review it with: "+inv.suggest("get", e.Server)+"; then: "+inv.suggest("approve", e.Server))
		default:
			s.skip(class, e.Server, e.State)
		}
	}
}

// doctorJUnit reports `mcpwire doctor`: a suite per server, a case per
// check.
func (inv *invocation) doctorJUnit(reports []*doctorReport, failOnWarn bool) {
	for _, r := range reports {
		s := inv.junit.suite(r.Server)
		class := "doctor." + r.Server
		for _, c := range r.Checks {
			text := c.Detail
			if c.Hint != "" {
				text += "\nhint: " + c.Hint
			}
			switch {
			case c.Status == manager.CheckFail:
				s.fail(class, c.Phase, c.took, c.Detail, text)
			case c.Status == manager.CheckSkip:
				s.skip(class, c.Phase, c.Detail)
			case c.Status == manager.CheckWarn && failOnWarn:
				s.fail(class, c.Phase, c.took, "warning: "+c.Detail, text)
			case c.Status == manager.CheckWarn:
				s.pass(class, c.Phase, c.took, "").SystemErr = "warning: " + text
			default:
				s.pass(class, c.Phase, c.took, c.Detail)
			}
		}
	}
}
