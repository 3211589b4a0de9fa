package peer

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
)

// ReadSamples streams the samples of a metrics CSV file (timestamp_ms,
// host, metric, value; plain or compressed, detected by name and magic),
// or of a simulator output folder's metrics.csv.zst, to fn.
func ReadSamples(path string, fn func(*model.Sample) error) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "metrics.csv.zst")
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read metrics: %w", err)
	}
	defer f.Close()
	r, _, err := codec.Open(path, f)
	if err != nil {
		return fmt.Errorf("read metrics %q: %w", path, err)
	}
	defer r.Close()
	return metrics.ReadCSV(r, path, fn)
}
