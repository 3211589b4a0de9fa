package sim

import (
	"bufio"
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
// of them so that their tests may use the simulator.
type Encoders struct {
	// Spark writes a Spark event log; Jhist a Hadoop 3 .jhist; Conf a job
	// configuration XML. A nil encoder leaves those logs unwritten.
	Spark func(io.Writer, *model.App) error
	Jhist func(io.Writer, *model.App) error
	Conf  func(io.Writer, *model.App) error
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
// metrics.csv.zst, truth.json and scenario.json (docs/SIMULATOR.md).
func Run(sc *Scenario, seed uint64, out string, enc Encoders) (*Result, error) {
	if err := sc.Resolve(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("create output folder: %w", err)
	}
	onApp := func(app *model.App) (string, error) { return writeApp(out, app, enc) }
	var res *Result
	if sc.Metrics.Off {
		r, err := SimulateStream(sc, seed, nil, onApp)
		if err != nil {
			return nil, err
		}
		res = r
	} else {
		r, err := simulateToFile(sc, seed, filepath.Join(out, MetricsFile), onApp)
		if err != nil {
			return nil, err
		}
		res = r
		res.Truth.Metrics.Path = MetricsFile
	}
	if err := writeJSON(filepath.Join(out, TruthFile), res.Truth); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(out, ScenarioFile), res.Scenario); err != nil {
		return nil, err
	}
	return res, nil
}

// simulateToFile runs the simulation streaming metrics into a zstd file.
func simulateToFile(sc *Scenario, seed uint64, path string, onApp AppFunc) (*Result, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create metrics: %w", err)
	}
	zw, err := codec.NewWriter(codec.Zstd, f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("create metrics: %w", err)
	}
	res, err := SimulateStream(sc, seed, zw, onApp)
	if cerr := zw.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write metrics: %w", cerr)
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("write metrics: %w", cerr)
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// writeApp writes one application's logs and returns the log's path
// relative to out ("" when no encoder is available for it).
func writeApp(out string, app *model.App, enc Encoders) (string, error) {
	if app.Engine == model.Spark {
		if enc.Spark == nil {
			return "", nil
		}
		rel := filepath.Join(SparkDir, app.ID)
		return rel, writeFile(filepath.Join(out, rel), app, enc.Spark)
	}
	if enc.Jhist == nil {
		return "", nil
	}
	rel := filepath.Join(MapReduceDir, app.ID+".jhist")
	if err := writeFile(filepath.Join(out, rel), app, enc.Jhist); err != nil {
		return "", err
	}
	if enc.Conf != nil {
		if err := writeFile(filepath.Join(out, MapReduceDir, app.ID+"_conf.xml"), app, enc.Conf); err != nil {
			return "", err
		}
	}
	return rel, nil
}

func writeFile(path string, app *model.App, f func(io.Writer, *model.App) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create log: %w", err)
	}
	bw := bufio.NewWriterSize(fh, 1<<20)
	if err := f(bw, app); err != nil {
		fh.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		fh.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
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
