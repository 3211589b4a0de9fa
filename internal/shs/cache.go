package shs

import (
	"container/list"
	"sync"
	"sync/atomic"

	"github.com/clusterlens/clusterlens/internal/model"
)

// answerCacheBytes bounds the encoded answers a server keeps: the answers
// of a few hundred large applications' pages.
const answerCacheBytes = 256 << 20

// cache is what successive indexes of one server share (Index.With): the
// aggregates of each attempt and the encoded answers about it, most
// recently used first, kept while the attempt is listed.
type cache struct {
	mu      sync.Mutex
	views   map[*model.App]*appView
	answers map[answerKey]*list.Element // of *answer
	lru     list.List
	bytes   int
	// clockReads counts the clock's readings: an answer computed while it
	// did not move read no clock and is cached.
	clockReads atomic.Int64
}

// answerKey is an attempt and a request about it (path and sorted query).
type answerKey struct {
	app *model.App
	req string
}

type answer struct {
	key  answerKey
	body []byte
}

func newCache() *cache {
	return &cache{views: map[*model.App]*appView{}, answers: map[answerKey]*list.Element{}}
}

// keep drops what the cache holds about attempts not in apps and returns it.
func (c *cache) keep(apps []*model.App) *cache {
	keep := make(map[*model.App]bool, len(apps))
	for _, a := range apps {
		keep[a] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for a := range c.views {
		if !keep[a] {
			delete(c.views, a)
		}
	}
	for k, el := range c.answers {
		if !keep[k.app] {
			c.drop(el)
		}
	}
	return c
}

// answer returns the cached answer to k.
func (c *cache) answer(k answerKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.answers[k]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*answer).body, true
}

// store caches body as the answer to k, dropping the least recently used
// answers beyond the budget.
func (c *cache) store(k answerKey, body []byte) {
	if len(body) > answerCacheBytes/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.answers[k]; ok {
		return
	}
	c.answers[k] = c.lru.PushFront(&answer{k, body})
	c.bytes += len(body)
	for c.bytes > answerCacheBytes {
		c.drop(c.lru.Back())
	}
}

// drop removes a cached answer; c.mu is held.
func (c *cache) drop(el *list.Element) {
	a := c.lru.Remove(el).(*answer)
	delete(c.answers, a.key)
	c.bytes -= len(a.body)
}
