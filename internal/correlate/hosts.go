package correlate

import (
	"net"
	"strings"
)

// How a log host was matched to a sample host.
const (
	MatchExact = "exact" // the same string
	MatchAlias = "alias" // through Options.Aliases (for example an IP address to a name)
	MatchNorm  = "normalized"
	MatchShort = "short-name"
)

// HostMatch pairs a host the logs name with the host its samples name.
type HostMatch struct {
	Host       string `json:"host"`
	SampleHost string `json:"sampleHost"`
	How        string `json:"how"`
	// OffsetMs is how far the host's sample clock runs ahead of the logs'
	// and was corrected (Options.Offsets).
	OffsetMs int64 `json:"offsetMs,omitempty"`
}

// MatchHosts pairs each log host with a sample host, trying in order:
//
//  1. exact: the same string;
//  2. alias: aliases maps either name to the other (an IP address to a host
//     name, or any rename the user knows);
//  3. normalized: equal after lower-casing and dropping a ":port", IPv6
//     brackets and a trailing dot ("Node1.Example.com." = "node1.example.com:9100");
//  4. short name: the first DNS label of both names is equal and no other
//     sample host has that first label ("node1" = "node1.example.com",
//     "node1.a.com" = "node1.b.com"); IP addresses are never shortened.
//
// Log hosts with no sample host are returned in unmatched. A sample host
// is given to at most one log host.
func MatchHosts(logHosts, sampleHosts []string, aliases map[string]string) (matched []HostMatch, unmatched []string) {
	exact := map[string]bool{}
	norm := map[string][]string{}
	short := map[string][]string{}
	for _, s := range sampleHosts {
		exact[s] = true
		n := normHost(s)
		norm[n] = append(norm[n], s)
		if sh, ok := shortName(n); ok {
			short[sh] = append(short[sh], s)
		}
	}
	used := map[string]bool{}
	try := func(h, s, how string) bool {
		if s == "" || used[s] || !exact[s] {
			return false
		}
		used[s] = true
		matched = append(matched, HostMatch{Host: h, SampleHost: s, How: how})
		return true
	}
	var rest []string
	for _, h := range logHosts {
		if h != "" && !try(h, h, MatchExact) {
			rest = append(rest, h)
		}
	}
	rev := map[string]string{}
	for k, v := range aliases {
		rev[v] = k
	}
	for _, h := range rest {
		n := normHost(h)
		if try(h, aliases[h], MatchAlias) || try(h, rev[h], MatchAlias) {
			continue
		}
		if c := norm[n]; len(c) == 1 && try(h, c[0], MatchNorm) {
			continue
		}
		if sh, ok := shortName(n); ok {
			if c := short[sh]; len(c) == 1 && try(h, c[0], MatchShort) {
				continue
			}
		}
		unmatched = append(unmatched, h)
	}
	return matched, unmatched
}

// normHost lower-cases a host and drops a port, IPv6 brackets and a
// trailing dot.
func normHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	return h
}

// shortName is a normalized host's first DNS label; ok is false for IP
// addresses.
func shortName(n string) (string, bool) {
	if n == "" || net.ParseIP(n) != nil {
		return "", false
	}
	if i := strings.IndexByte(n, '.'); i >= 0 {
		return n[:i], i > 0
	}
	return n, true
}
