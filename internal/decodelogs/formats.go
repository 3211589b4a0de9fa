package decodelogs

import (
	"io"

	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/mapreduce"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/source"
)

// formats are the logs clusterlens reads, one row each: the kind, how its
// files start and are named (source finds them by it) and its decoder. A
// new format is its decoder (a Sniff and a reader) and a row here.
var formats = []format{
	{Format: source.Format{Kind: source.SparkEventLog, Sniff: eventlog.Sniff}, decode: (*Loader).readSpark},
	{Format: source.Format{Kind: source.MapReduceJhist, Sniff: mapreduce.SniffJhist, Job: true, Ext: ".jhist"},
		decode: func(ld *Loader, l *source.Log) ([]*model.App, error) {
			return ld.readOne(l, func(r io.Reader, name string) ([]*model.App, error) {
				a, err := ld.mapreduce().ReadJhist(r, name)
				if a == nil {
					return nil, err
				}
				return []*model.App{a}, err
			})
		}},
	{Format: source.Format{Kind: source.MapReduceLegacy, Sniff: mapreduce.SniffLegacy, Job: true},
		decode: func(ld *Loader, l *source.Log) ([]*model.App, error) { return ld.readOne(l, ld.mapreduce().ReadLegacy) }},
	{Format: source.Format{Kind: source.RumenTrace, Sniff: mapreduce.SniffRumen, Ext: ".json"},
		decode: func(ld *Loader, l *source.Log) ([]*model.App, error) {
			return ld.readOne(l, func(r io.Reader, name string) ([]*model.App, error) {
				var apps []*model.App
				err := ld.mapreduce().ReadRumen(r, name, func(a *model.App) error {
					apps = append(apps, a)
					return nil
				})
				return apps, err
			})
		}},
}

// format is a row of the table: the format as source finds it, and how a
// loader decodes a log of it into applications (a MapReduce history
// (Job) then gets its configuration applied).
type format struct {
	source.Format
	decode func(ld *Loader, l *source.Log) ([]*model.App, error)
}

// Formats are the formats of the table as source finds them.
func Formats() []source.Format {
	out := make([]source.Format, len(formats))
	for i, f := range formats {
		out[i] = f.Format
	}
	return out
}

// formatOf is the row of kind k, nil when none.
func formatOf(k source.Kind) *format {
	for i := range formats {
		if formats[i].Kind == k {
			return &formats[i]
		}
	}
	return nil
}
