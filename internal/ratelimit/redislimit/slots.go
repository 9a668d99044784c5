package redislimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/swaprouter/swaprouter/internal/streamslots"
)

// slotsPrefix namespaces the stream slot sets: one sorted set per key, members the held
// slots, scores when their lease ends (Unix ms).
const slotsPrefix = "swaprouter:streams:"

// slotLease is how long a slot outlives a replica that died holding it; holders renew it
// every third of that.
const slotLease = 30 * time.Second

// acquireScript drops expired leases, then takes a slot when fewer than the limit are held.
// KEYS[1] the set; ARGV now (ms), limit, lease end (ms), member, set TTL (ms).
var acquireScript = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1`)

// Slots is a streamslots.Slots shared by every replica through Redis, with leases so a dead
// replica's slots come free. While Redis fails, slots are counted by fallback (per replica).
type Slots struct {
	rdb      *redis.Client
	fallback streamslots.Slots
	log      logr.Logger
	now      func() time.Time
	renew    time.Duration
	// fallbacks counts the acquisitions fallback decided.
	fallbacks prometheus.Counter
}

var _ streamslots.Slots = (*Slots)(nil)

// NewSlots connects (lazily) to the Redis at url, as New does.
func NewSlots(url string, fallback streamslots.Slots, log logr.Logger, reg prometheus.Registerer) (*Slots, error) {
	rdb, err := connect(url)
	if err != nil {
		return nil, err
	}
	return &Slots{rdb: rdb, fallback: fallback, log: log, now: time.Now, renew: slotLease / 3, fallbacks: newFallbacks(reg)}, nil
}

// Close releases the connections.
func (s *Slots) Close() error { return s.rdb.Close() }

// Acquire takes one of key's limit slots across replicas and keeps its lease alive until
// release.
func (s *Slots) Acquire(ctx context.Context, key string, limit int) (func(), bool) {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	member, set := hex.EncodeToString(b), slotsPrefix+key
	now := s.now()
	took, err := acquireScript.Run(ctx, s.rdb, []string{set},
		now.UnixMilli(), limit, now.Add(slotLease).UnixMilli(), member, (2 * slotLease).Milliseconds()).Int()
	if err != nil {
		s.fallbacks.Inc()
		s.log.Info("warning: Redis unavailable, event stream caps are per replica", "error", err.Error())
		return s.fallback.Acquire(ctx, key, limit)
	}
	if took == 0 {
		return nil, false
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { s.keep(set, member, stop) })
	var once sync.Once
	return func() {
		once.Do(func() {
			close(stop)
			wg.Wait()
			ctx, cancel := context.WithTimeout(context.Background(), defaultIOTimeout)
			defer cancel()
			_ = s.rdb.ZRem(ctx, set, member).Err() // left behind, the lease ends it
		})
	}, true
}

// keep renews member's lease until stop.
func (s *Slots) keep(set, member string, stop chan struct{}) {
	t := time.NewTicker(s.renew)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), defaultIOTimeout)
			err := s.rdb.ZAddXX(ctx, set, redis.Z{Score: float64(s.now().Add(slotLease).UnixMilli()), Member: member}).Err()
			_ = s.rdb.PExpire(ctx, set, 2*slotLease).Err()
			cancel()
			if err != nil {
				s.log.V(1).Info("renewing an event stream slot failed; the next renewal retries", "error", err.Error())
			}
		}
	}
}
