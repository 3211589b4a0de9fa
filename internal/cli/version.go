package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at link time (-ldflags "-X .../cli.version=v1.2.3"); otherwise the module version.
var version = ""

func init() {
	register(func(e *env) *cobra.Command {
		return &cobra.Command{
			Use:   "version",
			Short: "Print the clusterlens version",
			Args:  cobra.NoArgs,
			RunE: func(*cobra.Command, []string) error {
				v := version
				if v == "" {
					if bi, ok := debug.ReadBuildInfo(); ok {
						v = bi.Main.Version
					}
				}
				fmt.Fprintln(e.stdout, "clusterlens", v)
				return nil
			},
		}
	})
}
