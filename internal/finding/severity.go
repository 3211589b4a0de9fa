package finding

import "fmt"

// Severity grades a finding on Dr. Elephant's scale
// (com.linkedin.drelephant.analysis.Severity: NONE, LOW, MODERATE, SEVERE,
// CRITICAL).
type Severity uint8

// Severities, mildest first.
const (
	None Severity = iota
	Low
	Moderate
	Severe
	Critical
)

var severityNames = [...]string{"none", "low", "moderate", "severe", "critical"}

// String returns the lower-case name.
func (s Severity) String() string {
	if int(s) < len(severityNames) {
		return severityNames[s]
	}
	return fmt.Sprintf("severity(%d)", uint8(s))
}

// MarshalText writes the name, so JSON carries "moderate" rather than 2.
func (s Severity) MarshalText() ([]byte, error) {
	if int(s) >= len(severityNames) {
		return nil, fmt.Errorf("marshal severity %d: out of range", uint8(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads a name written by MarshalText.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// ParseSeverity maps a name to its Severity.
func ParseSeverity(name string) (Severity, error) {
	for i, n := range severityNames {
		if n == name {
			return Severity(i), nil
		}
	}
	return None, fmt.Errorf("parse severity %q: want none, low, moderate, severe or critical", name)
}

// Limits are the four values at which a measure reaches Low, Moderate,
// Severe and Critical, as Dr. Elephant's heuristics configure them.
type Limits [4]float64

// Ascending grades v when larger is worse: the highest limit v reaches
// (Dr. Elephant's Severity.getSeverityAscending).
func (l Limits) Ascending(v float64) Severity {
	for i := 3; i >= 0; i-- {
		if v >= l[i] {
			return Severity(i + 1)
		}
	}
	return None
}

// Descending grades v when smaller is worse: the lowest limit v falls to
// (Dr. Elephant's Severity.getSeverityDescending).
func (l Limits) Descending(v float64) Severity {
	for i := 3; i >= 0; i-- {
		if v <= l[i] {
			return Severity(i + 1)
		}
	}
	return None
}
