package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/model"
)

// Encoders write applications in their log formats. The caller passes the
// project's encoders (packages eventlog and mapreduce), which keeps sim free
// of them so that their tests may use the simulator. A nil encoder leaves
// those logs unwritten.
type Encoders struct {
	// SparkFile writes one event log file compressed with c (eventlog.WriteFile).
	SparkFile func(path string, app *model.App, c codec.Codec) error
	// SparkRolling writes a rolling event log folder under dir (eventlog.WriteRolling),
	// named by RollingDirName (eventlog.RollingDirName).
	SparkRolling   func(dir string, app *model.App, maxPartBytes int64, c codec.Codec) error
	RollingDirName func(app *model.App) string
	// Jhist writes a Hadoop 3 .jhist (mapreduce.WriteJhist); Conf a job
	// configuration XML (mapreduce.WriteConf).
	Jhist func(w io.Writer, app *model.App) error
	Conf  func(w io.Writer, conf [][2]string) error
}

// Output file and folder names inside the output folder.
const (
	MetricsFile  = "metrics.csv.zst"
	TruthFile    = "truth.json"
	ScenarioFile = "scenario.json"
	SparkDir     = "spark"
	MapReduceDir = "mapreduce"
)

// Run simulates sc with seed and writes everything into the folder out
// (each application's logs as soon as it ends; Result.Apps stays empty):
// spark/<appId>, mapreduce/<jobId>.jhist and <jobId>_conf.xml,
// metrics.csv.zst, phases.csv.zst (with Output.Phases), truth.json and
// scenario.json (docs/SIMULATOR.md). The .jhist, configuration, metric and
// phase files bypass the page cache where the file system allows (fileWriter):
// the simulator writes gigabytes it does not read back.
func Run(sc *Scenario, seed uint64, out string, enc Encoders) (res *Result, err error) {
	if err := sc.Resolve(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("create output folder: %w", err)
	}
	var sinks Sinks
	if !sc.Metrics.Off {
		w, closeFn, err := createZstd(filepath.Join(out, MetricsFile))
		if err != nil {
			return nil, err
		}
		defer func() {
			if cerr := closeFn(); err == nil && cerr != nil {
				res, err = nil, cerr
			}
		}()
		sinks.Metrics = w
	}
	if sc.Output.Phases {
		w, closeFn, err := createZstd(filepath.Join(out, PhasesFile))
		if err != nil {
			return nil, err
		}
		defer func() {
			if cerr := closeFn(); err == nil && cerr != nil {
				res, err = nil, cerr
			}
		}()
		sinks.Phases = w
	}
	onApp := func(app *model.App) (string, error) { return writeApp(out, app, &sc.Output, enc) }
	res, err = SimulateTo(sc, seed, sinks, onApp)
	if err != nil {
		return nil, err
	}
	if sinks.Metrics != nil {
		res.Truth.Metrics.Path = MetricsFile
	}
	if sinks.Phases != nil {
		res.Truth.PhasesPath = PhasesFile
	}
	if err := writeJSON(filepath.Join(out, TruthFile), res.Truth); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(out, ScenarioFile), res.Scenario); err != nil {
		return nil, err
	}
	return res, nil
}

// createZstd creates a zstd-compressed file and returns its writer and the
// function that finishes and closes it.
func createZstd(path string) (io.Writer, func() error, error) {
	f, err := createFile(path)
	if err != nil {
		return nil, nil, err
	}
	zw, err := codec.NewWriter(codec.Zstd, f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("create %s: %w", filepath.Base(path), err)
	}
	closeFn := func() error {
		if err := zw.Close(); err != nil {
			f.Close()
			return fmt.Errorf("write %s: %w", filepath.Base(path), err)
		}
		return f.Close()
	}
	return zw, closeFn, nil
}

// writeApp writes one application's logs and returns the log's path
// relative to out ("" when no encoder is available for it).
func writeApp(out string, app *model.App, o *OutputSpec, enc Encoders) (string, error) {
	if app.Engine == model.Spark {
		c, _ := codec.ParseName(o.SparkCodec)
		if o.Rolling && enc.SparkRolling != nil && enc.RollingDirName != nil {
			dir := filepath.Join(out, SparkDir)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return "", fmt.Errorf("create %s: %w", dir, err)
			}
			if err := enc.SparkRolling(dir, app, int64(o.RollingPartMB)*mb, c); err != nil {
				return "", fmt.Errorf("write %s: %w", app.ID, err)
			}
			return filepath.Join(SparkDir, enc.RollingDirName(app)), nil
		}
		if enc.SparkFile == nil {
			return "", nil
		}
		rel := filepath.Join(SparkDir, app.ID+c.Extension())
		if err := os.MkdirAll(filepath.Join(out, SparkDir), 0o755); err != nil {
			return "", fmt.Errorf("create %s: %w", SparkDir, err)
		}
		if err := enc.SparkFile(filepath.Join(out, rel), app, c); err != nil {
			return "", fmt.Errorf("write %s: %w", rel, err)
		}
		return rel, nil
	}
	if enc.Jhist == nil {
		return "", nil
	}
	rel := filepath.Join(MapReduceDir, app.ID+".jhist")
	if err := writeFile(filepath.Join(out, rel), func(w io.Writer) error { return enc.Jhist(w, app) }); err != nil {
		return "", err
	}
	if enc.Conf != nil {
		conf := filepath.Join(out, MapReduceDir, app.ID+"_conf.xml")
		if err := writeFile(conf, func(w io.Writer) error { return enc.Conf(w, app.Conf) }); err != nil {
			return "", err
		}
	}
	return rel, nil
}

// writeFile creates path (and its folder) and writes it with f through a
// fileWriter.
func writeFile(path string, f func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	fw, err := createFile(path)
	if err != nil {
		return fmt.Errorf("create log: %w", err)
	}
	if err := f(fw); err != nil {
		fw.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return fw.Close()
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", filepath.Base(path), err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}
