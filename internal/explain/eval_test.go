package explain_test

import (
	"os"
	"testing"

	"github.com/clusterlens/clusterlens/internal/driver"
	why "github.com/clusterlens/clusterlens/internal/explain"
)

// The evaluations of docs/EXPLAIN.md with the node model the commands and
// pages use (driver.Explaining: package hetero's); with
// CLUSTERLENS_EVAL=1 also with explain's own OwnHistory, beside it.

func TestSimulatorEvaluation(t *testing.T) { why.EvalSimulator(t, driver.Explaining().Nodes) }

func TestFlowbench(t *testing.T) { why.EvalFlowbench(t, driver.Explaining().Nodes) }

func TestExplainAtScale(t *testing.T) { why.AtScale(t, driver.Explaining().Nodes) }

func TestSimulatorEvaluationOwnHistory(t *testing.T) {
	evalOnly(t)
	why.EvalSimulator(t, why.OwnHistory{Params: why.DefaultParams})
}

func TestFlowbenchOwnHistory(t *testing.T) {
	evalOnly(t)
	why.EvalFlowbench(t, why.OwnHistory{Params: why.DefaultParams})
}

func evalOnly(t *testing.T) {
	if os.Getenv("CLUSTERLENS_EVAL") != "1" {
		t.Skip("the evaluation with explain's own node model: set CLUSTERLENS_EVAL=1")
	}
}
