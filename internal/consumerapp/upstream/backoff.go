package upstream

import (
	"net/http"
	"strconv"
	"time"
)

// The contract's retry strategy (§7, 4): exponential backoff from 500 ms, capped at 8 s, at
// most 4 retries, plus a random jitter of up to 30 % of the current delay.
const (
	BaseDelay  = 500 * time.Millisecond
	MaxDelay   = 8 * time.Second
	MaxRetries = 4
	jitterMax  = 0.30
)

// maxRetryAfter bounds how long one 429 is waited out before the user hears "busy": a person
// is watching the page.
const maxRetryAfter = 10 * time.Second

// Backoff is the delay before retry number n (0-based) after a 5xx or transport failure.
// frac in [0, 1) draws the jitter.
func Backoff(n int, frac float64) time.Duration {
	d := BaseDelay << n
	if d > MaxDelay || d <= 0 {
		d = MaxDelay
	}
	return d + time.Duration(float64(d)*jitterMax*frac)
}

// Decision is what to do after one attempt.
type Decision struct {
	Retry bool
	Wait  time.Duration
}

// Decide applies the contract to one attempt's outcome: status 0 means the request failed in
// transport. n is the number of retries already made; frac draws the jitter.
func Decide(status int, retryAfter string, n int, frac float64) Decision {
	if n >= MaxRetries {
		return Decision{}
	}
	switch {
	case status == http.StatusTooManyRequests:
		secs, err := strconv.Atoi(retryAfter)
		wait := time.Duration(secs) * time.Second
		if err != nil || secs < 0 || wait > maxRetryAfter {
			return Decision{}
		}
		return Decision{Retry: true, Wait: wait}
	case status == 0, status >= 500:
		return Decision{Retry: true, Wait: Backoff(n, frac)}
	}
	return Decision{}
}
