package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/report"
)

// writeHTMLReport writes the offline HTML report of analyses to path,
// replacing it atomically (a temporary file beside it, then a rename). The
// analyses should be built with analysis.Options{Reconstruction: true};
// without it the report has no timeline. demo calls it too.
func writeHTMLReport(path string, as []*analysis.Analysis) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".clusterlens-report-*.html")
	if err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // fails harmlessly after the rename
	if err := report.WriteHTML(f, as, report.HTMLOptions{}); err != nil {
		f.Close()
		return fmt.Errorf("html report %q: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("html report %q: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("html report %q: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}
