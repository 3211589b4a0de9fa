package cli

import (
	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/agentcmd"
)

// `clusterlens agent` is the agent alone's command (cmd/clusterlens-agent).
func init() {
	register(func(e *env) *cobra.Command { return agentcmd.Command(e.stderr) })
}
