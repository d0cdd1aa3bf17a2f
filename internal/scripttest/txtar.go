package scripttest

import (
	"bytes"
	"fmt"
	"path"
	"strings"
)

// An Archive is a txtar archive: a comment (here, the script) followed by
// files, each introduced by a marker line "-- NAME --".
type Archive struct {
	Comment []byte
	Files   []File
}

// A File is one file of an Archive.
type File struct {
	Name string // slash-separated, relative
	Data []byte
}

// ParseArchive parses the txtar format. It never fails: text before the first
// marker line is the comment, and every marker line starts a new file whose
// data runs to the next marker line or the end. A line is a marker when it is
// exactly "-- " + name + " --" with a non-empty name that has no surrounding
// spaces. Line ends inside a file are kept; a file's data that does not end
// in a newline (the last file of an archive without one) gets one added.
func ParseArchive(data []byte) *Archive {
	a := new(Archive)
	var name string
	a.Comment, name, data = splitAtMarker(data)
	for name != "" {
		f := File{Name: name}
		f.Data, name, data = splitAtMarker(data)
		a.Files = append(a.Files, f)
	}
	return a
}

// splitAtMarker returns the text before the first marker line, the name in
// that marker, and the text after the marker line. With no marker, it returns
// all of data (with a final newline ensured) and an empty name.
func splitAtMarker(data []byte) (before []byte, name string, after []byte) {
	i := 0
	for i < len(data) {
		end := bytes.IndexByte(data[i:], '\n')
		var line []byte
		next := len(data)
		if end >= 0 {
			line = data[i : i+end]
			next = i + end + 1
		} else {
			line = data[i:]
		}
		if n, ok := markerName(line); ok {
			return data[:i:i], n, data[next:]
		}
		i = next
	}
	return fixNewline(data), "", nil
}

// markerName reports whether line is a file marker and returns its name.
func markerName(line []byte) (string, bool) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if !bytes.HasPrefix(line, []byte("-- ")) || !bytes.HasSuffix(line, []byte(" --")) || len(line) < len("-- x --") {
		return "", false
	}
	name := string(line[3 : len(line)-3])
	if name == "" || strings.TrimSpace(name) != name {
		return "", false
	}
	return name, true
}

// fixNewline returns data with a final newline, unless data is empty.
func fixNewline(data []byte) []byte {
	if len(data) == 0 || data[len(data)-1] == '\n' {
		return data
	}
	out := make([]byte, len(data)+1)
	copy(out, data)
	out[len(data)] = '\n'
	return out
}

// Format returns the txtar text of a: the comment, then each file with its
// marker line. ParseArchive(a.Format()) gives a back when every file's data
// ends in a newline (or is empty) and no data line looks like a marker.
func (a *Archive) Format() []byte {
	var buf bytes.Buffer
	buf.Write(fixNewline(a.Comment))
	for _, f := range a.Files {
		fmt.Fprintf(&buf, "-- %s --\n", f.Name)
		buf.Write(fixNewline(f.Data))
	}
	return buf.Bytes()
}

// checkName reports an error for a file name that is not a clean relative
// slash-separated path inside the work directory.
func checkName(name string) error {
	if name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, `\`) ||
		path.Clean(name) != name || name == ".." || strings.HasPrefix(name, "../") || strings.Contains(name, ":") {
		return fmt.Errorf("file name %q: want a clean relative path inside the work directory", name)
	}
	return nil
}
