package driver

import (
	"context"
	"log/slog"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/peer"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// StoreIndictments returns a hook (peer.Online.OnIndict) that stores each
// indictment in st as a sample of peer.IndictmentType, a batch of its own
// (agent "peer:HOST", sequence its time: the same indictment again is a
// duplicate), off the ingest path; a failure is logged.
func StoreIndictments(ctx context.Context, st store.Store, log *slog.Logger) func(peer.Indictment) {
	return func(in peer.Indictment) {
		b := &wire.Batch{Agent: "peer:" + in.Host, Seq: uint64(max(in.Time, 1)), Samples: []model.Sample{in.Sample()}}
		go func() {
			if _, err := st.Append(ctx, b); err != nil {
				log.Error("peer: store indictment", "host", in.Host, "err", err)
			}
		}()
	}
}
