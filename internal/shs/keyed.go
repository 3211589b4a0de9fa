package shs

import (
	"bytes"
	"encoding/json"
)

// marshalKeyed writes n entries as a JSON object in order; entry(i) gives
// the key and the value of the i-th entry.
func marshalKeyed(n int, entry func(i int) (string, any)) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i := 0; i < n; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, v := entry(i)
		writeJSONString(&buf, k)
		buf.WriteByte(':')
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		buf.Truncate(buf.Len() - 1)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
