package collector

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/clusterlens/clusterlens/internal/wire"
)

// ingestReply is the body of a 200 reply to POST /v1/batches.
type ingestReply struct {
	Seq     uint64 `json:"seq"`
	Samples int    `json:"samples"`
	Dup     bool   `json:"dup"`
}

var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// authorized compares the request's bearer token with the configured one
// in constant time (over SHA-256 digests, so the length leaks nothing
// either).
func (s *Server) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		return false
	}
	got := sha256.Sum256([]byte(tok))
	return subtle.ConstantTimeCompare(got[:], s.token[:]) == 1
}

// reject replies with code and a one-line reason and counts it.
func (s *Server) reject(w http.ResponseWriter, r *http.Request, code int, reason string, err error) {
	s.m.rejects.Add(reason, 1)
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	s.log.Warn("batch rejected", "remote", r.RemoteAddr, "status", code, "reason", reason, "err", msg)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	fmt.Fprintln(w, msg)
}

// handleBatch is POST /v1/batches.
func (s *Server) handleBatch(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		s.reject(w, r, http.StatusMethodNotAllowed, reasonMethod, fmt.Errorf("method %s: want POST", r.Method))
		return
	}
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="clusterlens"`)
		s.reject(w, r, http.StatusUnauthorized, reasonUnauthorized, errors.New("missing or wrong bearer token"))
		return
	}
	if r.ContentLength > s.maxBody {
		s.reject(w, r, http.StatusRequestEntityTooLarge, reasonTooLarge,
			fmt.Errorf("body of %d bytes exceeds the limit of %d", r.ContentLength, s.maxBody))
		return
	}
	raw := r.Header.Get("Content-Encoding") == "" || r.Header.Get("Content-Encoding") == "identity"
	if !raw && r.Header.Get("Content-Encoding") != wire.Encoding {
		s.reject(w, r, http.StatusUnsupportedMediaType, reasonEncoding,
			fmt.Errorf("content encoding %q: want %s or identity", r.Header.Get("Content-Encoding"), wire.Encoding))
		return
	}
	buf := bodyPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bodyPool.Put(buf)
	if _, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, s.maxBody)); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.reject(w, r, http.StatusRequestEntityTooLarge, reasonTooLarge,
				fmt.Errorf("body exceeds the limit of %d bytes", s.maxBody))
			return
		}
		s.reject(w, r, http.StatusBadRequest, reasonMalformed, fmt.Errorf("read body: %w", err))
		return
	}
	b, err := s.decode(buf.Bytes(), raw)
	if err != nil {
		s.reject(w, r, http.StatusBadRequest, reasonMalformed, err)
		return
	}
	dup, err := s.store.Append(r.Context(), b)
	if err != nil {
		w.Header().Set("Retry-After", "1")
		s.reject(w, r, http.StatusServiceUnavailable, reasonStore, fmt.Errorf("store: %w", err))
		return
	}
	if dup {
		s.m.duplicates.Inc()
	} else {
		s.m.batches.Inc()
		s.m.samples.Add(float64(len(b.Samples)))
		if s.onBatch != nil {
			s.onBatch(b)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(ingestReply{Seq: b.Seq, Samples: len(b.Samples), Dup: dup})
	s.m.latency.Observe(time.Since(start).Seconds())
}

// decode decodes a request body, compressed or not.
func (s *Server) decode(body []byte, raw bool) (*wire.Batch, error) {
	if raw {
		return wire.UnmarshalBatch(body, s.dec.Limits())
	}
	return s.dec.Decode(body)
}
