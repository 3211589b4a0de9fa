// Command clusterlens-agent is the node agent alone, what runs on every
// node: it samples the node and ships the samples to the collector
// (clusterlens collect). `clusterlens agent` is the same command inside
// the full binary; this one carries nothing else (docs/AGENT.md).
package main

import (
	"os"

	"github.com/clusterlens/clusterlens/internal/agentcmd"
)

func main() { os.Exit(agentcmd.Main(os.Args[1:], os.Stdout, os.Stderr)) }
