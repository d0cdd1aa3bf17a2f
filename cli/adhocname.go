package cli

import (
	"path"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/config"
)

// launcher says whether the program base runs a package named by one
// of its arguments (the server's name is then the package's, not the
// launcher's), and the words that come before the package (a
// subcommand). A switch, not a map: no code builds it at start.
func launcher(base string) (sub []string, ok bool) {
	switch base {
	case "npx", "pnpx", "bunx", "uvx", "node":
		return nil, true
	case "pipx", "uv", "deno", "docker", "podman":
		return []string{"run"}, true
	case "pnpm", "yarn":
		return []string{"dlx"}, true
	case "npm":
		return []string{"exec"}, true
	case "bun":
		return []string{"x"}, true
	case "python", "python3":
		return []string{"-m"}, true
	}
	return nil, false
}

// launcherValueFlags are flags of launchers that take the next word as
// their value (so that word is not the package).
var launcherValueFlags = [...]string{"-p", "--package", "--from", "--with", "-e",
	"--env", "-v", "--volume", "--name", "--network", "--entrypoint", "-w", "--workdir"}

// commandName names an ad-hoc stdio target (-- COMMAND ARGS…) as a person
// would: the package a launcher runs (npx -y @scope/server-foo →
// server-foo, uvx mcp-server-git → mcp-server-git, docker run -i
// ghcr.io/org/img:1 → img, node dist/index.js → index), else the
// command's base name. The result is a valid server name.
func commandName(words []string) string {
	base := path.Base(strings.ReplaceAll(words[0], `\`, "/"))
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".exe"), ".cmd")
	name := base
	if sub, ok := launcher(base); ok {
		if pkg := packageWord(words[1:], sub); pkg != "" {
			name = packageName(base, pkg)
		}
	}
	return validName(name, base)
}

// packageWord returns the first argument that is not a flag (nor a flag's
// value), after the launcher's subcommand words.
func packageWord(args, sub []string) string {
	for len(sub) > 0 && len(args) > 0 && args[0] == sub[0] {
		args, sub = args[1:], sub[1:]
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			continue
		case strings.HasPrefix(a, "-"):
			if slices.Contains(launcherValueFlags[:], a) && !strings.Contains(a, "=") {
				i++
			}
			continue
		}
		return a
	}
	return ""
}

// packageName reduces a package reference to its name: no scope, no
// version, no registry path, no file extension.
func packageName(launcher, pkg string) string {
	switch launcher {
	case "docker", "podman":
		pkg = path.Base(pkg)
		if i := strings.IndexAny(pkg, ":@"); i > 0 {
			pkg = pkg[:i]
		}
		return pkg
	case "node", "deno":
		pkg = path.Base(strings.ReplaceAll(pkg, `\`, "/"))
		if i := strings.LastIndexByte(pkg, '.'); i > 0 {
			pkg = pkg[:i]
		}
		return pkg
	}
	if i := strings.LastIndexByte(pkg, '/'); i >= 0 { // @scope/name, git URLs
		pkg = pkg[i+1:]
	}
	if i := strings.IndexAny(pkg[min(1, len(pkg)):], "@=<>~[ "); i >= 0 { // name@1.2.3, name==1.0, name[extra]
		pkg = pkg[:i+1]
	}
	return strings.TrimSuffix(pkg, ".git")
}

// validName makes name a valid server name (letters, digits, _ - .),
// falling back to fallback, then "server".
func validName(name, fallback string) string {
	for _, n := range []string{name, fallback} {
		var b strings.Builder
		for _, r := range n {
			switch {
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
				b.WriteRune(r)
			default:
				b.WriteByte('-')
			}
		}
		s := strings.TrimLeft(b.String(), "-.")
		if len(s) > 64 {
			s = s[:64]
		}
		if config.ValidName(s) == nil {
			return s
		}
	}
	return "server"
}
