//go:build !unix

package cli

import "io/fs"

// ownerOf is unknown here: the folder's access control decides.
func ownerOf(fs.FileInfo) (int, bool) { return 0, false }

// othersMayReach is unknown from a mode here (Windows gives every folder
// 0777): the folder's access control decides, and the daemon's pipe is
// trusted by its own (sessionpipe_windows.go).
func othersMayReach(fs.FileInfo) bool { return false }
