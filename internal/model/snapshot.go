package model

import (
	"encoding/gob"
	"fmt"
	"io"
)

// WriteSnapshot writes a to w in a form ReadSnapshot reads back equal (up
// to empty slices and maps, which read back nil): gob of the application,
// then each stage's task-metric offsets, which gob cannot see. Decoders use
// it to keep the state of a log still being written and read it further
// later without reading it again from the start.
func WriteSnapshot(w io.Writer, a *App) error {
	enc := gob.NewEncoder(w)
	if err := enc.Encode(a); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	offsets := make([][]uint32, len(a.Stages))
	for i, st := range a.Stages {
		offsets[i] = make([]uint32, len(st.Tasks))
		for j := range st.Tasks {
			offsets[i][j] = st.Tasks[j].metrics
		}
	}
	if err := enc.Encode(offsets); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	return nil
}

// ReadSnapshot reads an application WriteSnapshot wrote.
func ReadSnapshot(r io.Reader) (*App, error) {
	dec := gob.NewDecoder(r)
	a := &App{}
	if err := dec.Decode(a); err != nil {
		return nil, fmt.Errorf("read snapshot: %w", err)
	}
	var offsets [][]uint32
	if err := dec.Decode(&offsets); err != nil {
		return nil, fmt.Errorf("read snapshot: %w", err)
	}
	if len(offsets) != len(a.Stages) {
		return nil, fmt.Errorf("read snapshot: %d stages but %d offset lists", len(a.Stages), len(offsets))
	}
	for i, st := range a.Stages {
		if len(offsets[i]) != len(st.Tasks) {
			return nil, fmt.Errorf("read snapshot: stage %d.%d: %d tasks but %d offsets", st.ID, st.Attempt, len(st.Tasks), len(offsets[i]))
		}
		for j := range st.Tasks {
			if int(offsets[i][j]) > len(st.Metrics.buf) {
				return nil, fmt.Errorf("read snapshot: stage %d.%d task %d: metrics offset %d past %d bytes", st.ID, st.Attempt, j, offsets[i][j], len(st.Metrics.buf))
			}
			st.Tasks[j].metrics = offsets[i][j]
		}
	}
	return a, nil
}

// GobEncode gives gob the arena's bytes.
func (a Arena) GobEncode() ([]byte, error) { return a.buf, nil }

// GobDecode takes the arena's bytes from gob.
func (a *Arena) GobDecode(b []byte) error {
	a.buf = append([]byte(nil), b...)
	return nil
}
