package lines

import (
	"fmt"
	"math"
)

// IBytes is n bytes in binary units with two significant digits, as
// go-humanize's IBytes writes them ("9 B", "1.5 KiB", "64 MiB"), for the
// messages of the leaf packages (lines, codec), where that is the only use
// and not worth the dependency.
func IBytes(n uint64) string {
	if n < 10 {
		return fmt.Sprintf("%d B", n)
	}
	e := math.Floor(math.Log(float64(n)) / math.Log(1024))
	unit := [...]string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}[int(e)]
	v := float64(n) / math.Pow(1024, e)
	if v < 10 {
		if r := math.Floor(v*10+0.5) / 10; r < 10 {
			return fmt.Sprintf("%.1f %s", r, unit)
		}
	}
	return fmt.Sprintf("%.0f %s", math.Floor(v+0.5), unit)
}
