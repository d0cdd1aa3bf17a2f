package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// FileName is the name of a server file, in the home folder (user scope)
// and in the working directory (project scope).
const FileName = ".mcp.json"

// Home returns the home folder: $MCPWIRE_HOME, else
// $XDG_CONFIG_HOME/mcpwire, else ~/.config/mcpwire. getenv looks variables
// up (nil means os.Getenv). The folder is not created.
func Home(getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if h := getenv("MCPWIRE_HOME"); h != "" {
		return filepath.Abs(h)
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Abs(filepath.Join(x, "mcpwire"))
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding the home folder: %v; set MCPWIRE_HOME", err)
	}
	return filepath.Join(u, ".config", "mcpwire"), nil
}

// LoadOptions says where Load reads from. The zero value reads the home
// folder of [Home] and the working directory with os.Getenv.
type LoadOptions struct {
	Home string // the home folder; "" = Home(Getenv)
	Dir  string // the working directory; "" = os.Getwd()
	// LookupEnv finds variables for ${VAR} expansion (and Home), as
	// os.LookupEnv does: a variable set to "" expands to "". nil means
	// Getenv, for which "" means unset; both nil mean os.LookupEnv.
	LookupEnv func(key string) (string, bool)
	Getenv    func(key string) string
}

// A Config is the servers of both scopes, merged.
type Config struct {
	// Servers in a stable order: the user file's entries in file order,
	// then the project file's; a project entry that replaces a user entry
	// of the same name takes the project's place.
	Servers []*Server
	// Warnings are things that are not errors but must be seen: unknown
	// fields, each with file, line and column.
	Warnings []string
	// Files are the files read, user first.
	Files []File
}

// A File is one server file Load looked at.
type File struct {
	Path   string // canonical absolute path
	Scope  string // ScopeUser or ScopeProject
	Exists bool
	Err    error // a *FileError when the file could not be used; its servers are missing
}

// Server returns the server named name, or nil.
func (c *Config) Server(name string) *Server {
	for _, s := range c.Servers {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Load reads <Home>/.mcp.json (scope user) and <Dir>/.mcp.json (scope
// project; the directory itself only, no parent search). A missing file is
// no error. A project entry replaces the user entry of the same name, whole.
// Every entry is validated, enabled or not; enabled valid entries are then
// expanded with Getenv (see [Server.Expand]).
//
// A file that cannot be used at all (not JSON, the top level or mcpServers
// not an object, unreadable) fails as a whole: Load then returns the Config
// with the other file's servers AND an error joining the *FileError values
// (also in Config.Files). Callers that want all or nothing stop at the
// error; list-like callers may show both.
func Load(opts LoadOptions) (*Config, error) {
	lookup := opts.LookupEnv
	switch {
	case lookup != nil:
	case opts.Getenv != nil:
		lookup = LookupFromGetenv(opts.Getenv)
	default:
		lookup = os.LookupEnv
	}
	getenv := func(k string) string { v, _ := lookup(k); return v }
	home := opts.Home
	if home == "" {
		h, err := Home(getenv)
		if err != nil {
			return nil, err
		}
		home = h
	}
	dir := opts.Dir
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("finding the working directory: %v", err)
		}
		dir = wd
	}
	// Files are named as reached (absolute, symbolic links kept): a
	// project whose .mcp.json links elsewhere is still its own source.
	userPath, err := filepath.Abs(filepath.Join(home, FileName))
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %v", home, err)
	}
	projPath, err := filepath.Abs(filepath.Join(dir, FileName))
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %v", dir, err)
	}
	// The working directory may be the home folder under another name.
	sameDir := projPath == userPath
	if ch, err1 := canonicalPath(home); err1 == nil {
		if cd, err2 := canonicalPath(dir); err2 == nil && ch == cd {
			sameDir = true
		}
	}

	c := &Config{}
	var errs []error
	var user, proj []*Server
	for _, f := range []struct {
		path, scope string
		out         *[]*Server
	}{{userPath, ScopeUser, &user}, {projPath, ScopeProject, &proj}} {
		if f.scope == ScopeProject && sameDir {
			break // the working directory is the home folder
		}
		file := File{Path: f.path, Scope: f.scope}
		data, err := readServerFile(f.path, f.scope)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			file.Exists = true
			file.Err = &FileError{Path: f.path, Err: fmt.Errorf("reading: %w", errors.Unwrap(err))}
		default:
			file.Exists = true
			pf, err := parseFile(f.path, f.scope, data)
			if err != nil {
				file.Err = err
			} else {
				*f.out = pf.servers
				c.Warnings = append(c.Warnings, pf.warnings...)
			}
		}
		if file.Err != nil {
			errs = append(errs, file.Err)
		}
		c.Files = append(c.Files, file)
	}

	replaced := make(map[string]bool)
	for _, s := range proj {
		replaced[s.Name] = true
	}
	for _, s := range user {
		if !replaced[s.Name] {
			c.Servers = append(c.Servers, s)
		}
	}
	c.Servers = append(c.Servers, proj...)

	for _, s := range c.Servers {
		if !s.Enabled || s.Err != nil {
			continue
		}
		x, err := s.ExpandLookup(lookup)
		if err != nil {
			s.Err = err
			continue
		}
		s.Expanded = x
	}
	return c, errors.Join(errs...)
}

// canonicalPath makes p absolute and resolves symbolic links in it (in
// its directory when the file itself does not exist).
func canonicalPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %v", p, err)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r, nil
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(d, filepath.Base(abs)), nil
	}
	return abs, nil
}
