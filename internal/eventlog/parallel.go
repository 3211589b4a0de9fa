package eventlog

import (
	"sync"
	"time"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/lines"
)

// Parallel decodes one stream on several cores. Each worker goroutine
// reads (and decompresses) the stream's next block of whole lines, one
// reader at a time, and parses its task events, nearly all of a log's
// bytes, into records (parseTaskLine, a pure function of the line) on the
// core that read it, while the block is still in that core's cache. The
// decoding goroutine applies the blocks in order, decoding every other
// event itself; while it waits for a block it reads and parses one after
// it, and when no block was read ahead it reads the next one and decodes
// it as the sequential decoder does. The model is the one the sequential
// decoder builds, bit for bit (TestParallelEqualsSequential).
type Parallel struct {
	// Workers is how many goroutines read and parse blocks beside the
	// decoding one.
	Workers int
	// Acquire, when set, is asked before a worker reads a block: false
	// leaves the blocks to the decoding goroutine until it applied one
	// more (the cores are busy with other logs). Release follows every
	// true.
	Acquire func() bool
	Release func()
}

// blocks is how many blocks are in flight at most, beside the one the
// decoding goroutine decodes itself.
func (p *Parallel) blocks() int { return 2*p.Workers + 2 }

// Memory is the most a parallel read holds beside the line limit: its
// blocks, with their lines' records (about half a block's bytes at most
// for real logs, whose task lines are kilobytes long).
func (p *Parallel) Memory() int64 { return int64(p.blocks()+1) * lines.DefaultBlock * 3 / 2 }

// work is one block on its way: read and parsed by one goroutine, applied
// by the decoding one, recycled.
type work struct {
	b      lines.Block
	err    error         // the stream's end or failure, after the blocks before it
	parsed chan struct{} // signalled once the block is parsed (or err set)
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

// pipeline is the shared state of a parallel feed: the stream, read by
// one goroutine at a time (mu), and the blocks read ahead in order.
type pipeline struct {
	br      *lines.BlockReader
	mu      sync.Mutex // held while reading; a block is sent to ordered under it
	eof     bool       // the stream ended or failed (under mu)
	free    chan *work
	ordered chan *work    // blocks read ahead, in stream order
	applied chan struct{} // a block was applied (wakes refused workers)
	quit    chan struct{}
}

// readAhead reads the next block into w and queues it, mu held; false
// when the stream already ended.
func (p *pipeline) readAhead(w *work) bool {
	if p.eof {
		return false
	}
	w.err = p.br.Next(&w.b)
	p.eof = w.err != nil
	p.ordered <- w
	return true
}

// parse parses w, unless it holds the stream's end, and signals it.
func (p *pipeline) parse(w *work, s *jsonscan.Scanner) {
	if w.err == nil {
		w.parse(s, p.br.Max())
	}
	w.parsed <- struct{}{}
}

// worker reads and parses blocks until the stream ends or the feed quits.
func (p *pipeline) worker(acquire func() bool, release func()) {
	var s jsonscan.Scanner
	for {
		select {
		case <-p.quit: // before a free block, which may be ready too
			return
		default:
		}
		w, ok := poll(p.free)
		if !ok {
			select {
			case w = <-p.free:
			case <-p.quit:
				return
			}
		}
		if acquire != nil && !acquire() {
			p.free <- w
			select {
			case <-p.applied:
				continue
			case <-p.quit:
				return
			}
		}
		lock(&p.mu)
		ok = p.readAhead(w)
		p.mu.Unlock()
		if ok {
			p.parse(w, &s)
		} else {
			p.free <- w
		}
		if release != nil {
			release()
		}
		if !ok {
			return
		}
	}
}

// help reads and parses a block ahead on the decoding goroutine, unless
// another goroutine is reading, or reading could wait for a block the
// decoding goroutine has yet to apply (a line longer than a block). It
// reports whether it did.
func (p *pipeline) help(s *jsonscan.Scanner) bool {
	var w *work
	select {
	case w = <-p.free:
	default:
		return false
	}
	if !p.mu.TryLock() {
		p.free <- w
		return false
	}
	ok := !p.br.Waits() && p.readAhead(w)
	p.mu.Unlock()
	if !ok {
		p.free <- w
		return false
	}
	p.parse(w, s)
	return true
}

// feedParallel is feedBlocks spread over goroutines.
func (d *Decoder) feedParallel(f *feeding, par *Parallel) error {
	k := par.blocks()
	p := &pipeline{br: f.br, free: make(chan *work, k), ordered: make(chan *work, k),
		applied: make(chan struct{}, 1), quit: make(chan struct{})}
	for range k {
		p.free <- &work{parsed: make(chan struct{}, 1)}
	}
	var wg sync.WaitGroup
	for range par.Workers {
		wg.Go(func() { p.worker(par.Acquire, par.Release) })
	}
	defer p.stop(&wg)
	var own lines.Block    // the blocks the decoding goroutine decodes itself
	var s jsonscan.Scanner // for the blocks it parses while waiting
	for {
		var w *work
		select {
		case w = <-p.ordered:
		default:
			// Nothing read ahead: read the next block here, unless a
			// worker is reading (the next block, or one after a block
			// it queued since; it may wait in Next for that block's
			// Release, so the lock is not waited for).
			if !p.mu.TryLock() {
				var ok bool
				if w, ok = poll(p.ordered); !ok {
					w = <-p.ordered
				}
				break
			}
			select {
			case w = <-p.ordered:
				p.mu.Unlock()
			default:
				err := f.br.Next(&own)
				p.eof = p.eof || err != nil
				p.mu.Unlock()
				if err != nil {
					return d.ended(f, err)
				}
				c := own.Lines(f.br.Max())
				d.decodeBlock(f, &c)
				f.br.Release(&own)
			}
		}
		if w != nil {
			for waiting := true; waiting; {
				select {
				case <-w.parsed:
					waiting = false
				default:
					if !p.help(&s) {
						if _, ok := poll(w.parsed); !ok {
							<-w.parsed
						}
						waiting = false
					}
				}
			}
			if w.err != nil {
				p.free <- w
				return d.ended(f, w.err)
			}
			d.applyBlock(f, w)
			f.br.Release(&w.b)
			p.free <- w
		}
		if f.stopped {
			return nil
		}
		select {
		case p.applied <- struct{}{}:
		default:
		}
	}
}

// spinFor is how long a goroutine of a parallel read polls for what it
// waits for (a free block, the read lock, a block parsed) before it parks.
// The waits are a fraction of a block's parse, but a parked goroutine's
// thread sleeps, and on a busy machine the kernel takes up to milliseconds
// to run it again, while the goroutine it waits for runs on (measured in
// docs/PERFORMANCE.md).
const spinFor = 200 * time.Microsecond

// poll receives from c if a value comes within spinFor.
func poll[T any](c chan T) (T, bool) {
	for end := time.Now().Add(spinFor); ; {
		for range 32 {
			select {
			case v := <-c:
				return v, true
			default:
			}
		}
		if time.Now().After(end) {
			var none T
			return none, false
		}
	}
}

// lock locks mu, polling it for spinFor before it waits.
func lock(mu *sync.Mutex) {
	for end := time.Now().Add(spinFor); !mu.TryLock(); {
		if time.Now().After(end) {
			mu.Lock()
			return
		}
	}
}

// stop ends the workers and releases the blocks read ahead, once parsed.
func (p *pipeline) stop(wg *sync.WaitGroup) {
	close(p.quit)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for {
		select {
		case w := <-p.ordered:
			<-w.parsed
			p.br.Release(&w.b)
		case <-done:
			for {
				select {
				case w := <-p.ordered:
					<-w.parsed
					p.br.Release(&w.b)
				default:
					return
				}
			}
		}
	}
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
