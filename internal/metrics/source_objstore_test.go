package metrics

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/mapreduce"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/objstore/objstoretest"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// TestReadSourceFromS3 puts a simulator output folder, a sadf -j file and a
// sadc data file recorded now in an S3 bucket (versitygw) and reads them
// through ReadSource: the folder, each file, and a single file must give
// the samples and the skipped files that the same paths give on disk.
func TestReadSourceFromS3(t *testing.T) {
	lookSysstat(t)
	_, put := objstoretest.S3(t)
	dir := t.TempDir()
	sc, err := sim.Named("demo")
	if err != nil {
		t.Fatal(err)
	}
	enc := sim.Encoders{SparkFile: eventlog.WriteFile, SparkRolling: eventlog.WriteRolling,
		RollingDirName: eventlog.RollingDirName, Jhist: mapreduce.WriteJhist, Conf: mapreduce.WriteConf}
	if _, err := sim.Run(sc, 1, dir, enc); err != nil {
		t.Fatal(err)
	}
	sadf, err := os.ReadFile("testdata/sadf-11.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "node02.sadf"), sadf, 0o644); err != nil {
		t.Fatal(err)
	}
	sa, err := os.ReadFile(runSadc(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sa25"), sa, 0o644); err != nil {
		t.Fatal(err)
	}
	prefix := fmt.Sprintf("metrics-%d/", time.Now().UnixNano())
	objstoretest.Upload(t, put, dir, prefix)
	url := "s3://" + objstoretest.S3Bucket + "/" + prefix

	read := func(spec string) ([]string, []string) {
		var samples, skipped []string
		opt := SourceOptions{Warn: func(m string) { skipped = append(skipped, m) }}
		err := ReadSourceWith(context.Background(), spec, time.Time{}, time.Time{}, opt, func(s *model.Sample) error {
			samples = append(samples, fmt.Sprintf("%d %s %s %g", s.Time, s.Host, s.Type, s.Value))
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		return samples, skipped
	}
	for _, name := range []string{"", "metrics.csv.zst", "node02.sadf", "sa25"} {
		got, gskip := read(url + name)
		want, wskip := read(filepath.Join(dir, name))
		if len(got) == 0 || !slices.Equal(got, want) {
			t.Errorf("%q: %d samples from the bucket, %d from the disk (or they differ)", name, len(got), len(want))
		}
		for i := range gskip {
			gskip[i] = strings.TrimPrefix(gskip[i], url)
		}
		for i := range wskip {
			wskip[i] = strings.TrimPrefix(wskip[i], dir+"/")
		}
		if !slices.Equal(gskip, wskip) {
			t.Errorf("%q: skipped %v from the bucket, %v from the disk", name, gskip, wskip)
		}
	}
	if err := ReadSource(context.Background(), url+"nope", time.Time{}, time.Time{}, func(*model.Sample) error { return nil }); err == nil || !strings.Contains(err.Error(), url+"nope") {
		t.Errorf("missing object: %v, want an error naming it", err)
	}
}
