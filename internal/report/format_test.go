package report

import "testing"

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Bytes(0), "0 B"}, {Bytes(1023), "1023 B"}, {Bytes(1536), "1.5 KiB"}, {Bytes(3 << 30), "3.0 GiB"},
		{Millis(850), "850ms"}, {Millis(12300), "12.3s"}, {Millis(245000), "4m05s"}, {Millis(7380000), "2h03m"},
		{Millis(-1), "-"}, {Time(0), "-"}, {Time(1422981759269), "2015-02-03 16:42:39Z"},
	} {
		if c.got != c.want {
			t.Errorf("got %q want %q", c.got, c.want)
		}
	}
}

func TestStageList(t *testing.T) {
	if got := stageList([]int32{0, 1, 2}, 8); got != "stages 0 1 2" {
		t.Errorf("short: %q", got)
	}
	ids := make([]int32, 20)
	for i := range ids {
		ids[i] = int32(i)
	}
	if got := stageList(ids, 8); got != "stages 0 1 2 3 … (12 more) … 16 17 18 19" {
		t.Errorf("long: %q", got)
	}
}
