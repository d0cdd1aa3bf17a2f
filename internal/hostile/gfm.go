package hostile

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
)

// ErrNoRenderer is RenderGFM's error when cmark-gfm is not installed
// (scripts/cmark.sh installs it).
var ErrNoRenderer = errors.New("cmark-gfm is not installed (scripts/cmark.sh installs it)")

// RenderGFM renders Markdown to HTML with cmark-gfm, GitHub's own
// renderer, as GitHub renders a pull-request comment (tables, autolinks,
// strikethrough) but with raw HTML let through (--unsafe), so that a
// check sees any that the Markdown holds.
func RenderGFM(md string) (string, error) {
	path, err := exec.LookPath("cmark-gfm")
	if err != nil {
		return "", ErrNoRenderer
	}
	cmd := exec.Command(path, "--unsafe", "-e", "table", "-e", "autolink", "-e", "strikethrough")
	cmd.Stdin = strings.NewReader(md)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("cmark-gfm: %v: %s", err, stderr.String())
	}
	return string(out), nil
}

// tagRE finds the tags, comments and declarations of an HTML text.
var tagRE = regexp.MustCompile(`<[^>]*>?`)

// safeTags are the tags mcpwire's Markdown may make: paragraphs, its one
// heading, tables, code spans, bold, and struck text.
var safeTags = map[string]bool{"p": true, "h3": true, "table": true, "thead": true, "tbody": true, "tr": true,
	"th": true, "td": true, "code": true, "strong": true, "del": true}

// CheckHTML fails when the HTML that Markdown became holds anything but
// safeTags, without attributes (but a cell's alignment): no link, image,
// script, comment or other element of someone else's.
func CheckHTML(html string) error {
	for _, tag := range tagRE.FindAllString(html, -1) {
		name := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(tag, "<"), "/"), ">")
		if strings.HasPrefix(name, "!") || strings.HasPrefix(name, "?") {
			return fmt.Errorf("a comment or declaration: %q", tag)
		}
		name, attrs, _ := strings.Cut(name, " ")
		if !safeTags[name] || attrs != "" && !strings.HasPrefix(attrs, `align="`) {
			return fmt.Errorf("an element not mcpwire's: %q", tag)
		}
	}
	return nil
}
