package source

import (
	"io/fs"
	"path"
	"regexp"
	"strings"

	"github.com/clusterlens/clusterlens/internal/codec"
)

// MapReduce history files come with their job configuration beside them:
// job_<id>_conf.xml next to job_<id>-<...>.jhist (Hadoop 2+), or
// <host>_<start>_job_<id>_conf.xml next to <host>_<start>_job_<id>_<user>_<name>
// (Hadoop 0.20–1.x).
var jobIDPattern = regexp.MustCompile(`job_\d+_\d+`)

const confSuffix = "_conf.xml"

// conf is a job configuration XML found in a folder.
type conf struct {
	path  string
	info  fs.FileInfo
	codec codec.Codec
	used  bool
}

// isJob says logs of kind k are MapReduce job histories (Format.Job).
func (s *scanner) isJob(k Kind) bool {
	f, _ := format(s.opts.Formats, k)
	return f.Job
}

// attachConfs gives each MapReduce log the configuration of its job, and
// returns the configurations nobody took.
func (s *scanner) attachConfs(logs []*Log, confs []conf) []conf {
	for _, l := range logs {
		name := path.Base(l.Parts[0].Path)
		loc := jobIDPattern.FindStringIndex(name)
		if loc == nil {
			continue
		}
		id, prefix := name[loc[0]:loc[1]], name[:loc[0]]
		best := -1
		for i, c := range confs {
			cname := path.Base(c.path)
			if !strings.Contains(cname, id+confSuffix) {
				continue
			}
			if best < 0 || strings.HasPrefix(cname, prefix+id) {
				best = i
			}
		}
		if best >= 0 {
			c := &confs[best]
			p := s.part(c.path, c.info, c.codec)
			l.Conf = &p
			c.used = true
		}
	}
	var unused []conf
	for _, c := range confs {
		if !c.used {
			unused = append(unused, c)
		}
	}
	return unused
}

// attachConfFromDir looks in dir for the configuration of a MapReduce log
// given explicitly.
func (s *scanner) attachConfFromDir(l *Log, dir string) {
	id := jobIDPattern.FindString(path.Base(l.Parts[0].Path))
	if id == "" {
		return
	}
	entries, err := fs.ReadDir(s.list, dir)
	if err != nil {
		return
	}
	var confs []conf
	for _, e := range entries {
		if e.IsDir() || !strings.Contains(e.Name(), id+confSuffix) {
			continue
		}
		p := path.Join(dir, e.Name())
		info, err := e.Info()
		if err != nil {
			continue
		}
		if f := s.classify(p, info); f.other == otherConf {
			confs = append(confs, conf{path: p, info: info, codec: f.codec})
		}
	}
	s.attachConfs([]*Log{l}, confs)
}
