package mapreduce

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Real binary .jhist files are absent from the shared data, so these tests
// make them: LinkedIn's goavro (an Avro implementation independent of ours)
// re-encodes every event of real Avro-JSON histories, both as Hadoop's
// "Avro-Binary" stream and as Avro object container files with each codec,
// and every form must give the same model as the JSON.

var binaryFixtures = []string{
	"hadoop/hadoop-mapreduce-project/hadoop-mapreduce-client/hadoop-mapreduce-client-hs/src/test/resources/job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist",
	"hadoop/hadoop-mapreduce-project/hadoop-mapreduce-client/hadoop-mapreduce-client-hs/src/test/resources/job_0.23.9-FAILED.jhist",
	"hadoop/hadoop-mapreduce-project/hadoop-mapreduce-client/hadoop-mapreduce-client-hs/src/test/resources/job_2.4.0-FAILED.jhist",
	"hadoop/hadoop-mapreduce-project/hadoop-mapreduce-client/hadoop-mapreduce-client-hs/src/test/resources/job_1416424547277_0002-1416424775281-root-TeraGen-1416424785433-2-0-SUCCEEDED-default-1416424779349.jhist",
	"dr-elephant/test/resources/history/done/2018/05/17/000000/job_1526555215992_0001-1526555642677-user-QuasiMonteCarlo-1526555658299-1-1-SUCCEEDED-default-1526555648931.jhist",
	"hraven/hraven-etl/src/test/resources/job_1410289045532_259974-1411647985641-user35-SomeJobName-1411647999554-1-0-SUCCEEDED-root.someQueueName-1411647995323.jhist",
}

// encodeBinary re-encodes an Avro-JSON history with goavro.
func encodeBinary(t testing.TB, jsonHist []byte) (schema []byte, natives []any, stream []byte) {
	t.Helper()
	lines := bytes.Split(jsonHist, []byte("\n"))
	if len(lines) < 2 || string(bytes.TrimSpace(lines[0])) != "Avro-Json" {
		t.Fatal("not an Avro-Json history")
	}
	schema = bytes.TrimSpace(lines[1])
	codec, err := goavro.NewCodec(string(schema))
	if err != nil {
		t.Fatalf("goavro: schema: %v", err)
	}
	stream = append([]byte("Avro-Binary\n"), schema...)
	stream = append(stream, '\n')
	for i, l := range lines[2:] {
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		native, _, err := codec.NativeFromTextual(l)
		if err != nil {
			t.Fatalf("goavro: line %d: %v", i+3, err)
		}
		natives = append(natives, native)
		if stream, err = codec.BinaryFromNative(stream, native); err != nil {
			t.Fatalf("goavro: line %d: %v", i+3, err)
		}
	}
	return schema, natives, stream
}

func encodeContainer(t testing.TB, schema []byte, natives []any, compression string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := goavro.NewOCFWriter(goavro.OCFConfig{W: &buf, Schema: string(schema), CompressionName: compression})
	if err != nil {
		t.Fatal(err)
	}
	// several blocks, to exercise block framing
	for len(natives) > 0 {
		n := min(len(natives), 7)
		if err := w.Append(natives[:n]); err != nil {
			t.Fatal(err)
		}
		natives = natives[n:]
	}
	return buf.Bytes()
}

// sameModel reports how two Apps differ beyond their Version, or "".
func sameModel(a, b *model.App) string {
	x, y := *a, *b
	x.Version, y.Version = "", ""
	x.Quality.Issues, y.Quality.Issues = nil, nil
	if reflect.DeepEqual(&x, &y) {
		return ""
	}
	switch {
	case x.ID != y.ID || x.Name != y.Name || x.User != y.User || x.Start != y.Start || x.End != y.End:
		return fmt.Sprintf("app %q %q %q %d %d vs %q %q %q %d %d", x.ID, x.Name, x.User, x.Start, x.End, y.ID, y.Name, y.User, y.Start, y.End)
	case !reflect.DeepEqual(x.Quality, y.Quality):
		return fmt.Sprintf("quality %+v vs %+v", x.Quality, y.Quality)
	case len(x.Stages) != len(y.Stages):
		return fmt.Sprintf("%d stages vs %d", len(x.Stages), len(y.Stages))
	}
	for i := range x.Stages {
		if !reflect.DeepEqual(x.Stages[i], y.Stages[i]) {
			return fmt.Sprintf("stage %d: %+v\nvs %+v", i, x.Stages[i], y.Stages[i])
		}
	}
	return "executors, hosts, reasons or jobs differ"
}

func TestJhistBinaryFormsMatchJSON(t *testing.T) {
	for _, rel := range binaryFixtures {
		t.Run(rel[len(rel)-min(len(rel), 40):], func(t *testing.T) {
			js := readLog(t, rel)
			want, err := ReadJhist(bytes.NewReader(js), rel)
			if err != nil {
				t.Fatal(err)
			}
			if want.NumTasks() == 0 {
				t.Fatal("no tasks in the JSON form")
			}
			schema, natives, stream := encodeBinary(t, js)
			forms := map[string][]byte{"Avro-Binary": stream}
			for _, c := range []string{"null", "deflate", "snappy"} {
				forms["Avro-Container/"+c] = encodeContainer(t, schema, natives, c)
			}
			for form, data := range forms {
				got, err := ReadJhist(bytes.NewReader(data), rel)
				if err != nil {
					t.Fatalf("%s: %v", form, err)
				}
				if d := sameModel(want, got); d != "" {
					t.Errorf("%s differs from Avro-Json: %s", form, d)
				}
				if got.Quality.BadLines != 0 || got.Quality.Truncated {
					t.Errorf("%s: quality %+v", form, got.Quality)
				}
			}
		})
	}
}

func TestJhistBinaryTruncated(t *testing.T) {
	js := readLog(t, binaryFixtures[0])
	_, _, stream := encodeBinary(t, js)
	full, err := ReadJhist(bytes.NewReader(stream), "x.jhist")
	if err != nil {
		t.Fatal(err)
	}
	cut := stream[:len(stream)-50]
	got, err := ReadJhist(bytes.NewReader(cut), "x.jhist")
	if err != nil {
		t.Fatal(err)
	}
	if !got.Quality.Truncated || got.Complete || !full.Complete {
		t.Errorf("truncated stream: truncated %v complete %v (full complete %v)", got.Quality.Truncated, got.Complete, full.Complete)
	}
	if got.NumTasks() != full.NumTasks() {
		t.Errorf("truncated stream lost attempts: %d vs %d", got.NumTasks(), full.NumTasks())
	}
}

func TestJhistContainerCorruptBlock(t *testing.T) {
	js := readLog(t, binaryFixtures[0])
	schema, natives, _ := encodeBinary(t, js)
	// snappy blocks carry a CRC-32, so corruption is always detected (null
	// and deflate blocks may decode garbage into plausible events).
	data := encodeContainer(t, schema, natives, "snappy")
	good, err := ReadJhist(bytes.NewReader(data), "x.jhist")
	if err != nil {
		t.Fatal(err)
	}
	// corrupt a byte in the middle of the file: one block is lost, the
	// reader resynchronizes on the next sync marker.
	bad := bytes.Clone(data)
	bad[len(bad)/2] ^= 0xff
	bad[len(bad)/2+1] ^= 0xff
	got, err := ReadJhist(bytes.NewReader(bad), "x.jhist")
	if err != nil {
		t.Fatal(err)
	}
	if got.Quality.BadLines == 0 {
		t.Errorf("corruption not counted: %+v", got.Quality)
	}
	if got.NumTasks() == 0 || got.NumTasks() > good.NumTasks() {
		t.Errorf("tasks %d of %d", got.NumTasks(), good.NumTasks())
	}
}

func TestJhistNotAHistory(t *testing.T) {
	for _, in := range []string{"", "hello\n", "Obj\x01", "Avro-Binary\nnot a schema\n"} {
		_, err := ReadJhist(bytes.NewReader([]byte(in)), "x.jhist")
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%q: err %v, want ErrFormat", in, err)
		}
	}
	_, err := ReadJhist(bytes.NewReader([]byte("hello\n")), "x.jhist")
	if want := `mapreduce: "x.jhist": line 1: want "Avro-Json" header or Avro magic`; err == nil || err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}
