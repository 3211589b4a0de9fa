package peer

import (
	"io"
	"log/slog"
)

var discardLogger = slog.New(slog.NewTextHandler(io.Discard, nil))
