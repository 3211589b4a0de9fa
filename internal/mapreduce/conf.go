package mapreduce

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// ReadConf reads a Hadoop configuration XML (org.apache.hadoop.conf.Configuration's
// format, as the job history server keeps it beside a history file as
// job_..._conf.xml): <configuration><property><name/><value/></property>...
// It returns the (name, value) pairs in file order. Comments, <source>,
// <final> and <description> elements are ignored. It is streaming: only one
// property is held at a time besides the result.
func ReadConf(r io.Reader) ([][2]string, error) {
	dec := xml.NewDecoder(r)
	dec.Strict = false
	var out [][2]string
	root := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if !root {
				return out, fmt.Errorf("mapreduce: conf: want <configuration>: %w", ErrFormat)
			}
			return out, nil
		}
		if err != nil {
			if root && (errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "unexpected EOF")) {
				return out, nil // a truncated conf still gives the properties before the cut
			}
			return out, fmt.Errorf("mapreduce: conf: offset %d: %w", dec.InputOffset(), err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "configuration":
			root = true
		case "property":
			if !root {
				return out, fmt.Errorf("mapreduce: conf: offset %d: want <configuration> before <property>: %w", dec.InputOffset(), ErrFormat)
			}
			var p struct {
				Name  string `xml:"name"`
				Value string `xml:"value"`
			}
			if err := dec.DecodeElement(&p, &se); err != nil {
				if errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "unexpected EOF") {
					return out, nil
				}
				return out, fmt.Errorf("mapreduce: conf: offset %d: %w", dec.InputOffset(), err)
			}
			if p.Name != "" {
				out = append(out, [2]string{strings.TrimSpace(p.Name), p.Value})
			}
		default:
			if !root {
				return out, fmt.Errorf("mapreduce: conf: offset %d: want <configuration>, got <%s>: %w", dec.InputOffset(), se.Name.Local, ErrFormat)
			}
		}
	}
}

// Configuration keys ApplyConf reads, newest name first (Hadoop 2 renamed
// the 0.20 keys; see org.apache.hadoop.mapreduce.util.ConfigUtil).
var (
	confJobName = []string{"mapreduce.job.name", "mapred.job.name"}
	confUser    = []string{"mapreduce.job.user.name", "user.name"}
	confQueue   = []string{"mapreduce.job.queuename", "mapred.job.queue.name"}
)

// ApplyConf attaches a job configuration (from ReadConf) to app and fills
// what the history lacked from it: the application and job name, the user,
// and the job's "queue" property.
func ApplyConf(app *model.App, conf [][2]string) {
	app.Conf = conf
	get := func(keys []string) string {
		for _, k := range keys {
			for _, kv := range conf {
				if kv[0] == k && kv[1] != "" {
					return kv[1]
				}
			}
		}
		return ""
	}
	if app.Name == "" {
		app.Name = get(confJobName)
	}
	if app.User == "" {
		app.User = get(confUser)
	}
	for _, j := range app.Jobs {
		if j.Name == "" {
			j.Name = app.Name
		}
		hasQueue := false
		for _, p := range j.Properties {
			if p[0] == "queue" {
				hasQueue = true
			}
		}
		if q := get(confQueue); !hasQueue && q != "" {
			j.Properties = append(j.Properties, [2]string{"queue", q})
		}
	}
}
