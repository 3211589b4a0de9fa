package peer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/clusterlens/clusterlens/internal/objstore"
	"github.com/clusterlens/clusterlens/internal/objstore/open"
	"github.com/clusterlens/clusterlens/internal/stats"
)

// ProfileKind and ProfileVersion identify a profile file; a reader rejects
// other kinds and newer versions.
const (
	ProfileKind    = "clusterlens-peer-profile"
	ProfileVersion = 1
)

// ErrProfile is wrapped by every error about a malformed profile.
var ErrProfile = errors.New("invalid peer profile")

// Profile is a trained Ganesha model (Pan et al., 2009, §4.2): how raw
// metric vectors are normalised, the Gaussian mixture over the normalised
// vectors, the log-likelihood below which a vector is "unknown", and the
// training and deployment parameters. It is stored as versioned JSON
// (docs/PEER.md) and reused across clusters.
type Profile struct {
	Kind    string `json:"kind"`
	Version int    `json:"version"`
	// MetricNames are the vector's components, in order.
	MetricNames []string `json:"metrics"`
	// Transform names the normalisation: "log1p-zscore", z = (ln(1+max(x,0)) − Mean)/Std.
	Transform string    `json:"transform"`
	Mean      []float64 `json:"mean"`
	Std       []float64 `json:"std"`
	// K is the number of mixture components (states); Distortions are the
	// k-means inertias for K = 1, 2, … that the elbow rule chose it from.
	K           int       `json:"k"`
	Distortions []float64 `json:"distortions,omitempty"`
	// MinLogLik: a vector whose most likely component's weighted log
	// density is below it is "unknown" (stats.GMM.Classify).
	MinLogLik float64    `json:"minLogLik"`
	GMM       *stats.GMM `json:"gmm"`
	// Vectors is how many vectors the profile was trained on.
	Vectors int          `json:"vectors"`
	Train   TrainOptions `json:"train"`
	// Params are the deployment parameters to use with this profile.
	Params Params `json:"params"`
}

// transformLog1pZ is the only normalisation of version 1.
const transformLog1pZ = "log1p-zscore"

// Metrics names the vector's components.
func (p *Profile) Metrics() []string { return p.MetricNames }

// Bins is K states plus "unknown".
func (p *Profile) Bins() int { return p.K + 1 }

// Normalize writes x's normalised form into z.
func (p *Profile) Normalize(x, z []float64) {
	for j, v := range x {
		z[j] = (math.Log1p(max(v, 0)) - p.Mean[j]) / p.Std[j]
	}
}

// Raw is metric j's raw value at normalised value z (Normalize's inverse).
func (p *Profile) Raw(j int, z float64) float64 {
	return math.Expm1(z*p.Std[j] + p.Mean[j])
}

// Label writes x's normalised form into z and returns its most likely
// component, or K ("unknown") when its log-likelihood is below MinLogLik.
func (p *Profile) Label(x, z []float64) int {
	p.Normalize(x, z)
	l := p.GMM.Classify(z, p.MinLogLik)
	if l < 0 {
		return p.K
	}
	return l
}

// Save writes the profile as indented JSON.
func (p *Profile) Save(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// SaveFile writes the profile to path.
func (p *Profile) SaveFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write profile: %w", err)
	}
	if err := p.Save(f); err != nil {
		f.Close()
		return fmt.Errorf("write profile %q: %w", path, err)
	}
	return f.Close()
}

// LoadProfile reads a profile from r; name labels errors.
func LoadProfile(r io.Reader, name string) (*Profile, error) {
	var p Profile
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", name, ErrProfile, err)
	}
	if err := p.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &p, nil
}

// LoadProfileFile reads the profile at path, a local file or an
// object-store URL (s3://, gs://, abfss://, wasbs://).
func LoadProfileFile(path string) (*Profile, error) {
	var f io.ReadCloser
	var err error
	if objstore.IsURL(path) {
		var fsys *objstore.FS
		var name string
		if fsys, name, err = open.Open(context.Background(), path, objstore.Options{}); err == nil {
			f, err = fsys.Open(name)
		}
	} else {
		f, err = os.Open(path)
	}
	if err != nil {
		return nil, fmt.Errorf("read profile: %w", err)
	}
	defer f.Close()
	return LoadProfile(f, path)
}

// validate checks a decoded profile and prepares its mixture.
func (p *Profile) validate() error {
	d := len(p.MetricNames)
	switch {
	case p.Kind != ProfileKind:
		return fmt.Errorf("%w: kind %q, want %q", ErrProfile, p.Kind, ProfileKind)
	case p.Version < 1 || p.Version > ProfileVersion:
		return fmt.Errorf("%w: version %d, want 1..%d", ErrProfile, p.Version, ProfileVersion)
	case p.Transform != transformLog1pZ:
		return fmt.Errorf("%w: transform %q, want %q", ErrProfile, p.Transform, transformLog1pZ)
	case d == 0 || len(p.Mean) != d || len(p.Std) != d:
		return fmt.Errorf("%w: %d metrics with %d means and %d deviations, want as many of each", ErrProfile, d, len(p.Mean), len(p.Std))
	case p.K < 1 || p.K > 255:
		return fmt.Errorf("%w: k %d, want 1..255", ErrProfile, p.K)
	case p.GMM == nil:
		return fmt.Errorf("%w: no gmm", ErrProfile)
	case math.IsNaN(p.MinLogLik):
		return fmt.Errorf("%w: minLogLik is NaN", ErrProfile)
	}
	for j := range d {
		if !(p.Std[j] > 0) || math.IsInf(p.Std[j], 0) || math.IsNaN(p.Mean[j]) || math.IsInf(p.Mean[j], 0) {
			return fmt.Errorf("%w: metric %q: mean %g, std %g, want finite and std > 0", ErrProfile, p.MetricNames[j], p.Mean[j], p.Std[j])
		}
	}
	if err := p.GMM.Prepare(); err != nil {
		return fmt.Errorf("%w: gmm: %w", ErrProfile, err)
	}
	if len(p.GMM.Weights) != p.K || p.GMM.Means.D != d {
		return fmt.Errorf("%w: gmm has %d components of dimension %d, want %d of %d", ErrProfile, len(p.GMM.Weights), p.GMM.Means.D, p.K, d)
	}
	return p.Params.Validate()
}
