package mapreduce

import (
	"bufio"
	"errors"
	"io"
)

// maxLine caps one line (or legacy record); longer ones are skipped as bad.
const maxLine = 64 << 20

// lineReader returns the lines of a stream one at a time, of any length up
// to maxLine, without holding more than one line.
type lineReader struct {
	r    *bufio.Reader
	buf  []byte
	line int64 // number of the line last returned, from 1
	off  int64 // bytes consumed
}

func newLineReader(r io.Reader) *lineReader {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 64<<10 {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &lineReader{r: br}
}

// next returns the next line without its "\n" or "\r\n". complete is false
// for a last line that ended without a newline; tooLong is set (and the
// line's bytes dropped) when it exceeded maxLine. err is io.EOF at the end.
func (l *lineReader) next() (line []byte, complete, tooLong bool, err error) {
	l.buf = l.buf[:0]
	for {
		frag, e := l.r.ReadSlice('\n')
		l.off += int64(len(frag))
		if len(l.buf)+len(frag) <= maxLine {
			if e == nil && len(l.buf) == 0 {
				line = frag
			} else {
				l.buf = append(l.buf, frag...)
				line = l.buf
			}
		} else {
			tooLong = true
		}
		if errors.Is(e, bufio.ErrBufferFull) {
			continue
		}
		if e != nil && e != io.EOF {
			return nil, false, false, e
		}
		if e == io.EOF && len(line) == 0 && !tooLong {
			return nil, false, false, io.EOF
		}
		l.line++
		complete = e == nil
		if tooLong {
			return nil, complete, true, nil
		}
		n := len(line)
		if n > 0 && line[n-1] == '\n' {
			n--
			if n > 0 && line[n-1] == '\r' {
				n--
			}
		}
		return line[:n], complete, false, nil
	}
}
