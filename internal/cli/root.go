// Package cli is clusterlens's command tree. Each command lives in its own
// file and registers itself with register in an init function.
package cli

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/agentcmd"
	"github.com/spf13/cobra"
)

// Exit codes, documented in the README.
const (
	ExitOK      = 0 // everything asked for was produced
	ExitError   = 1 // nothing usable could be produced
	ExitUsage   = 2 // the command line was wrong
	ExitPartial = 3 // output was produced, but some inputs could not be read
)

// exitError carries an exit code through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withCode wraps err so that Main exits with code.
func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// env is what a command may touch besides its flags.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// terminal makes stderr count as a terminal, and progressDelay replaces
	// progressDelay when set (tests of the progress bar).
	terminal      bool
	progressDelay time.Duration
}

var commands []func(*env) *cobra.Command

// register adds a command constructor to the tree.
func register(f func(*env) *cobra.Command) { commands = append(commands, f) }

// Main runs clusterlens with args and returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return execute(&env{stdin: stdin, stdout: stdout, stderr: stderr}, args)
}

// execute runs the command line args in e and returns the exit code.
func execute(e *env, args []string) int {
	stdin, stdout, stderr := e.stdin, e.stdout, e.stderr
	root := &cobra.Command{
		Use:           "clusterlens",
		Short:         "Find out why Spark and Hadoop jobs are slow",
		Long:          "clusterlens reads Spark event logs and MapReduce job histories, reconstructs how each job ran,\nand explains where the time went.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	var subs []*cobra.Command
	for _, f := range commands {
		subs = append(subs, f(e))
	}
	sort.Slice(subs, func(i, j int) bool { return subs[i].Name() < subs[j].Name() })
	root.AddCommand(subs...)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return withCode(ExitUsage, err) })

	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	fmt.Fprintln(stderr, "clusterlens:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var ue *agentcmd.UsageError
	if errors.As(err, &ue) {
		return ExitUsage
	}
	if isUsageError(err) {
		return ExitUsage
	}
	return ExitError
}

// isUsageError recognizes cobra's own argument errors.
func isUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "accepts ", "requires at least", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
