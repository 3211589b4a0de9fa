package clickhouse

import (
	"github.com/clusterlens/clusterlens/internal/clickhttp"
	"github.com/clusterlens/clusterlens/internal/model"
)

// appendSample encodes s as a row of the samples table: time, host, type,
// target, value, text.
func appendSample(b []byte, s *model.Sample) []byte {
	b = clickhttp.AppendInt64(b, s.Time)
	b = clickhttp.AppendString(b, s.Host)
	b = clickhttp.AppendString(b, s.Type)
	b = clickhttp.AppendString(b, s.Target)
	b = clickhttp.AppendFloat64(b, s.Value)
	return clickhttp.AppendString(b, s.Text)
}

// sample decodes a row of host, type, target, time, value, text (the
// order of Query's SELECT) into s. The strings of s are reused when they
// repeat the previous row's, as they do within a series.
func readSample(d *clickhttp.RowReader, s *model.Sample) error {
	if err := d.Reuse(&s.Host); err != nil {
		return err
	}
	if err := d.Reuse(&s.Type); err != nil {
		return err
	}
	if err := d.Reuse(&s.Target); err != nil {
		return err
	}
	t, err := d.Int64()
	if err != nil {
		return err
	}
	v, err := d.Float64()
	if err != nil {
		return err
	}
	s.Time, s.Value = t, v
	b, err := d.Bytes()
	if err != nil {
		return err
	}
	s.Text = ""
	if len(b) > 0 {
		s.Text = string(b)
	}
	return nil
}
