package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/history"
	historyopen "github.com/clusterlens/clusterlens/internal/history/open"
	"github.com/clusterlens/clusterlens/internal/indexer"
	"github.com/clusterlens/clusterlens/internal/report"
	storeopen "github.com/clusterlens/clusterlens/internal/store/open"
)

// historyStoreFlag adds --store, the run history's DSN, to cmd.
func historyStoreFlag(cmd *cobra.Command, dsn *string) {
	cmd.Flags().StringVar(dsn, "store", "", "run history: sqlite:PATH, PATH.db or clickhouse+http://HOST:8123/DB "+
		"(default $CLUSTERLENS_STORE, else ~/.local/share/clusterlens/history.db)")
}

// historyDSN resolves --store: the flag, else $CLUSTERLENS_STORE, else the
// SQLite file in the user's data folder (the default index writes).
func historyDSN(dsn string) (string, error) {
	if dsn == "" {
		dsn = os.Getenv("CLUSTERLENS_STORE")
	}
	if dsn != "" {
		return dsn, nil
	}
	dir, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no --store and no home folder for the default run history: %w", err)
	}
	return "sqlite:" + filepath.Join(dir, ".local", "share", "clusterlens", "history.db"), nil
}

// openHistory opens the run history dsn names, or the default one,
// creating it: for index, which fills it.
func openHistory(ctx context.Context, dsn string) (history.Store, error) {
	dsn, err := historyDSN(dsn)
	if err != nil {
		return nil, err
	}
	if kind, addr, err := storeopen.ParseDSN(dsn); err == nil && kind == storeopen.KindSQLite {
		if err := os.MkdirAll(filepath.Dir(addr), 0o755); err != nil {
			return nil, fmt.Errorf("run history: %w", err)
		}
	}
	return historyopen.Open(ctx, dsn)
}

// readHistory opens the run history dsn names, or the default one, for a
// command that only reads it: a SQLite file that does not exist is an error
// naming it and how to build it, not an empty history created on the way.
func readHistory(ctx context.Context, dsn string) (history.Store, error) {
	dsn, err := historyDSN(dsn)
	if err != nil {
		return nil, err
	}
	if kind, addr, err := storeopen.ParseDSN(dsn); err == nil && kind == storeopen.KindSQLite {
		if _, err := os.Stat(addr); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no run history at %s (--store, else $CLUSTERLENS_STORE, else this default): "+
				"clusterlens index --store %s LOGS... builds it", addr, dsn)
		}
	}
	return historyopen.Open(ctx, dsn)
}

func init() {
	register(func(e *env) *cobra.Command {
		var dsn, format string
		var opt indexer.Options
		var lf *logFlags
		cmd := &cobra.Command{
			Use:   "index PATH...",
			Short: "Remember every application under the paths in the run history",
			Long: `index reads every log under the PATHs (as summary does) into the run history: per
application its identity, cluster, totals and findings; per stage its task statistics
and signature; per stage and host the task-duration moments the per-node models use.
Unchanged logs are skipped (same size and time, or the same content fingerprint); a
log that grew is read on from where the last pass stopped; a log that failed is
recorded with its error and read again when it changes. docs/HISTORY.md describes it.`,
			Args: cobra.MinimumNArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				if format != "text" && format != "json" {
					return withCode(ExitUsage, fmt.Errorf("--format %q: want text or json", format))
				}
				if opt.Workers < 0 {
					return withCode(ExitUsage, fmt.Errorf("--workers %d: want 0 (one per CPU) or more", opt.Workers))
				}
				var err error
				if opt.Load, err = lf.options(); err != nil {
					return err
				}
				return runIndex(cmd.Context(), e, dsn, args, format, opt)
			},
		}
		historyStoreFlag(cmd, &dsn)
		cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
		cmd.Flags().IntVar(&opt.Workers, "workers", 0, "logs read at once (0: one per CPU)")
		lf = addLogFlags(cmd.Flags())
		cmd.Flags().BoolVar(&opt.Prune, "prune", false, "forget logs indexed under these paths that are gone (default: keep their runs)")
		return cmd
	})
}

func runIndex(ctx context.Context, e *env, dsn string, paths []string, format string, opt indexer.Options) error {
	st, err := openHistory(ctx, dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	progress, done := newProgress(e, 64<<20, "indexing")
	opt.Load.Progress = progress
	start := time.Now()
	stats, err := indexer.Pass(ctx, st, paths, opt)
	done()
	if err != nil {
		return err
	}
	took := time.Since(start)
	if stats.Logs == 0 {
		for _, p := range stats.Problems {
			fmt.Fprintln(e.stderr, "clusterlens:", p)
		}
		return fmt.Errorf("no logs found in %v (%d files skipped as not logs)", paths, len(stats.Skipped))
	}
	if format == "json" {
		if err := report.JSON(e.stdout, struct {
			*indexer.Stats
			TookMs   int64    `json:"tookMs"`
			Problems []string `json:"problems"`
		}{stats, took.Milliseconds(), errorStrings(stats.Problems)}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(e.stdout, "%d logs: %d read, %d read on, %d unchanged, %d failed, %d forgotten; %d runs read, %d kept; %s read in %s\n",
			stats.Logs, stats.Read, stats.Resumed, stats.Unchanged, stats.Failed, stats.Pruned, stats.Runs, stats.Kept,
			report.Bytes(stats.Bytes), took.Round(time.Millisecond))
		if stats.Repeated > 0 {
			fmt.Fprintf(e.stdout, "%d runs repeat the application id and attempt of a run in another log read now: the history keeps one run per application (the log written last)\n", stats.Repeated)
		}
		if stats.Moved > 0 {
			fmt.Fprintf(e.stdout, "%d runs were held from another log with the same application id and attempt; the log read now holds them\n", stats.Moved)
		}
	}
	// The same report of what was skipped or read in part as every command
	// that reads logs gives, and exit code 3 for it.
	return partial(e, &decodelogs.Result{Skipped: stats.Skipped, Problems: stats.Problems})
}

func errorStrings(errs []error) []string {
	out := make([]string, 0, len(errs))
	for _, err := range errs {
		out = append(out, err.Error())
	}
	return out
}
