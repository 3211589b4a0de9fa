package mapreduce

import (
	"io"

	"github.com/clusterlens/clusterlens/internal/lines"
	"github.com/clusterlens/clusterlens/internal/model"
)

// maxDatum caps one Avro string or bytes value, so that a corrupt length
// cannot claim more memory than this.
const maxDatum = 64 << 20

// Reader reads MapReduce job histories with a line limit.
type Reader struct {
	// MaxLine is the longest line (or legacy record) read, in bytes (0:
	// lines.DefaultMax); longer ones are skipped without being held and
	// counted in Quality.LongLines.
	MaxLine int64
}

// lineReader returns the lines of a history, numbering them.
type lineReader struct {
	*lines.Reader
	line int64 // number of the line last returned, from 1
}

func newLineReader(r io.Reader, max int64) *lineReader {
	return &lineReader{Reader: lines.NewReader(r, max)}
}

// next returns the next line (see lines.Line). err is io.EOF at the end.
func (l *lineReader) next() (lines.Line, error) {
	ln, err := l.Next()
	if err == nil {
		l.line = ln.Number
	}
	return ln, err
}

// tooLong counts a line over the limit in q.
func (l *lineReader) tooLong(q *model.Quality, file string, ln lines.Line) {
	q.LongLines++
	q.Add(file, ln.Number, lines.TooLong(ln.Len, l.Max()))
}
