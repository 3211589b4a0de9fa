package model

import (
	"slices"
	"testing"
)

// TestScalaSetOrder checks the iteration order against Scala 2.12's REPL:
// Set(1, 2, 3, 4, 5) prints Set(5, 1, 2, 3, 4) and (1 to 10).toSet prints
// Set(5, 10, 1, 6, 9, 2, 7, 3, 8, 4); up to four elements keep their order.
func TestScalaSetOrder(t *testing.T) {
	for _, c := range []struct{ in, want []int32 }{
		{[]int32{1, 2, 3, 4, 5}, []int32{5, 1, 2, 3, 4}},
		{[]int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, []int32{5, 10, 1, 6, 9, 2, 7, 3, 8, 4}},
		{[]int32{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, []int32{5, 10, 1, 6, 9, 2, 7, 3, 8, 4}},
		{[]int32{4, 2, 2, 9}, []int32{4, 2, 9}},
	} {
		if got := ScalaSetOrder(c.in); !slices.Equal(got, c.want) {
			t.Errorf("ScalaSetOrder(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
