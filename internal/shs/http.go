package shs

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
)

// Source is where the API's applications come from: serve reads event logs
// into one while it answers; a store of past runs can be another. Handler
// asks it for an index on every request.
type Source interface {
	// Index returns the applications to answer from, nil when there are
	// none yet. While logs are still being read (Index.Unread) it may
	// list applications from their logs' first events (Index.Pending).
	Index() *Index
	// Read returns an index in which application appID is read in full,
	// reading its logs first if they are pending, or one without it when
	// no log holds it. It gives up with ctx's error.
	Read(ctx context.Context, appID string) (*Index, error)
}

// Static is a Source of one index whose applications are all read.
func Static(ix *Index) Source { return static{ix} }

type static struct{ ix *Index }

func (s static) Index() *Index                                { return s.ix }
func (s static) Read(context.Context, string) (*Index, error) { return s.ix, nil }

// UnreadHeader names the response header that tells how many logs are not
// read in full yet: the answer may lack applications, or list some from
// their logs' first events only.
const UnreadHeader = "X-Clusterlens-Unread-Logs"

// Handler serves the API under /api/v1/ over HTTP from src. A request about
// one application whose log is still being read waits for it to be read.
// Responses are JSON (application/json); refused requests get the History
// Server's status and a plain-text message.
func Handler(src Source, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if !strings.HasPrefix(r.URL.Path, "/api/v1/") && r.URL.Path != "/api/v1" {
			http.NotFound(w, r)
			return
		}
		ix := src.Index()
		if id := AppID(r.URL.Path); ix != nil && id != "" && (ix.Pending(id) || ix.Unread() > 0 && !ix.Has(id)) {
			var err error
			if ix, err = src.Read(r.Context(), id); err != nil {
				log.Warn("api read", "app", id, "err", err)
				ix = nil
			}
		}
		if ix == nil {
			http.Error(w, "applications are still being read", http.StatusServiceUnavailable)
			return
		}
		body, err := ix.Answer(r.URL.Path, r.URL.Query())
		if err != nil {
			var apiErr *Error
			status, msg := http.StatusInternalServerError, err.Error()
			if errors.As(err, &apiErr) {
				status, msg = apiErr.Status, apiErr.Message
			} else {
				log.Error("api answer", "path", r.URL.Path, "err", err)
			}
			log.Debug("api request refused", "path", r.URL.Path, "status", status, "msg", msg)
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(msg + "\n"))
			return
		}
		if n := ix.Unread(); n > 0 {
			w.Header().Set(UnreadHeader, strconv.Itoa(n))
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(body)
		}
	})
}
