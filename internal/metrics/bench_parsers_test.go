package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// benchSadf builds a sadf -j document of records copies of the first
// record of testdata/sadf-12.json (real sysstat 12.6 output).
func benchSadf(tb testing.TB, records int) []byte {
	tb.Helper()
	b, err := os.ReadFile("testdata/sadf-12.json")
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct {
		Sysstat struct {
			Hosts []struct {
				Statistics []json.RawMessage `json:"statistics"`
			} `json:"hosts"`
		} `json:"sysstat"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		tb.Fatal(err)
	}
	rec := doc.Sysstat.Hosts[0].Statistics[0]
	var buf bytes.Buffer
	buf.WriteString(`{"sysstat": {"hosts": [{"nodename": "n1", "timezone": "UTC", "statistics": [`)
	for i := range records {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(rec)
	}
	buf.WriteString("]}]}}\n")
	return buf.Bytes()
}

// BenchmarkReadSysstat reads sadf -j output (22 samples per record).
func BenchmarkReadSysstat(b *testing.B) {
	data := benchSadf(b, 2000)
	benchSamples(b, data, func(fn func(*model.Sample) error) error {
		return ReadSysstat(bytes.NewReader(data), "bench.json", fn)
	})
}

// benchProm builds a query_range answer of series series of points points.
func benchProm(series, points int) []byte {
	var b strings.Builder
	b.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
	for s := range series {
		if s > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"metric":{"instance":"10.0.%d.%d:9100"},"values":[`, s/256, s%256)
		for p := range points {
			if p > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `[%d.%03d,"%g"]`, 1700000000+p, p%1000, float64(p%977)*1.37)
		}
		b.WriteString("]}")
	}
	b.WriteString("]}}")
	return []byte(b.String())
}

// BenchmarkPromParse parses a range-query answer (100 series × 3,600 points).
func BenchmarkPromParse(b *testing.B) {
	data := benchProm(100, 3600)
	benchSamples(b, data, func(fn func(*model.Sample) error) error {
		var s model.Sample
		_, err := promParseMatrix(bytes.NewReader(data), func(_ string, pts []promPoint) error {
			for range pts {
				if err := fn(&s); err != nil {
					return err
				}
			}
			return nil
		})
		return err
	})
}

// BenchmarkReadCSVFileZstd reads the simulator's metrics as it writes
// them, zstd-compressed, decompression included.
func BenchmarkReadCSVFileZstd(b *testing.B) {
	data := simCSVBytes(b)
	path := filepath.Join(b.TempDir(), "metrics.csv.zst")
	writeCodec(b, path, codec.Zstd, data)
	benchSamples(b, data, func(fn func(*model.Sample) error) error { return ReadCSVFile(path, fn) })
}

// benchSamples runs read, reporting the input's (uncompressed) bytes/s,
// samples/s and samples per CPU second of the process (the machine may be
// shared: CPU time is what the reader costs).
func benchSamples(b *testing.B, data []byte, read func(func(*model.Sample) error) error) {
	n := 0
	count := func(*model.Sample) error { n++; return nil }
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := sharedtest.ProcessCPU().Seconds()
	for b.Loop() {
		if err := read(count); err != nil {
			b.Fatal(err)
		}
	}
	cpu := sharedtest.ProcessCPU().Seconds() - cpu0
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "samples/s")
	if cpu > 0 {
		b.ReportMetric(float64(n)/cpu, "samples/cpu-s")
	}
}

// benchNmon builds an nmon 16 recording of a 16-CPU node with four
// interfaces and eight disks (partitions and dm devices among them) over
// snapshots 1 s snapshots: every line nmon -f writes for such a node.
func benchNmon(snapshots int) []byte {
	var b bytes.Buffer
	b.WriteString("AAA,progname,nmon\nAAA,version,16n\nAAA,host,bench1\nAAA,OS,Linux,6.1.0,#1 SMP,x86_64\nAAA,interval,1\n")
	for c := 1; c <= 16; c++ {
		fmt.Fprintf(&b, "CPU%03d,CPU %d bench1,User%%,Sys%%,Wait%%,Idle%%,Steal%%\n", c, c)
	}
	b.WriteString("CPU_ALL,CPU Total bench1,User%,Sys%,Wait%,Idle%,Steal%,Busy,CPUs\n")
	b.WriteString("MEM,Memory MB bench1,memtotal,hightotal,lowtotal,swaptotal,memfree,highfree,lowfree,swapfree,memshared,cached,active,bigfree,buffers,swapcached,inactive\n")
	b.WriteString("PROC,Processes bench1,Runnable,Blocked,pswitch,syscall,read,write,fork,exec,sem,msg\n")
	b.WriteString("NET,Network I/O bench1,lo-read-KB/s,eth0-read-KB/s,eth1-read-KB/s,docker0-read-KB/s,lo-write-KB/s,eth0-write-KB/s,eth1-write-KB/s,docker0-write-KB/s\n")
	b.WriteString("NETPACKET,Network Packets bench1,lo-read/s,eth0-read/s,eth1-read/s,docker0-read/s,lo-write/s,eth0-write/s,eth1-write/s,docker0-write/s\n")
	disks := "sda,sda1,sda2,sdb,dm-0,dm-1,nvme0n1,nvme0n1p1"
	for _, s := range []string{"DISKBUSY,Disk %Busy", "DISKREAD,Disk Read KB/s", "DISKWRITE,Disk Write KB/s", "DISKXFER,Disk transfers per second", "DISKBSIZE,Disk Block Size"} {
		fmt.Fprintf(&b, "%s bench1,%s\n", s, disks)
	}
	b.WriteString("JFSFILE,JFS Filespace %Used bench1,/,/boot,/data,/var\n")
	b.WriteString("VM,Paging and Virtual Memory,nr_dirty,nr_writeback,nr_unstable,nr_page_table_pages,nr_mapped,nr_slab_reclaimable,pgpgin,pgpgout,pswpin,pswpout,pgfree,pgactivate,pgdeactivate,pgfault,pgmajfault,pginodesteal,slabs_scanned,kswapd_steal,kswapd_inodesteal,pageoutrun,allocstall,pgrotated,pgalloc_high,pgalloc_normal,pgalloc_dma,pgrefill_high,pgrefill_normal,pgrefill_dma,pgsteal_high,pgsteal_normal,pgsteal_dma,pgscan_kswapd_high,pgscan_kswapd_normal,pgscan_kswapd_dma,pgscan_direct_high,pgscan_direct_normal,pgscan_direct_dma\n")
	start := time.Date(2024, 1, 2, 10, 0, 0, 0, time.UTC)
	for i := range snapshots {
		t := fmt.Sprintf("T%04d", i+1)
		fmt.Fprintf(&b, "ZZZZ,%s,%s\n", t, strings.ToUpper(start.Add(time.Duration(i)*time.Second).Format("15:04:05,02-Jan-2006")))
		u := float64(i%50) + 10.5
		for c := 1; c <= 16; c++ {
			fmt.Fprintf(&b, "CPU%03d,%s,%.1f,5.0,1.0,%.1f,0.0\n", c, t, u, 94-u)
		}
		fmt.Fprintf(&b, "CPU_ALL,%s,%.1f,5.0,1.0,%.1f,0.0,,16\n", t, u, 94-u)
		fmt.Fprintf(&b, "MEM,%s,64215.3,-0.0,-0.0,8192.0,%.1f,-0.0,-0.0,8190.2,120.4,30512.8,25104.2,-1.0,812.6,1.2,20480.5\n", t, 4000+u)
		fmt.Fprintf(&b, "VM,%s,210,0,0,377,2765,24369,%d,%d,0,0,11971,182,0,%d,10,0,0,0,0,0,0,0,0,5872,0,0,0,0,0,0,0,0,0,0,0,0,0\n", t, 1000+i%97, 4000+i%89, 20000+i%991)
		fmt.Fprintf(&b, "PROC,%s,%d,0,%.1f,-1.0,-1.0,-1.0,%.1f,-1.0,-1.0,-1.0\n", t, 3+i%5, 25000+u, u)
		fmt.Fprintf(&b, "NET,%s,12.5,%.1f,40.2,0.0,12.5,%.1f,8.1,0.0\n", t, 1024+u, 512+u)
		fmt.Fprintf(&b, "NETPACKET,%s,20.0,900.0,30.0,0.0,20.0,500.0,10.0,0.0\n", t)
		fmt.Fprintf(&b, "JFSFILE,%s,45.2,20.1,80.0,33.3\n", t)
		for _, s := range []string{"DISKBUSY", "DISKREAD", "DISKWRITE", "DISKXFER", "DISKBSIZE"} {
			fmt.Fprintf(&b, "%s,%s,%.1f,10.0,%.1f,120.0,%.1f,0.0,250.5,250.5\n", s, t, 100+u, u, 100+u)
		}
	}
	return b.Bytes()
}

// BenchmarkReadNmon reads an nmon recording of 2,000 snapshots (19
// samples each after the first).
func BenchmarkReadNmon(b *testing.B) {
	data := benchNmon(2000)
	benchSamples(b, data, func(fn func(*model.Sample) error) error {
		_, err := ReadNmon(bytes.NewReader(data), "bench.nmon", time.UTC, fn)
		return err
	})
}
