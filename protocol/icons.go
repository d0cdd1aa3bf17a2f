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

// An iconHolder is a listed item with icons.
type iconHolder interface {
	iconsOf() (what string, icons *[]Icon)
}

func (t *Tool) iconsOf() (string, *[]Icon)     { return "tool " + t.Name, &t.Icons }
func (r *Resource) iconsOf() (string, *[]Icon) { return "resource " + r.URI, &r.Icons }
func (r *ResourceTemplate) iconsOf() (string, *[]Icon) {
	return "resource template " + r.URITemplate, &r.Icons
}
func (p *Prompt) iconsOf() (string, *[]Icon) { return "prompt " + p.Name, &p.Icons }

// keepItemIcons is keepIcons for a listed item, when it has icons.
func (s *Session) keepItemIcons(item any) {
	if h, ok := item.(iconHolder); ok {
		what, icons := h.iconsOf()
		s.keepIcons(what, icons)
	}
}
