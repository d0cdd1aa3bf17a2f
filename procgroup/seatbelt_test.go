package procgroup

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSeatbeltProfile: the sandbox-exec profile (macOS; made and
// checked on any system) denies by default, allows reading the system
// and the read list, reading and writing the write list, the network only
// with "any"; a path behind a link is allowed where it leads too (macOS's
// temporary folder is under /var, a link to /private/var); a path with
// quotes and parentheses stays one string literal.
func TestSeatbeltProfile(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "tmp")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	hostile := `/srv/a") (allow default) (allow file-write* (subpath "/`
	box := &Sandbox{Network: NetworkNone, Read: []string{"/opt/tool", hostile}, Write: []string{link}}
	p := seatbeltProfile(box)
	for _, want := range []string{
		"(version 1)\n(deny default)\n",
		`(allow file-read* (subpath "/usr"))`,
		`(allow file-read* (subpath "/opt/tool"))`,
		`(allow file-read* (subpath ` + strconv.Quote(hostile) + `))`,
		`(allow file-read* file-write* (subpath ` + strconv.Quote(link) + `))`,
		`(allow file-read* file-write* (subpath ` + strconv.Quote(real) + `))`,
		`(allow file-read* file-write* (literal "/dev/null"))`,
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the profile lacks %s:\n%s", want, p)
		}
	}
	if strings.Contains(p, "network") || strings.Contains(p, "(allow default)\n") || strings.Count(p, "(allow default)") != 1 {
		t.Errorf(`a profile of "network": "none" allows the network, or a path broke out of its literal:\n%s`, p)
	}
	box.Network = NetworkAny
	if p := seatbeltProfile(box); !strings.Contains(p, "(allow network*)\n") {
		t.Errorf(`a profile of "network": "any":\n%s`, p)
	}
}
