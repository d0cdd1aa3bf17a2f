package registry

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
)

// The zip reader of MCPB bundles: the central directory, stored and
// deflated members, their CRC-32 checked. It is here, not archive/zip,
// because archive/zip's init registers its compressor: linking it cost
// the release binary 90,112 bytes for a reader of some 200 lines.
// Encrypted members, other methods, multi-disk and zip64 archives are
// refused (a bundle is at most MaxBundle bytes, far below zip64's sizes).

// errNotZip and its kin say why an archive was refused.
var (
	errNotZip    = errors.New("no end of central directory record")
	errZip64     = errors.New("a zip64 or multi-disk archive (not supported)")
	errZipFormat = errors.New("a malformed central directory")
)

// Signatures and sizes of the records read (APPNOTE.TXT 4.3).
const (
	zipEndSig     = 0x06054b50
	zipDirSig     = 0x02014b50
	zipLocalSig   = 0x04034b50
	zipEndLen     = 22
	zipDirLen     = 46
	zipLocalLen   = 30
	zipMaxComment = 0xffff // the longest archive comment
)

// A zipMember is one member of the central directory.
type zipMember struct {
	Name    string
	creator uint16 // version made by: its high byte is the host system
	flags   uint16
	method  uint16
	crc     uint32
	csize   uint64
	usize   uint64
	attrs   uint32 // external attributes
	offset  uint64 // of its local header
	data    []byte // the whole archive
}

// readZip reads the central directory of the archive data.
func readZip(data []byte) ([]*zipMember, error) {
	end, err := zipEnd(data)
	if err != nil {
		return nil, err
	}
	disk, count := binary.LittleEndian.Uint16(end[4:]), binary.LittleEndian.Uint16(end[10:])
	size, off := binary.LittleEndian.Uint32(end[12:]), binary.LittleEndian.Uint32(end[16:])
	if disk != 0 || count == 0xffff || size == 0xffffffff || off == 0xffffffff {
		return nil, errZip64
	}
	if uint64(off)+uint64(size) > uint64(len(data)) {
		return nil, errZipFormat
	}
	dir := data[off : off+size]
	files := make([]*zipMember, 0, min(int(count), MaxBundleFiles+1))
	for i := 0; i < int(count); i++ {
		f, rest, err := zipDirEntry(dir, data)
		if err != nil {
			return nil, err
		}
		files, dir = append(files, f), rest
	}
	return files, nil
}

// zipEnd finds the end of central directory record: the last signature
// in the final 22 bytes plus the longest comment.
func zipEnd(data []byte) ([]byte, error) {
	if len(data) < zipEndLen {
		return nil, errNotZip
	}
	from := max(0, len(data)-zipEndLen-zipMaxComment)
	for i := len(data) - zipEndLen; i >= from; i-- {
		if binary.LittleEndian.Uint32(data[i:]) == zipEndSig {
			return data[i : i+zipEndLen], nil
		}
	}
	return nil, errNotZip
}

// zipDirEntry reads one central directory entry from the start of dir.
func zipDirEntry(dir, data []byte) (*zipMember, []byte, error) {
	if len(dir) < zipDirLen || binary.LittleEndian.Uint32(dir) != zipDirSig {
		return nil, nil, errZipFormat
	}
	le := binary.LittleEndian
	n, m, k := int(le.Uint16(dir[28:])), int(le.Uint16(dir[30:])), int(le.Uint16(dir[32:]))
	if len(dir) < zipDirLen+n+m+k {
		return nil, nil, errZipFormat
	}
	f := &zipMember{
		creator: le.Uint16(dir[4:]), flags: le.Uint16(dir[8:]), method: le.Uint16(dir[10:]),
		crc: le.Uint32(dir[16:]), csize: uint64(le.Uint32(dir[20:])), usize: uint64(le.Uint32(dir[24:])),
		attrs: le.Uint32(dir[38:]), offset: uint64(le.Uint32(dir[42:])), data: data,
		Name: string(dir[zipDirLen : zipDirLen+n]),
	}
	if f.csize == 0xffffffff || f.usize == 0xffffffff || f.offset == 0xffffffff {
		return nil, nil, errZip64
	}
	return f, dir[zipDirLen+n+m+k:], nil
}

// Mode is the member's file mode as archive/zip's FileHeader.Mode says
// it: Unix permissions and type for an archive made on Unix or macOS,
// MS-DOS attributes for one made on FAT, NTFS or VFAT, a directory for a
// name ending in "/".
func (f *zipMember) Mode() fs.FileMode {
	var mode fs.FileMode
	switch f.creator >> 8 {
	case 3, 19: // Unix, OS X
		mode = unixMode(f.attrs >> 16)
	case 0, 11, 14: // FAT, NTFS, VFAT
		mode = 0o666
		if f.attrs&0x10 != 0 {
			mode = fs.ModeDir | 0o777
		}
		if f.attrs&0x01 != 0 {
			mode &^= 0o222
		}
	}
	if len(f.Name) > 0 && f.Name[len(f.Name)-1] == '/' {
		mode |= fs.ModeDir
	}
	return mode
}

// unixMode maps a Unix st_mode to a file mode.
func unixMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & 0o170000 {
	case 0o060000:
		mode |= fs.ModeDevice
	case 0o020000:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case 0o040000:
		mode |= fs.ModeDir
	case 0o010000:
		mode |= fs.ModeNamedPipe
	case 0o120000:
		mode |= fs.ModeSymlink
	case 0o140000:
		mode |= fs.ModeSocket
	}
	if m&0o4000 != 0 {
		mode |= fs.ModeSetuid
	}
	if m&0o2000 != 0 {
		mode |= fs.ModeSetgid
	}
	if m&0o1000 != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// Open returns a reader of the member's content: inflated, its size and
// CRC-32 checked at the end.
func (f *zipMember) Open() (io.ReadCloser, error) {
	if f.flags&0x1 != 0 {
		return nil, errors.New("an encrypted member (not supported)")
	}
	d, le := f.data, binary.LittleEndian
	if f.offset > uint64(len(d)) || uint64(len(d))-f.offset < zipLocalLen || le.Uint32(d[f.offset:]) != zipLocalSig {
		return nil, errors.New("no local file header where the directory says")
	}
	start := f.offset + zipLocalLen + uint64(le.Uint16(d[f.offset+26:])) + uint64(le.Uint16(d[f.offset+28:]))
	if start > uint64(len(d)) || uint64(len(d))-start < f.csize {
		return nil, errors.New("its data runs past the end of the archive")
	}
	body := bytes.NewReader(d[start : start+f.csize])
	var r io.ReadCloser
	switch f.method {
	case 0:
		r = io.NopCloser(body)
	case 8:
		r = flate.NewReader(body)
	default:
		return nil, fmt.Errorf("compression method %d (not supported)", f.method)
	}
	return &zipChecked{r: r, h: crc32.NewIEEE(), want: f.crc, size: f.usize}, nil
}

// zipChecked reads a member and checks its size and CRC-32 at its end.
type zipChecked struct {
	_ [0]func() // not comparable: no equality function in the binary

	r    io.ReadCloser
	h    hash.Hash32
	want uint32
	size uint64
	n    uint64
}

func (z *zipChecked) Read(p []byte) (int, error) {
	n, err := z.r.Read(p)
	z.h.Write(p[:n])
	z.n += uint64(n)
	if z.n > z.size {
		return n, errors.New("larger than its directory entry says")
	}
	if err == io.EOF {
		if z.n != z.size {
			return n, io.ErrUnexpectedEOF
		}
		if z.h.Sum32() != z.want {
			return n, errors.New("its CRC-32 does not match: a corrupt archive")
		}
	}
	return n, err
}

func (z *zipChecked) Close() error { return z.r.Close() }
