package open

import (
	"context"
	"fmt"

	"github.com/clusterlens/clusterlens/internal/history"
)

func openClickHouse(ctx context.Context, addr string) (history.Store, error) {
	return nil, fmt.Errorf("run history on ClickHouse %q: not built yet", addr)
}
