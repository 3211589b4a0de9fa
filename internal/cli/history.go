package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/report"
)

// historyFlags are the flags every history view shares.
type historyFlags struct {
	dsn, format string
	limit       int
}

func (h *historyFlags) add(cmd *cobra.Command, limit int) {
	historyStoreFlag(cmd, &h.dsn)
	cmd.Flags().StringVar(&h.format, "format", "text", "output format: text or json")
	cmd.Flags().IntVar(&h.limit, "limit", limit, "at most this many runs (0: all)")
}

func (h *historyFlags) check() error {
	if h.format != "text" && h.format != "json" {
		return withCode(ExitUsage, fmt.Errorf("--format %q: want text or json", h.format))
	}
	if h.limit < 0 {
		return withCode(ExitUsage, fmt.Errorf("--limit %d: want 0 (all) or more", h.limit))
	}
	return nil
}

func init() {
	register(func(e *env) *cobra.Command {
		var h historyFlags
		var f history.Filter
		var status, severity, since, until string
		cmd := &cobra.Command{
			Use:   "history",
			Short: "Show the run history: the fleet, recurring jobs, one job, one node",
			Long: `history shows what index remembered. Without a subcommand it lists the runs of the
fleet, newest first, filtered by user, name, status, severity of the worst finding and
start time. "history jobs" lists the recurring jobs, "history job ID" one job's runs
over time, "history node HOST" one node across runs. docs/HISTORY.md describes them.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if err := h.check(); err != nil {
					return err
				}
				var err error
				if f.Status, err = parseStatus(status); err != nil {
					return withCode(ExitUsage, err)
				}
				if severity != "" {
					if f.MinSeverity, err = finding.ParseSeverity(severity); err != nil {
						return withCode(ExitUsage, fmt.Errorf("--severity: %w", err))
					}
				}
				if f.From, err = parseTime("--since", since); err != nil {
					return withCode(ExitUsage, err)
				}
				if f.To, err = parseTime("--until", until); err != nil {
					return withCode(ExitUsage, err)
				}
				f.Limit = h.limit
				return runHistory(cmd.Context(), e, h, f)
			},
		}
		h.add(cmd, 50)
		cmd.Flags().StringVar(&f.User, "user", "", "only runs by this user")
		cmd.Flags().StringVar(&f.Name, "name", "", "only runs whose name contains this (case-insensitive)")
		cmd.Flags().StringVar(&status, "status", "", "only runs that succeeded, failed, are running or are incomplete")
		cmd.Flags().StringVar(&severity, "severity", "", "only runs with a finding at least this grave (low, moderate, severe, critical)")
		cmd.Flags().StringVar(&since, "since", "", "only runs started at or after this time (2006-01-02, RFC 3339, or a duration ago: 24h)")
		cmd.Flags().StringVar(&until, "until", "", "only runs started before this time (same forms as --since)")
		cmd.AddCommand(historyJobsCmd(e), historyJobCmd(e), historyNodeCmd(e))
		return cmd
	})
}

func runHistory(ctx context.Context, e *env, h historyFlags, f history.Filter) error {
	st, err := readHistory(ctx, h.dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	total, err := st.Count(ctx, f)
	if err != nil {
		return err
	}
	runs, err := st.Runs(ctx, f)
	if err != nil {
		return err
	}
	if total == 0 {
		if err := noteEmpty(ctx, e, st, h.dsn); err != nil {
			return err
		}
	}
	if h.format == "json" {
		return report.JSON(e.stdout, struct {
			Total int            `json:"total"`
			Runs  []*history.Run `json:"runs"`
		}{total, nonNil(runs)})
	}
	report.RunsText(e.stdout, runs, total)
	return nil
}

// noteEmpty says on stderr when the run history holds no run at all, and
// how to fill it: "0 runs" alone reads as a fleet that ran nothing.
func noteEmpty(ctx context.Context, e *env, st history.Store, dsn string) error {
	all, err := st.Count(ctx, history.Filter{})
	if err != nil || all > 0 {
		return err
	}
	dsn, _ = historyDSN(dsn)
	fmt.Fprintf(e.stderr, "clusterlens: note: the run history %s holds no run: clusterlens index --store %s LOGS... fills it\n", dsn, dsn)
	return nil
}

func historyJobsCmd(e *env) *cobra.Command {
	var h historyFlags
	var opt history.GroupOptions
	cmd := &cobra.Command{
		Use:   "jobs",
		Short: "List the recurring jobs: runs grouped by normalized name and DAG",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := h.check(); err != nil {
				return err
			}
			st, err := readHistory(cmd.Context(), h.dsn)
			if err != nil {
				return err
			}
			defer st.Close()
			jobs, err := history.Jobs(cmd.Context(), st, opt)
			if err != nil {
				return err
			}
			if h.limit > 0 && len(jobs) > h.limit {
				jobs = jobs[:h.limit]
			}
			if h.format == "json" {
				return report.JSON(e.stdout, struct {
					Jobs []*history.Job `json:"jobs"`
				}{nonNil(jobs)})
			}
			report.JobsText(e.stdout, jobs)
			return nil
		},
	}
	h.add(cmd, 0)
	cmd.Flags().Float64Var(&opt.MinSimilarity, "min-similarity", 0.5, "least DAG similarity (Jaccard) for runs of one name to be one job")
	return cmd
}

func historyJobCmd(e *env) *cobra.Command {
	var h historyFlags
	var opt history.GroupOptions
	cmd := &cobra.Command{
		Use:   "job ID|NAME",
		Short: "Show one recurring job's runs over time",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := h.check(); err != nil {
				return err
			}
			ctx := cmd.Context()
			st, err := readHistory(ctx, h.dsn)
			if err != nil {
				return err
			}
			defer st.Close()
			j, err := history.FindJob(ctx, st, args[0], opt)
			if err != nil {
				return err
			}
			runs, err := st.Runs(ctx, history.Filter{JobKeys: j.Variants, Limit: h.limit})
			if err != nil {
				return err
			}
			for i, k := 0, len(runs)-1; i < k; i, k = i+1, k-1 { // oldest first
				runs[i], runs[k] = runs[k], runs[i]
			}
			if h.format == "json" {
				return report.JSON(e.stdout, struct {
					Job  *history.Job   `json:"job"`
					Runs []*history.Run `json:"runs"`
				}{j, nonNil(runs)})
			}
			report.JobText(e.stdout, j, runs)
			return nil
		},
	}
	h.add(cmd, 100)
	cmd.Flags().Float64Var(&opt.MinSimilarity, "min-similarity", 0.5, "least DAG similarity (Jaccard) for runs of one name to be one job")
	return cmd
}

func historyNodeCmd(e *env) *cobra.Command {
	var h historyFlags
	cmd := &cobra.Command{
		Use:   "node HOST",
		Short: "Show one node across the runs that used it, against its own usual speed",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := h.check(); err != nil {
				return err
			}
			st, err := readHistory(cmd.Context(), h.dsn)
			if err != nil {
				return err
			}
			defer st.Close()
			n, err := history.NodeHistory(cmd.Context(), st, args[0], h.limit)
			if err != nil {
				return err
			}
			if h.format == "json" {
				return report.JSON(e.stdout, n)
			}
			report.NodeText(e.stdout, n)
			return nil
		},
	}
	h.add(cmd, 100)
	return cmd
}

func parseStatus(s string) (history.Status, error) {
	switch st := history.Status(s); st {
	case "", history.StatusSucceeded, history.StatusFailed, history.StatusRunning, history.StatusIncomplete:
		return st, nil
	}
	return "", fmt.Errorf("--status %q: want succeeded, failed, running or incomplete", s)
}

// parseTime reads a time flag: a date, an RFC 3339 time, or a duration ago.
func parseTime(flag, s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return time.Now().Add(-d).UnixMilli(), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, fmt.Errorf("%s %q: want 2006-01-02, an RFC 3339 time or a duration such as 24h", flag, s)
}

// nonNil makes an empty list print as [] in JSON.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
