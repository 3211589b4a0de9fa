package metrics

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/model"
)

// ReadSysstat streams samples from sysstat's `sadf -j` output (sysstat 11
// and 12: {"sysstat": {"hosts": [{"nodename", "timezone", "statistics":
// [...]}]}}), one record at a time: the envelope is read as tokens and each
// statistics record on its own, so memory holds one record whatever the
// size of the file. Each record's activities (cpu-load or cpu-load-all,
// process-and-context-switch, queue, paging, memory, disk, network/net-dev)
// become the canonical node metrics (docs/SOURCES.md has the table), stamped
// at the record's timestamp (the end of its interval) with the host's
// nodename. Metrics whose activity the file lacks are left out. name labels
// errors, which give the byte offset and what was expected. The Sample
// passed to fn is reused.
func ReadSysstat(r io.Reader, name string, fn func(*model.Sample) error) error {
	p := sysstatParser{dec: json.NewDecoder(r), name: name, fn: fn}
	if err := p.document(); err != nil {
		return err
	}
	return nil
}

// sysstatParser holds the decoder and scratch of one sadf -j document.
type sysstatParser struct {
	dec  *json.Decoder
	name string
	fn   func(*model.Sample) error
	raw  json.RawMessage
	sc   jsonscan.Scanner
	rec  sysstatRecord
	s    model.Sample
}

func (p *sysstatParser) fail(what string, err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return fmt.Errorf("%s: offset %d: want %s: %w", p.name, p.dec.InputOffset(), what, err)
	}
	return fmt.Errorf("%s: offset %d: want %s", p.name, p.dec.InputOffset(), what)
}

func (p *sysstatParser) delim(d json.Delim, what string) error {
	t, err := p.dec.Token()
	if err != nil {
		return p.fail(what, err)
	}
	if t != d {
		return p.fail(fmt.Sprintf("%s, got %v", what, t), nil)
	}
	return nil
}

func (p *sysstatParser) key() (string, error) {
	t, err := p.dec.Token()
	if err != nil {
		return "", p.fail("an object key", err)
	}
	k, ok := t.(string)
	if !ok {
		return "", p.fail(fmt.Sprintf("an object key, got %v", t), nil)
	}
	return k, nil
}

func (p *sysstatParser) skip(what string) error {
	if err := p.dec.Decode(&p.raw); err != nil {
		return p.fail(what, err)
	}
	return nil
}

// object reads an object, calling each for every key; each must consume
// the key's value.
func (p *sysstatParser) object(what string, each func(key string) error) error {
	if err := p.delim('{', what+": an object"); err != nil {
		return err
	}
	for p.dec.More() {
		k, err := p.key()
		if err != nil {
			return err
		}
		if err := each(k); err != nil {
			return err
		}
	}
	return p.delim('}', "the end of "+what)
}

func (p *sysstatParser) document() error {
	found := false
	err := p.object("the sadf -j document", func(k string) error {
		if k != "sysstat" {
			return p.skip(k + ": a JSON value")
		}
		found = true
		return p.object("sysstat", func(k string) error {
			if k != "hosts" {
				return p.skip("sysstat." + k + ": a JSON value")
			}
			if err := p.delim('[', "sysstat.hosts: an array"); err != nil {
				return err
			}
			for i := 0; p.dec.More(); i++ {
				if err := p.host(i); err != nil {
					return err
				}
			}
			return p.delim(']', "the end of sysstat.hosts")
		})
	})
	if err != nil {
		return err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return p.fail("the end of the document after its object", nil)
	}
	if !found {
		return fmt.Errorf("%s: no \"sysstat\" object: want sadf -j output", p.name)
	}
	return nil
}

func (p *sysstatParser) host(i int) error {
	what := fmt.Sprintf("sysstat.hosts[%d]", i)
	host, loc := "", time.UTC
	return p.object(what, func(k string) error {
		switch k {
		case "nodename":
			t, err := p.dec.Token()
			s, ok := t.(string)
			if err != nil || !ok || s == "" {
				return p.fail(what+".nodename: a host name", err)
			}
			host = s
		case "timezone":
			t, err := p.dec.Token()
			s, ok := t.(string)
			if err != nil || !ok {
				return p.fail(what+".timezone: a string", err)
			}
			loc = sysstatZone(s)
		case "statistics":
			if host == "" {
				return p.fail(what+".nodename before its statistics", nil)
			}
			return p.statistics(what, host, loc)
		default:
			return p.skip(what + "." + k + ": a JSON value")
		}
		return nil
	})
}

// sysstatZone returns the location named by a file's timezone (an
// abbreviation such as "UTC" or "CET"), or the local one when Go does not
// know it. It only matters for records whose timestamp has "utc": 0.
func sysstatZone(tz string) *time.Location {
	if tz == "" || tz == "UTC" || tz == "GMT" {
		return time.UTC
	}
	if l, err := time.LoadLocation(tz); err == nil {
		return l
	}
	return time.Local
}

func (p *sysstatParser) statistics(what, host string, loc *time.Location) error {
	t, err := p.dec.Token()
	if err != nil {
		return p.fail(what+".statistics: an array", err)
	}
	if t == nil {
		return nil
	}
	if t != json.Delim('[') {
		return p.fail(fmt.Sprintf("%s.statistics: an array, got %v", what, t), nil)
	}
	for i := 0; p.dec.More(); i++ {
		start := p.dec.InputOffset()
		if err := p.dec.Decode(&p.raw); err != nil {
			return p.fail(fmt.Sprintf("%s.statistics[%d]: a record", what, i), err)
		}
		p.sc.Reset(p.raw)
		if err := p.rec.parse(&p.sc, loc); err != nil {
			return fmt.Errorf("%s: %s.statistics[%d] at offset %d: %w", p.name, what, i, start, err)
		}
		if !p.rec.timed {
			continue // a record with no timestamp holds nothing to stamp
		}
		for j, name := range model.NodeMetricNames {
			if !p.rec.has[j] {
				continue
			}
			p.s = model.Sample{Time: p.rec.ms, Host: host, Type: name, Value: p.rec.val[j]}
			if err := p.fn(&p.s); err != nil {
				return err
			}
		}
	}
	return p.delim(']', "the end of "+what+".statistics")
}
