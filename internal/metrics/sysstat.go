package metrics

import (
	"fmt"
	"io"
	"time"

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
	p := sysstatParser{j: newSourceJSON(r), name: name, fn: fn}
	return p.document()
}

// sysstatParser holds the stream and scratch of one sadf -j document.
type sysstatParser struct {
	j    *sourceJSON
	name string
	fn   func(*model.Sample) error
	rec  sysstatRecord
	s    model.Sample
	stop error // fn's error, returned as it is
}

// wrap names the file in err, unless it is fn's.
func (p *sysstatParser) wrap(err error) error {
	if err == nil || err == p.stop {
		return err
	}
	return fmt.Errorf("%s: %w", p.name, err)
}

func (p *sysstatParser) document() error {
	found := false
	err := p.j.object("the sadf -j document", func(k string) error {
		if k != "sysstat" {
			return p.j.skip(k)
		}
		found = true
		return p.j.object("sysstat", func(k string) error {
			if k != "hosts" {
				return p.j.skip("sysstat." + k)
			}
			return p.j.array("sysstat.hosts", p.host)
		})
	})
	if err == nil {
		err = p.j.end()
	}
	if err != nil {
		return p.wrap(err)
	}
	if !found {
		return fmt.Errorf("%s: no \"sysstat\" object: want sadf -j output", p.name)
	}
	return nil
}

func (p *sysstatParser) host(i int) error {
	what := fmt.Sprintf("sysstat.hosts[%d]", i)
	host, loc := "", time.UTC
	return p.j.object(what, func(k string) error {
		switch k {
		case "nodename":
			s, err := p.j.str(what + ".nodename")
			if err == nil && s == "" {
				err = p.j.errorf("want %s.nodename, a host name", what)
			}
			host = s
			return err
		case "timezone":
			s, err := p.j.str(what + ".timezone")
			loc = sysstatZone(s)
			return err
		case "statistics":
			if host == "" {
				return p.j.errorf("want %s.nodename before its statistics", what)
			}
			return p.statistics(what, host, loc)
		}
		return p.j.skip(what + "." + k)
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
	return p.j.array(what+".statistics", func(i int) error {
		start := p.j.off
		raw, err := p.j.value()
		if err != nil {
			return err
		}
		if err := p.rec.parse(raw, loc); err != nil {
			return fmt.Errorf("%s.statistics[%d] at offset %d: %w", what, i, start, err)
		}
		if !p.rec.timed {
			return nil // an empty record
		}
		for j, name := range model.NodeMetricNames {
			if !p.rec.has[j] {
				continue
			}
			p.s = model.Sample{Time: p.rec.ms, Host: host, Type: name, Value: p.rec.val[j]}
			if err := p.fn(&p.s); err != nil {
				p.stop = err
				return err
			}
		}
		return nil
	})
}
