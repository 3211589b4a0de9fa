package codec

import "math/bits"

// XXH32 primes.
const (
	xxPrime1 uint32 = 2654435761
	xxPrime2 uint32 = 2246822519
	xxPrime3 uint32 = 3266489917
	xxPrime4 uint32 = 668265263
	xxPrime5 uint32 = 374761393
)

// xxh32 returns the 32-bit xxHash of b with the given seed, as lz4-java's
// StreamingXXHash32 computes it.
func xxh32(b []byte, seed uint32) uint32 {
	n := len(b)
	var h uint32
	if n >= 16 {
		v1 := seed + xxPrime1 + xxPrime2
		v2 := seed + xxPrime2
		v3 := seed
		v4 := seed - xxPrime1
		for len(b) >= 16 {
			v1 = xxRound(v1, le32(b[0:4]))
			v2 = xxRound(v2, le32(b[4:8]))
			v3 = xxRound(v3, le32(b[8:12]))
			v4 = xxRound(v4, le32(b[12:16]))
			b = b[16:]
		}
		h = bits.RotateLeft32(v1, 1) + bits.RotateLeft32(v2, 7) + bits.RotateLeft32(v3, 12) + bits.RotateLeft32(v4, 18)
	} else {
		h = seed + xxPrime5
	}
	h += uint32(n)
	for len(b) >= 4 {
		h += le32(b) * xxPrime3
		h = bits.RotateLeft32(h, 17) * xxPrime4
		b = b[4:]
	}
	for _, c := range b {
		h += uint32(c) * xxPrime5
		h = bits.RotateLeft32(h, 11) * xxPrime1
	}
	h ^= h >> 15
	h *= xxPrime2
	h ^= h >> 13
	h *= xxPrime3
	h ^= h >> 16
	return h
}

func xxRound(acc, in uint32) uint32 {
	return bits.RotateLeft32(acc+in*xxPrime2, 13) * xxPrime1
}
