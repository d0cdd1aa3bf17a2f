package protocol

import "strings"

// Icons (2026-07-28: an icon's src is an https: URL or a data: URI):
// icons with any other src (http:, file:, javascript:, a relative
// reference) are dropped from what the session returns, and
// Options.OnIconDropped is told of each.

// iconSafe says whether src is an https: URL or a data: URI.
func iconSafe(src string) bool {
	l := strings.ToLower(src)
	return strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "data:")
}

// keepIcons drops the icons of icons that are not safe; what names their
// owner for OnIconDropped.
func (s *Session) keepIcons(what string, icons *[]Icon) {
	if len(*icons) == 0 {
		return
	}
	kept := (*icons)[:0:0]
	for _, ic := range *icons {
		if iconSafe(ic.Src) {
			kept = append(kept, ic)
		} else if f := s.opts.OnIconDropped; f != nil {
			f(what, ic.Src)
		}
	}
	if len(kept) == 0 {
		kept = nil
	}
	*icons = kept
}

// An iconHolder is a listed item with icons; iconWhat names it (asked
// only when an icon is dropped: a listing of thousands builds no names).
type iconHolder interface {
	iconList() *[]Icon
	iconWhat() string
}

func (t *Tool) iconList() *[]Icon             { return &t.Icons }
func (t *Tool) iconWhat() string              { return "tool " + t.Name }
func (r *Resource) iconList() *[]Icon         { return &r.Icons }
func (r *Resource) iconWhat() string          { return "resource " + r.URI }
func (r *ResourceTemplate) iconList() *[]Icon { return &r.Icons }
func (r *ResourceTemplate) iconWhat() string  { return "resource template " + r.URITemplate }
func (p *Prompt) iconList() *[]Icon           { return &p.Icons }
func (p *Prompt) iconWhat() string            { return "prompt " + p.Name }

// keepItemIcons is keepIcons for a listed item, when it has icons.
func (s *Session) keepItemIcons(item any) {
	if h, ok := item.(iconHolder); ok {
		if icons := h.iconList(); len(*icons) > 0 {
			s.keepIcons(h.iconWhat(), icons)
		}
	}
}
