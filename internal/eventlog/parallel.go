package eventlog

import (
	"sync"
	"sync/atomic"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/lines"
)

// Parallel decodes one stream on several cores. A reader goroutine reads
// (and decompresses) the stream in blocks of whole lines; worker goroutines
// parse each block's task events, nearly all of a log's bytes, into records
// (parseTaskLine, a pure function of the line); the decoding goroutine
// applies the blocks in order, decoding every other event itself, and while
// it waits for a block it parses the blocks after it. A block no worker
// took is decoded as the sequential decoder decodes it. The model is the
// one the sequential decoder builds, bit for bit (TestParallelEqualsSequential).
type Parallel struct {
	// Workers is how many goroutines parse blocks beside the decoding one.
	Workers int
	// Acquire, when set, is asked before a worker parses a block: false
	// leaves the block to the decoding goroutine (the cores are busy with
	// other logs). Release follows every true.
	Acquire func() bool
	Release func()
}

// blocks is how many blocks are in flight at most.
func (p *Parallel) blocks() int { return 2*p.Workers + 2 }

// Memory is the most a parallel read holds beside the line limit: its
// blocks, with their lines' records (about half a block's bytes at most
// for real logs, whose task lines are kilobytes long).
func (p *Parallel) Memory() int64 { return int64(p.blocks()) * lines.DefaultBlock * 3 / 2 }

// work is one block on its way: read, parsed, applied, recycled.
type work struct {
	b   lines.Block
	err error // the stream's end or failure, after the blocks before it
	gen int64 // how many times the block was filled
	// state is gen<<1, with bit 0 set once a worker or the decoder claimed
	// the block; parsed is signalled when a worker finished parsing it.
	state  atomic.Int64
	parsed chan struct{}
	lines  []parsedLine
	tasks  []taskLine
	count  int64 // the block's lines, blank ones included
}

// parsedLine is a line of a parsed block.
type parsedLine struct {
	lines.Line
	start, end int64 // stream offsets of its start and after its newline
	task       int   // index into work.tasks; -1: not a task event
}

// claim is a block to parse in the filling gen.
type claim struct {
	w   *work
	gen int64
}

func (c claim) take() bool { return c.w.state.CompareAndSwap(c.gen<<1, c.gen<<1|1) }

// parse parses the task events of the block's lines.
func (w *work) parse(s *jsonscan.Scanner, max int64) {
	c := w.b.Lines(max)
	w.lines = w.lines[:0]
	n := 0
	for l, ok := c.Next(); ok; l, ok = c.Next() {
		pl := parsedLine{Line: l, start: c.Offset(), end: c.End(), task: -1}
		if !l.TooLong {
			if n == len(w.tasks) {
				w.tasks = append(w.tasks, taskLine{})
			}
			if parseTaskLine(s, l.Bytes, &w.tasks[n]) {
				pl.task = n
				n++
			}
		}
		w.lines = append(w.lines, pl)
	}
	w.count = c.Lines()
}

// feedParallel is feedBlocks spread over goroutines.
func (d *Decoder) feedParallel(f *feeding, p *Parallel) error {
	max := f.br.Max()
	k := p.blocks()
	free := make(chan *work, k)
	for range k {
		free <- &work{parsed: make(chan struct{}, 1)}
	}
	ordered := make(chan *work, k)
	todo := make(chan claim, k)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1 + p.Workers)
	go func() { // the reader
		defer wg.Done()
		defer close(todo)
		defer close(ordered)
		for {
			var w *work
			select {
			case w = <-free:
			case <-quit:
				return
			}
			w.gen++
			w.err = f.br.Next(&w.b)
			w.state.Store(w.gen << 1)
			ordered <- w
			if w.err != nil {
				return
			}
			todo <- claim{w, w.gen}
		}
	}()
	for range p.Workers {
		go func() {
			defer wg.Done()
			var s jsonscan.Scanner
			for c := range todo {
				if p.Acquire != nil && !p.Acquire() {
					continue
				}
				if c.take() {
					c.w.parse(&s, max)
					c.w.parsed <- struct{}{}
				}
				if p.Release != nil {
					p.Release()
				}
			}
		}()
	}
	var cur *work
	defer func() {
		close(quit)
		if cur != nil {
			f.br.Release(&cur.b)
		}
		for w := range ordered {
			f.br.Release(&w.b)
		}
		wg.Wait()
	}()
	var s jsonscan.Scanner // for the blocks parsed while waiting
	help := todo
	for cur = range ordered {
		w := cur
		if w.err != nil {
			return d.ended(f, w.err)
		}
		if (claim{w, w.gen}).take() {
			c := w.b.Lines(max)
			d.decodeBlock(f, &c)
		} else {
			// Parse the blocks after it until its worker is done.
		wait:
			for {
				select {
				case <-w.parsed:
					break wait
				case c, ok := <-help:
					if !ok {
						help = nil
					} else if c.take() {
						c.w.parse(&s, max)
						c.w.parsed <- struct{}{}
					}
				}
			}
			d.applyBlock(f, w)
		}
		f.br.Release(&w.b)
		cur = nil
		if f.stopped {
			return nil
		}
		free <- w
	}
	return nil // not reached: the reader ends with an error or io.EOF
}

// applyBlock applies a parsed block's lines.
func (d *Decoder) applyBlock(f *feeding, w *work) {
	max := f.br.Max()
	for i := range w.lines {
		pl := &w.lines[i]
		if f.stop(pl.Line, pl.start) {
			return
		}
		d.line = f.first + f.base + pl.Number
		if pl.task >= 0 {
			d.applyTaskLine(&w.tasks[pl.task])
		} else {
			d.decodeRead(pl.Line, max)
		}
		f.consumed = pl.end
	}
	f.base += w.count
}
