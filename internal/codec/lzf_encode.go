package codec

// LZF compression (liblzf's format, which compress-lzf reads), used by
// NewWriter. A greedy matcher with one hash table: not the best ratio, but
// valid and fast.

const (
	lzfHashLog  = 14
	lzfMaxOff   = 1 << 13     // back references reach 8 KiB
	lzfMaxMatch = 7 + 255 + 2 // longest copy one instruction can encode
	lzfMaxLit   = 32          // longest literal run
)

// lzfTable maps a hash of 3 bytes to 1 + their last position.
type lzfTable [1 << lzfHashLog]int32

// lzfBound bounds the encoding of n bytes: each literal run costs a control
// byte per 32 bytes, and each match costs at most its length minus one, which
// pays for the run it splits, so the total is at most n + n/32 + 1.
func lzfBound(n int) int { return n + (n+lzfMaxLit-1)/lzfMaxLit + 1 }

// lzfEncode compresses in into out, which must hold lzfBound(len(in)) bytes,
// and returns the encoded length. len(in) must be at most lzfMaxChunk.
func lzfEncode(t *lzfTable, in, out []byte) int {
	clear(t[:])
	op, lit, ip := 0, 0, 0
	emit := func(to int) {
		for lit < to {
			n := min(lzfMaxLit, to-lit)
			out[op] = byte(n - 1)
			copy(out[op+1:], in[lit:lit+n])
			op += 1 + n
			lit += n
		}
	}
	for ip+2 < len(in) {
		v := uint32(in[ip])<<16 | uint32(in[ip+1])<<8 | uint32(in[ip+2])
		h := (v * 2654435761) >> (32 - lzfHashLog)
		ref := int(t[h]) - 1
		t[h] = int32(ip + 1)
		if ref < 0 || ip-ref > lzfMaxOff || in[ref] != in[ip] || in[ref+1] != in[ip+1] || in[ref+2] != in[ip+2] {
			ip++
			continue
		}
		off := ip - ref - 1
		maxLen := min(len(in)-ip, lzfMaxMatch)
		l := 3
		for l < maxLen && in[ref+l] == in[ip+l] {
			l++
		}
		emit(ip)
		code := l - 2
		if code < 7 {
			out[op] = byte(off>>8 | code<<5)
			out[op+1] = byte(off)
			op += 2
		} else {
			out[op] = byte(off>>8 | 7<<5)
			out[op+1] = byte(code - 7)
			out[op+2] = byte(off)
			op += 3
		}
		ip += l
		lit = ip
	}
	emit(len(in))
	return op
}
