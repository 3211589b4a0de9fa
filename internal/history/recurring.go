package history

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"sort"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Recurring applications. Runs of one job differ in their names (dates,
// ids, timestamps), their sizes (task counts, bytes) and sometimes their
// DAG (an iteration more, a stage that adaptive execution added), and keep
// the code they run. A run's JobKey is a hash of its engine, its normalized
// name and its DAG (the set of its distinct stage signatures), so runs with
// the same name and DAG share it exactly; Group then joins JobKeys whose
// names agree and whose DAGs are alike (Jaccard similarity at least
// GroupOptions.MinSimilarity), with that similarity as the confidence.

var (
	reUUID     = regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	reDateTime = regexp.MustCompile(`\d{4}([-/._])\d{1,2}[-/._]\d{1,2}(?:[t _-]?\d{1,2}[:h._-]?\d{2}(?:[:m._-]?\d{2}(?:[.,]\d+)?)?z?)?|\d{1,2}/\d{1,2}/\d{2,4}`)
	reTime     = regexp.MustCompile(`\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?\b`)
	reAlnum    = regexp.MustCompile(`[0-9a-z]{8,}`)
	reLongNum  = regexp.MustCompile(`\d{3,}`)
	reSpaces   = regexp.MustCompile(`\s+`)
	reRepeat   = regexp.MustCompile(`(<[a-z]+>)(?:[-_ ./:]*<[a-z]+>)+`)
)

// NormalizeName returns an application (or stage) name with what changes
// from run to run of the same job replaced by placeholders: UUIDs <uuid>,
// dates and date-times <date>, times <time>, hexadecimal ids of 8 or more
// characters <hex>, and numbers of 3 or more digits <n> (ids, epoch times,
// sizes). Numbers of one or two digits stay: "q12" and "q64" are other
// queries. Case and runs of spaces are folded; adjacent placeholders become
// one.
func NormalizeName(name string) string {
	s := strings.ToLower(strings.TrimSpace(name))
	s = reUUID.ReplaceAllString(s, "<uuid>")
	s = reDateTime.ReplaceAllString(s, "<date>")
	s = reTime.ReplaceAllString(s, "<time>")
	s = reAlnum.ReplaceAllStringFunc(s, func(w string) string {
		if isHexID(w) {
			return "<hex>"
		}
		return w
	})
	s = reLongNum.ReplaceAllString(s, "<n>")
	s = reRepeat.ReplaceAllString(s, "$1")
	return reSpaces.ReplaceAllString(s, " ")
}

// isHexID reports whether w is hexadecimal with both a digit and a letter
// (a commit, a hash, an id: not a word and not a plain number).
func isHexID(w string) bool {
	digit, letter := false, false
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'f':
			letter = true
		default:
			return false
		}
	}
	return digit && letter
}

// StageSignature identifies a stage across runs of a job: its normalized
// name (for Spark the call site, "map at WordCount.scala:35"; for
// MapReduce the phase) and its shape: whether it read input, read shuffle
// data, wrote shuffle data or wrote output, and how many parents it has (at
// most 3 counted). Sizes, task counts and times are left out: they change
// with the data.
func StageSignature(st *Stage, parents int) string {
	var b strings.Builder
	b.WriteString(NormalizeName(st.Name))
	b.WriteByte('|')
	flag := func(on bool, c byte) {
		if on {
			b.WriteByte(c)
		} else {
			b.WriteByte('-')
		}
	}
	flag(st.InputBytes > 0 || st.InputRecords > 0, 'i')
	flag(st.ShuffleReadBytes > 0, 'r')
	flag(st.ShuffleWriteBytes > 0, 'w')
	flag(st.OutputBytes > 0, 'o')
	b.WriteByte('0' + byte(min(parents, 3)))
	return b.String()
}

// signStages sets each stage's Signature and the run's DAG (the sorted set
// of the signatures of its stages that ran tasks; skipped stages vary with
// what an earlier job left cached).
func signStages(app *model.App, r *Run) {
	set := map[string]bool{}
	for i, ms := range app.Stages {
		st := &r.Stages[i]
		st.Signature = StageSignature(st, len(ms.ParentIDs))
		if st.Tasks > 0 {
			set[st.Signature] = true
		}
	}
	r.DAG = make([]string, 0, len(set))
	for s := range set {
		r.DAG = append(r.DAG, s)
	}
	sort.Strings(r.DAG)
}

// JobKey hashes engine, normalized name and DAG into the key runs of the
// same job with the same DAG share: 16 hexadecimal digits.
func JobKey(engine, nameKey string, dag []string) string {
	h := sha256.New()
	h.Write([]byte(engine))
	h.Write([]byte{0})
	h.Write([]byte(nameKey))
	for _, s := range dag {
		h.Write([]byte{0})
		h.Write([]byte(s))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// UnnamedJobKey is the JobKey of a run without a name: nothing tells that
// two unnamed runs are one job (66 unnamed MapReduce jobs of 3 to 3,839
// tasks, months apart, share their DAG of map and reduce phases), so each
// is a job of its own, keyed by its run.
func UnnamedJobKey(engine, runKey string) string {
	return JobKey(engine, "\x00run "+runKey, nil)
}

// Variant is one JobKey: the runs sharing a normalized name and a DAG.
type Variant struct {
	JobKey  string   `json:"jobKey"`
	Engine  string   `json:"engine"`
	NameKey string   `json:"nameKey"`
	DAG     []string `json:"dag"`
	Runs    int      `json:"runs"`
}

// GroupOptions tune Group.
type GroupOptions struct {
	// MinSimilarity is the least Jaccard similarity of two variants' DAGs
	// for them to be one job (default 0.5).
	MinSimilarity float64
}

// Recurring is one recurring job: variants with one engine and normalized
// name whose DAGs are alike. ID is its most-run variant's JobKey;
// Confidence maps each variant's JobKey to the Jaccard similarity of its DAG
// with that variant's (1 for the variant itself).
type Recurring struct {
	ID         string             `json:"id"`
	Engine     string             `json:"engine"`
	NameKey    string             `json:"nameKey"`
	Runs       int                `json:"runs"`
	Variants   []string           `json:"variants"`
	Confidence map[string]float64 `json:"confidence"`
}

// Group joins variants into recurring jobs. Variants with the same engine
// and name are considered from the most run down: each joins the job whose
// representative (its most-run variant) has the most similar DAG, when that
// similarity reaches MinSimilarity, and otherwise starts a job of its own.
// A variant without a name is always a job of its own.
// The result does not depend on the order of vs.
func Group(vs []Variant, opt GroupOptions) []*Recurring {
	if opt.MinSimilarity <= 0 {
		opt.MinSimilarity = 0.5
	}
	sorted := append([]Variant(nil), vs...)
	sort.Slice(sorted, func(i, j int) bool {
		a, b := &sorted[i], &sorted[j]
		if a.Engine != b.Engine {
			return a.Engine < b.Engine
		}
		if a.NameKey != b.NameKey {
			return a.NameKey < b.NameKey
		}
		if a.Runs != b.Runs {
			return a.Runs > b.Runs
		}
		return a.JobKey < b.JobKey
	})
	var out []*Recurring
	var reps [][]string // DAG of each job's representative
	first := 0          // first job of the current engine and name
	for i := range sorted {
		v := &sorted[i]
		if i > 0 && (v.Engine != sorted[i-1].Engine || v.NameKey != sorted[i-1].NameKey) {
			first = len(out)
		}
		best, bestSim := -1, 0.0
		for j := first; j < len(out) && v.NameKey != ""; j++ { // unnamed: a job of its own
			if s := Jaccard(v.DAG, reps[j]); s > bestSim {
				best, bestSim = j, s
			}
		}
		if best < 0 || bestSim < opt.MinSimilarity {
			out = append(out, &Recurring{ID: v.JobKey, Engine: v.Engine, NameKey: v.NameKey,
				Confidence: map[string]float64{}})
			reps = append(reps, v.DAG)
			best, bestSim = len(out)-1, 1
		}
		g := out[best]
		g.Runs += v.Runs
		g.Variants = append(g.Variants, v.JobKey)
		g.Confidence[v.JobKey] = bestSim
	}
	return out
}

// Jaccard is |a ∩ b| / |a ∪ b| of two sorted sets of strings (1 when both
// are empty).
func Jaccard(a, b []string) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
