package shs

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"
)

// Handler serves the API under /api/v1/ over HTTP. index is called for
// every request, so a caller can swap the applications (after a rescan)
// without restarting. Responses are JSON (application/json); refused
// requests get the History Server's status and a plain-text message.
func Handler(index func() *Index, log *slog.Logger) http.Handler {
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
		ix := index()
		if ix == nil {
			http.Error(w, "applications are still being read", http.StatusServiceUnavailable)
			return
		}
		v, err := ix.Get(r.URL.Path, r.URL.Query())
		if err != nil {
			var apiErr *Error
			status, msg := http.StatusInternalServerError, err.Error()
			if errors.As(err, &apiErr) {
				status, msg = apiErr.Status, apiErr.Message
			}
			log.Debug("api request refused", "path", r.URL.Path, "status", status, "msg", msg)
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(msg + "\n"))
			return
		}
		body, err := Marshal(v)
		if err != nil {
			log.Error("api encode", "path", r.URL.Path, "err", err)
			http.Error(w, "cannot encode response", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(body)
		}
	})
}
