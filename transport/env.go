package transport

import (
	"runtime"
	"slices"
	"strings"
)

// hostVars are the variables of the host that a stdio server gets: what a
// program needs to run, find files, speak the user's language, and reach
// the network through the user's proxy and CA certificates. Nothing else of
// the host goes through (API keys stay home).
var hostVars = []string{
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "TZ", "TMPDIR",
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"http_proxy", "https_proxy", "no_proxy", "all_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
}

// windowsVars are added on Windows, where programs fail without them.
var windowsVars = []string{
	"SystemRoot", "SystemDrive", "windir", "ComSpec", "PATHEXT",
	"USERPROFILE", "APPDATA", "LOCALAPPDATA", "TEMP", "TMP",
}

// ChildEnv returns the environment of a stdio server: from environ (the
// host's, as os.Environ gives it) only PATH, HOME, USER, LOGNAME, LANG,
// LC_*, TZ, TMPDIR, the proxy variables (HTTP_PROXY, HTTPS_PROXY, NO_PROXY,
// ALL_PROXY, in upper and lower case), the CA variables (SSL_CERT_FILE,
// SSL_CERT_DIR, NODE_EXTRA_CA_CERTS, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE),
// and on Windows SystemRoot, SystemDrive, windir, ComSpec, PATHEXT,
// USERPROFILE, APPDATA, LOCALAPPDATA, TEMP and TMP; then env on top. The
// result is sorted by name. Names in env that are empty or hold "=" or NUL
// are left out.
func ChildEnv(environ []string, env map[string]string) []string {
	return childEnv(runtime.GOOS, environ, env)
}

func childEnv(goos string, environ []string, env map[string]string) []string {
	windows := goos == "windows"
	// On Windows names are case-insensitive: key them by upper case.
	key := func(name string) string {
		if windows {
			return strings.ToUpper(name)
		}
		return name
	}
	allowed := func(name string) bool {
		if strings.HasPrefix(name, "LC_") {
			return true
		}
		match := func(v string) bool {
			if windows {
				return strings.EqualFold(v, name)
			}
			return v == name
		}
		return slices.ContainsFunc(hostVars, match) || windows && slices.ContainsFunc(windowsVars, match)
	}
	vars := map[string]string{} // key → "NAME=value"
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" || !allowed(name) {
			continue
		}
		vars[key(name)] = kv // a later duplicate wins, as in exec.Cmd
	}
	for name, v := range env {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			continue
		}
		vars[key(name)] = name + "=" + v
	}
	out := make([]string, 0, len(vars))
	for _, kv := range vars {
		out = append(out, kv)
	}
	slices.Sort(out)
	return out
}
