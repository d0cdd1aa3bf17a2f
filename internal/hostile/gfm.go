package hostile

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
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

// tags are the tags, comments and declarations of an HTML text: each
// "<" to the next ">" (or the end), as the expression `<[^>]*>?` finds
// them. No regexp: this package is linked into the binary.
func tags(html string) []string {
	var out []string
	for {
		i := strings.IndexByte(html, '<')
		if i < 0 {
			return out
		}
		html = html[i:]
		j := strings.IndexByte(html, '>')
		if j < 0 {
			return append(out, html)
		}
		out = append(out, html[:j+1])
		html = html[j+1:]
	}
}

// safeTags are the tags mcpwire's Markdown may make: paragraphs, its one
// heading, tables, code spans, bold, and struck text.
var safeTags = map[string]bool{"p": true, "h3": true, "table": true, "thead": true, "tbody": true, "tr": true,
	"th": true, "td": true, "code": true, "strong": true, "del": true}

// CheckHTML fails when the HTML that Markdown became holds anything but
// safeTags, without attributes (but a cell's alignment): no link, image,
// script, comment or other element of someone else's.
func CheckHTML(html string) error {
	for _, tag := range tags(html) {
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
