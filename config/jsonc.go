package config

// StripJSONC turns JSON with comments (// and /* */) and trailing commas,
// as VS Code, Cursor and Gemini CLI accept in their settings, into plain
// JSON: comments become spaces (so offsets and line numbers stay), and a
// comma before a closing bracket or brace becomes a space. Strings are
// left alone. Input that is not JSONC comes out as broken as it went in,
// for the JSON parser to report.
func StripJSONC(data []byte) []byte {
	out := make([]byte, len(data))
	copy(out, data)
	inString := false
	lastComma := -1 // offset of a comma that may be trailing
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
			lastComma = -1
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			j := i + 2
			for j+1 < len(out) && !(out[j] == '*' && out[j+1] == '/') {
				j++
			}
			end := min(j+2, len(out))
			for k := i; k < end; k++ {
				if out[k] != '\n' {
					out[k] = ' '
				}
			}
			i = end - 1
		case c == ',':
			lastComma = i
		case c == '}' || c == ']':
			if lastComma >= 0 {
				out[lastComma] = ' '
			}
			lastComma = -1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			lastComma = -1
		}
	}
	return out
}
