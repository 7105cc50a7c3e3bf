package cube

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// member is one regular file of the tar archive: where its content lies.
type member struct {
	name   string
	offset int64 // archive byte offset of the content
	size   int64
	header int64 // archive byte offset of its header block
}

// archive is the table of contents of a CUBE4 tar file, read once; the
// members' contents are read later through ra (the anchor comes last in
// the files Score-P writes, so one forward pass cannot convert).
type archive struct {
	ra      io.ReaderAt
	size    int64
	gzipped bool
	members map[string]member
	// badChecksums counts headers whose checksum was wrong (CubeWriter 4.8
	// writes some); they are read anyway, as cubelib and pycubexr do.
	badChecksums []int64
}

// posError is a problem at a byte offset of the archive or of a member;
// the converter turns it into a *convert.Error.
type posError struct {
	member string // "" for the archive itself
	offset int64  // within member ("" member: within the archive)
	arch   int64  // archive offset, -1 when the same as offset
	record string // "entry 5" and the like, when the format has records
	msg    string
}

func (e *posError) Error() string { return e.position() + ": " + e.msg }

func (e *posError) position() string {
	var b strings.Builder
	if e.member != "" {
		b.WriteString(e.member + " ")
	}
	if e.record != "" {
		b.WriteString(e.record + " ")
	}
	b.WriteString("byte " + strconv.FormatInt(e.offset, 10))
	if e.arch >= 0 && e.member != "" {
		b.WriteString(" (archive byte " + strconv.FormatInt(e.arch, 10) + ")")
	}
	return b.String()
}

func archErr(off int64, format string, args ...any) *posError {
	return &posError{offset: off, arch: -1, msg: fmt.Sprintf(format, args...)}
}

const block = 512

// openArchive lists the members of a tar archive (a gzip-compressed one is
// decompressed into memory first; offsets then count in the decompressed
// archive).
func openArchive(ra io.ReaderAt, size int64) (*archive, error) {
	a := &archive{ra: ra, size: size, members: map[string]member{}}
	var magic [2]byte
	if n, _ := ra.ReadAt(magic[:], 0); n == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(io.NewSectionReader(ra, 0, size))
		if err != nil {
			return nil, archErr(0, "gzip header: %v", err)
		}
		data, err := io.ReadAll(zr)
		if err != nil {
			return nil, archErr(0, "gzip stream: %v (after %d decompressed bytes)", err, len(data))
		}
		a.ra, a.size, a.gzipped = bytes.NewReader(data), int64(len(data)), true
	}
	if err := a.scan(); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *archive) scan() error {
	var hdr [block]byte
	longName := ""
	for off := int64(0); ; {
		if off+block > a.size {
			if off == a.size && len(a.members) > 0 {
				return nil // no end-of-archive blocks: tolerated, as GNU tar does
			}
			return archErr(off, "truncated archive: want a %d-byte tar header, %d bytes left", block, a.size-off)
		}
		if _, err := a.ra.ReadAt(hdr[:], off); err != nil {
			return archErr(off, "reading a tar header: %v", err)
		}
		if allZero(hdr[:]) {
			if len(a.members) == 0 {
				return archErr(off, "empty tar archive (not a CUBE4 file)")
			}
			return nil
		}
		sum, err := octal(hdr[148:156])
		if err != nil || !checksumOK(hdr[:], sum) {
			if !bytes.HasPrefix(hdr[257:], []byte("ustar")) {
				return archErr(off, "not a tar header (bad checksum, no ustar magic): not a CUBE4 archive")
			}
			a.badChecksums = append(a.badChecksums, off)
		}
		size, err := sizeField(hdr[124:136])
		if err != nil {
			return archErr(off+124, "tar header size field: %v", err)
		}
		content := off + block
		if size < 0 || content+size > a.size {
			return archErr(off, "truncated archive: member %q of %d bytes at byte %d runs past the end (%d bytes)", name(hdr[:]), size, content, a.size)
		}
		switch typ := hdr[156]; typ {
		case 'L': // GNU long name: the content is the next member's name
			b := make([]byte, size)
			if _, err := a.ra.ReadAt(b, content); err != nil {
				return archErr(content, "reading a long name: %v", err)
			}
			longName = string(bytes.TrimRight(b, "\x00"))
		case '0', 0, '7':
			n := name(hdr[:])
			if longName != "" {
				n, longName = longName, ""
			}
			n = strings.TrimPrefix(n, "./")
			a.members[n] = member{name: n, offset: content, size: size, header: off}
		default: // directories, links, pax headers: nothing a CUBE file needs
			longName = ""
		}
		off = content + (size+block-1)/block*block
	}
}

// read returns a member's content.
func (a *archive) read(m member) ([]byte, error) {
	b := make([]byte, m.size)
	if _, err := a.ra.ReadAt(b, m.offset); err != nil {
		return nil, &posError{member: m.name, arch: m.offset, msg: fmt.Sprintf("reading: %v", err)}
	}
	return b, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func name(h []byte) string {
	n := cstr(h[0:100])
	if bytes.HasPrefix(h[257:], []byte("ustar")) {
		if p := cstr(h[345:500]); p != "" {
			n = p + "/" + n
		}
	}
	return n
}

func cstr(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

func octal(b []byte) (int64, error) {
	s := strings.Trim(cstr(b), " ")
	if s == "" {
		return 0, nil
	}
	return strconv.ParseInt(s, 8, 64)
}

// sizeField reads an octal size or GNU's base-256 form.
func sizeField(b []byte) (int64, error) {
	if b[0]&0x80 != 0 {
		var n int64
		for i, c := range b {
			if i == 0 {
				c &= 0x7f
			}
			if n > (1<<62)>>8 {
				return 0, fmt.Errorf("base-256 size overflows")
			}
			n = n<<8 | int64(c)
		}
		return n, nil
	}
	return octal(b)
}

// checksumOK accepts the unsigned and the signed byte sum (old tars used
// signed chars), with the checksum field counted as spaces.
func checksumOK(h []byte, want int64) bool {
	var u, s int64
	for i, c := range h {
		if i >= 148 && i < 156 {
			c = ' '
		}
		u += int64(c)
		s += int64(int8(c))
	}
	return want == u || want == s
}
