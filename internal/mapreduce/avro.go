package mapreduce

import (
	"github.com/clusterlens/clusterlens/internal/jsonscan"

	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// A small schema-driven Avro binary decoder (Apache Avro 1.x specification,
// "Binary Encoding"), enough for any schema a job history uses. It does not
// build values: it transcodes one binary datum into its Avro-JSON encoding
// (the form "Avro-Json" histories hold, unions as {"<branch>": value}), so
// the binary and JSON forms of a history go through the same event decoder
// and give identical models.

type avroKind uint8

const (
	avroNull avroKind = iota
	avroBoolean
	avroInt
	avroLong
	avroFloat
	avroDouble
	avroBytes
	avroString
	avroRecord
	avroEnum
	avroArray
	avroMap
	avroUnion
	avroFixed
)

var avroPrimitives = map[string]avroKind{
	"null": avroNull, "boolean": avroBoolean, "int": avroInt, "long": avroLong,
	"float": avroFloat, "double": avroDouble, "bytes": avroBytes, "string": avroString,
}

type avroSchema struct {
	kind     avroKind
	name     string   // full name for named types; the union branch name otherwise
	key      []byte   // {"name": as Avro-JSON writes it for a union branch
	quoted   [][]byte // enum symbols as JSON strings
	fields   []avroField
	symbols  []string
	items    *avroSchema // array items or map values
	branches []*avroSchema
	size     int
}

type avroField struct {
	name string
	key  []byte // "name": as JSON
	typ  *avroSchema
}

// errAvro is wrapped by schema and datum errors.
var errAvro = errors.New("avro")

// schemaCache keeps parsed schemas by their text: every history a Hadoop
// version writes carries the same schema. Parsed schemas are immutable.
var schemaCache struct {
	sync.Mutex
	m map[string]*avroSchema
}

// parseAvroSchema parses an Avro schema in its JSON form.
func parseAvroSchema(b []byte) (*avroSchema, error) {
	schemaCache.Lock()
	s, ok := schemaCache.m[string(b)]
	schemaCache.Unlock()
	if ok {
		return s, nil
	}
	s, err := parseAvroSchemaText(b)
	if err != nil {
		return nil, err
	}
	schemaCache.Lock()
	if schemaCache.m == nil || len(schemaCache.m) >= 32 {
		schemaCache.m = map[string]*avroSchema{}
	}
	schemaCache.m[string(b)] = s
	schemaCache.Unlock()
	return s, nil
}

func parseAvroSchemaText(b []byte) (*avroSchema, error) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("%w: schema: %v", errAvro, err)
	}
	p := schemaParser{named: map[string]*avroSchema{}}
	return p.parse(v, "", 0)
}

type schemaParser struct {
	named map[string]*avroSchema
}

func (p *schemaParser) parse(v any, ns string, depth int) (*avroSchema, error) {
	if depth > 64 {
		return nil, fmt.Errorf("%w: schema nested too deep", errAvro)
	}
	switch t := v.(type) {
	case string:
		if k, ok := avroPrimitives[t]; ok {
			return &avroSchema{kind: k, name: t}, nil
		}
		full := t
		if !strings.Contains(t, ".") && ns != "" {
			full = ns + "." + t
		}
		if s, ok := p.named[full]; ok {
			return s, nil
		}
		if s, ok := p.named[t]; ok {
			return s, nil
		}
		return nil, fmt.Errorf("%w: schema: unknown type %q", errAvro, t)
	case []any:
		u := &avroSchema{kind: avroUnion, name: "union"}
		for _, b := range t {
			s, err := p.parse(b, ns, depth+1)
			if err != nil {
				return nil, err
			}
			s.key = append(append([]byte{'{'}, jsonscan.AppendString(nil, []byte(s.name))...), ':')
			u.branches = append(u.branches, s)
		}
		if len(u.branches) == 0 {
			return nil, fmt.Errorf("%w: schema: empty union", errAvro)
		}
		return u, nil
	case map[string]any:
		typ, ok := t["type"].(string)
		if !ok {
			if inner, ok := t["type"]; ok {
				return p.parse(inner, ns, depth+1)
			}
			return nil, fmt.Errorf("%w: schema: object without type", errAvro)
		}
		switch typ {
		case "record", "error", "enum", "fixed":
			name, _ := t["name"].(string)
			if name == "" {
				return nil, fmt.Errorf("%w: schema: %s without name", errAvro, typ)
			}
			if n, _ := t["namespace"].(string); n != "" && !strings.Contains(name, ".") {
				ns = n
			}
			full := name
			if !strings.Contains(name, ".") && ns != "" {
				full = ns + "." + name
			}
			if i := strings.LastIndexByte(full, '.'); i >= 0 {
				ns = full[:i]
			}
			s := &avroSchema{name: full}
			p.named[full] = s
			switch typ {
			case "enum":
				s.kind = avroEnum
				syms, _ := t["symbols"].([]any)
				for _, x := range syms {
					str, _ := x.(string)
					s.symbols = append(s.symbols, str)
					s.quoted = append(s.quoted, jsonscan.AppendString(nil, []byte(str)))
				}
			case "fixed":
				s.kind = avroFixed
				size, _ := t["size"].(float64)
				if size < 0 || size > 1<<20 {
					return nil, fmt.Errorf("%w: schema: fixed size %v", errAvro, size)
				}
				s.size = int(size)
			default:
				s.kind = avroRecord
				fields, _ := t["fields"].([]any)
				for _, f := range fields {
					fm, _ := f.(map[string]any)
					fname, _ := fm["name"].(string)
					ft, err := p.parse(fm["type"], ns, depth+1)
					if err != nil {
						return nil, err
					}
					key := append(jsonscan.AppendString(nil, []byte(fname)), ':')
					s.fields = append(s.fields, avroField{name: fname, key: key, typ: ft})
				}
			}
			return s, nil
		case "array":
			items, err := p.parse(t["items"], ns, depth+1)
			if err != nil {
				return nil, err
			}
			return &avroSchema{kind: avroArray, name: "array", items: items}, nil
		case "map":
			values, err := p.parse(t["values"], ns, depth+1)
			if err != nil {
				return nil, err
			}
			return &avroSchema{kind: avroMap, name: "map", items: values}, nil
		default:
			return p.parse(typ, ns, depth+1)
		}
	}
	return nil, fmt.Errorf("%w: schema: unexpected %T", errAvro, v)
}

// avroSource is what the transcoder reads from: a bufio.Reader for the
// Avro-Binary stream, a bytes.Reader for a container block.
type avroSource interface {
	io.Reader
	io.ByteReader
}

// maxAvroValues bounds the values of one datum, so a corrupt count cannot
// make the decoder loop for ever.
const maxAvroValues = 1 << 22

type transcoder struct {
	r      avroSource
	out    []byte
	buf    []byte
	values int
}

// datum transcodes one datum of schema s to Avro-JSON in t.out.
func (t *transcoder) datum(r avroSource, s *avroSchema) ([]byte, error) {
	t.r, t.out, t.values = r, t.out[:0], 0
	err := t.value(s, 0)
	return t.out, err
}

func (t *transcoder) long() (int64, error) {
	var u uint64
	for shift := uint(0); shift < 70; shift += 7 {
		c, err := t.r.ReadByte()
		if err != nil {
			if err == io.EOF && shift > 0 {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		u |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), nil
		}
	}
	return 0, fmt.Errorf("%w: varint too long", errAvro)
}

// bytes reads n bytes into t.buf, growing it as data arrives so that a
// corrupt length cannot allocate more than the input holds.
func (t *transcoder) bytes(n int64) ([]byte, error) {
	if n < 0 || n > maxDatum {
		return nil, fmt.Errorf("%w: length %d", errAvro, n)
	}
	if n <= int64(cap(t.buf)) || n <= 64<<10 {
		if n > int64(cap(t.buf)) {
			t.buf = make([]byte, n, max(n, 4<<10))
		}
		t.buf = t.buf[:n]
		if _, err := io.ReadFull(t.r, t.buf); err != nil {
			return nil, eof(err)
		}
		return t.buf, nil
	}
	t.buf = t.buf[:0]
	for int64(len(t.buf)) < n {
		chunk := min(n-int64(len(t.buf)), 64<<10)
		start := len(t.buf)
		t.buf = append(t.buf, make([]byte, chunk)...)
		if _, err := io.ReadFull(t.r, t.buf[start:]); err != nil {
			return nil, eof(err)
		}
	}
	return t.buf, nil
}

func (t *transcoder) value(s *avroSchema, depth int) error {
	t.values++
	if t.values > maxAvroValues || depth > 128 {
		return fmt.Errorf("%w: datum too large or too deep", errAvro)
	}
	switch s.kind {
	case avroNull:
		t.out = append(t.out, "null"...)
	case avroBoolean:
		c, err := t.r.ReadByte()
		if err != nil {
			return eof(err)
		}
		t.out = strconv.AppendBool(t.out, c != 0)
	case avroInt, avroLong:
		v, err := t.long()
		if err != nil {
			return eof(err)
		}
		t.out = strconv.AppendInt(t.out, v, 10)
	case avroFloat, avroDouble:
		n := int64(4)
		if s.kind == avroDouble {
			n = 8
		}
		b, err := t.bytes(n)
		if err != nil {
			return err
		}
		var f float64
		if n == 4 {
			f = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		} else {
			f = math.Float64frombits(binary.LittleEndian.Uint64(b))
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			t.out = append(t.out, "null"...)
		} else {
			t.out = strconv.AppendFloat(t.out, f, 'g', -1, 64)
		}
	case avroBytes, avroString, avroFixed:
		n := int64(s.size)
		if s.kind != avroFixed {
			var err error
			if n, err = t.long(); err != nil {
				return eof(err)
			}
		}
		b, err := t.bytes(n)
		if err != nil {
			return err
		}
		if s.kind == avroString {
			t.out = jsonscan.AppendString(t.out, b)
		} else {
			t.out = appendJSONLatin1(t.out, b)
		}
	case avroEnum:
		i, err := t.long()
		if err != nil {
			return eof(err)
		}
		if i < 0 || i >= int64(len(s.symbols)) {
			return fmt.Errorf("%w: enum %s index %d out of range", errAvro, s.name, i)
		}
		t.out = append(t.out, s.quoted[i]...)
	case avroRecord:
		t.out = append(t.out, '{')
		for i, f := range s.fields {
			if i > 0 {
				t.out = append(t.out, ',')
			}
			t.out = append(t.out, f.key...)
			if err := t.value(f.typ, depth+1); err != nil {
				return err
			}
		}
		t.out = append(t.out, '}')
	case avroArray, avroMap:
		open, close := byte('['), byte(']')
		if s.kind == avroMap {
			open, close = '{', '}'
		}
		t.out = append(t.out, open)
		first := true
		for {
			n, err := t.long()
			if err != nil {
				return eof(err)
			}
			if n == 0 {
				break
			}
			if n < 0 {
				if n == math.MinInt64 {
					return fmt.Errorf("%w: block count", errAvro)
				}
				n = -n
				if _, err := t.long(); err != nil { // block size in bytes
					return eof(err)
				}
			}
			if n > maxAvroValues {
				return fmt.Errorf("%w: block count %d", errAvro, n)
			}
			for ; n > 0; n-- {
				if !first {
					t.out = append(t.out, ',')
				}
				first = false
				if s.kind == avroMap {
					kl, err := t.long()
					if err != nil {
						return eof(err)
					}
					k, err := t.bytes(kl)
					if err != nil {
						return err
					}
					t.out = jsonscan.AppendString(t.out, k)
					t.out = append(t.out, ':')
				}
				if err := t.value(s.items, depth+1); err != nil {
					return err
				}
			}
		}
		t.out = append(t.out, close)
	case avroUnion:
		i, err := t.long()
		if err != nil {
			return eof(err)
		}
		if i < 0 || i >= int64(len(s.branches)) {
			return fmt.Errorf("%w: union branch %d out of range", errAvro, i)
		}
		br := s.branches[i]
		if br.kind == avroNull {
			t.out = append(t.out, "null"...)
			return nil
		}
		t.out = append(t.out, br.key...)
		if err := t.value(br, depth+1); err != nil {
			return err
		}
		t.out = append(t.out, '}')
	}
	return nil
}

// eof turns an io.EOF inside a datum into io.ErrUnexpectedEOF.
func eof(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

const hexDigits = "0123456789abcdef"

// appendJSONLatin1 appends bytes as Avro-JSON does: each byte a code point 0-255.
func appendJSONLatin1(dst, b []byte) []byte {
	dst = append(dst, '"')
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		case c < utf8.RuneSelf:
			dst = append(dst, c)
		default:
			dst = utf8.AppendRune(dst, rune(c))
		}
	}
	return append(dst, '"')
}
