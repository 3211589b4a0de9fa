package server

import (
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
)

// ErrExposed refuses to listen beyond the loopback interface without a
// token or TLS.
var ErrExposed = errors.New("listening beyond the loopback interface needs --token-file or --tls-cert and --tls-key")

// ErrTLSPair is a certificate without its key or a key without its
// certificate.
var ErrTLSPair = errors.New("--tls-cert and --tls-key go together")

// checkExposure refuses an address reachable from other machines (any
// host but a loopback address or "localhost"; an empty host is every
// interface) unless a token or TLS guards it, and a half-given TLS pair.
func checkExposure(o Options) error {
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return ErrTLSPair
	}
	host, _, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return fmt.Errorf("address %q: %w", o.Addr, err)
	}
	if isLoopback(host) || o.Token != "" || o.TLSCert != "" {
		return nil
	}
	return fmt.Errorf("address %q: %w", o.Addr, ErrExposed)
}

// isLoopback reports whether host names only the loopback interface.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// loadTLS loads the certificate and key, nil without them.
func loadTLS(o Options) (*tls.Config, error) {
	if o.TLSCert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// tokenCookie keeps a browser's token after it opened a URL with ?token=.
const tokenCookie = "clusterlens_token"

// withToken requires token (when not empty) of every request: as
// "Authorization: Bearer TOKEN" (programs), or a cookie set when a
// browser opens any page with ?token=TOKEN, which is then redirected to
// the same page without it. Tokens are compared in constant time.
func withToken(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	ok := func(got string) bool { return subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1 }
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := r.Header.Get("Authorization"); len(h) > 7 && h[:7] == "Bearer " && ok(h[7:]) {
			next.ServeHTTP(w, r)
			return
		}
		if c, err := r.Cookie(tokenCookie); err == nil && ok(c.Value) {
			next.ServeHTTP(w, r)
			return
		}
		if q := r.URL.Query(); q.Has("token") && ok(q.Get("token")) {
			http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: token, Path: "/", HttpOnly: true,
				Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
			q.Del("token")
			to := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
			http.Redirect(w, r, to.String(), http.StatusSeeOther)
			return
		}
		w.Header().Set("WWW-Authenticate", `Bearer realm="clusterlens"`)
		http.Error(w, "401 unauthorized: this server needs its token (open any page with ?token=TOKEN, or send Authorization: Bearer TOKEN)", http.StatusUnauthorized)
	})
}

// readOnly refuses every method but GET and HEAD: nothing the server
// answers changes anything.
func readOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "405 method not allowed: the server is read-only", http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}
