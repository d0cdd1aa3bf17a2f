package manager

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpwire/mcpwire/config"
	"github.com/mcpwire/mcpwire/oauth"
)

// A Home is the home folder of mcpwire and what lives in it: the
// approvals (settings.json and its key), the OAuth token files and the
// step-ups pending for them, the era cache. The methods that hold each
// are in files named after it (home_auth.go: logins and tokens;
// home_login.go: the login itself). A Home holds no open file and no
// goroutine: every method reads or writes the folder as it goes, under
// the files' own locks, so many Managers and processes may share one
// folder. Its methods may be called from many goroutines at once.
//
// Open one with [OpenHome] (a folder of the program's own) or
// [DefaultHome] (the folder `mcpwire` uses); Options.Home takes it. The
// zero Home is no folder: use one of those two.
type Home struct {
	dir    string
	tokens *oauth.Store
	eras   *EraCache
}

// OpenHome returns the Home in dir (made absolute). The folder need not
// exist yet: it is created, mode 0700, when something is first written.
func OpenHome(dir string) (*Home, error) {
	if dir == "" {
		return nil, errors.New("manager: no home folder given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("manager: home folder %s: %v", dir, err)
	}
	h := &Home{dir: abs, tokens: oauth.NewStore(abs)}
	h.eras = &EraCache{path: h.path(EraCacheFile), home: abs}
	return h, nil
}

// path is the path of a file of the home: what a method that holds a
// file of its own (home_*.go) reads and writes.
func (h *Home) path(name string) string { return filepath.Join(h.dir, name) }

// DefaultHome returns the Home that the mcpwire command uses, as
// config.Home finds it: $MCPWIRE_HOME, else $XDG_CONFIG_HOME/mcpwire,
// else ~/.config/mcpwire. getenv looks the variables up (nil means
// os.Getenv). It fails when none of them gives a folder.
func DefaultHome(getenv func(string) string) (*Home, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	dir, err := config.Home(getenv)
	if err != nil {
		return nil, fmt.Errorf("manager: no home folder: %v", err)
	}
	return OpenHome(dir)
}

// Dir returns the folder (absolute).
func (h *Home) Dir() string { return h.dir }

// Approvals returns the approvals of the home (settings.json, with the
// key in mcp-approval.key, created when missing). They fail closed: when
// they cannot be read, the error says why and the Approvals approve
// nothing.
func (h *Home) Approvals() (*config.Approvals, error) { return config.OpenApprovals(h.dir) }

// EraCache returns the home's era cache, for DialOptions.EraCache.
func (h *Home) EraCache() *EraCache { return h.eras }
