package config

import (
	"errors"
	"fmt"
	"strings"
)

// ValidName reports whether name can name a server: 1 to 64 characters
// from A-Z a-z 0-9 _ - ., starting with a letter, digit or underscore. The
// name is used in file names (OAuth tokens) and tool names.
func ValidName(name string) error {
	if name == "" {
		return errors.New("a server name must not be empty")
	}
	if len(name) > 64 {
		return errors.New("a server name must be at most 64 characters")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' ||
			i > 0 && (c == '-' || c == '.')
		if !ok {
			return fmt.Errorf("server name %q: use letters, digits, _ - and . only, not starting with - or .", name)
		}
	}
	return nil
}

func envNameProblem(k string) string {
	if k == "" || strings.ContainsAny(k, "=\x00") {
		return "is not a valid environment variable name"
	}
	return ""
}

func headerNameProblem(k string) string {
	if k == "" {
		return "is not a valid header name"
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("()<>@,;:\\\"/[]?={}", c) >= 0 {
			return "is not a valid header name"
		}
	}
	return ""
}
