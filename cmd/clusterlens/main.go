// Command clusterlens finds out why Spark and Hadoop jobs are slow.
package main

import (
	"os"

	"github.com/clusterlens/clusterlens/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
