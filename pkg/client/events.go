package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/swaprouter/swaprouter/pkg/webhooks"
)

// OrderEvent is one event of GET /v1/events.
type OrderEvent struct {
	// ID is the stream position after this event: give it back as After (or Last-Event-ID)
	// to resume right after it.
	ID string
	// Event is the webhook payload, with the webhook's evt_ id.
	Event webhooks.Event
}

// StreamError is an answer other than 200 to opening the stream.
type StreamError struct {
	Status int
	// Body is the API's error (Body.Error is its code).
	Body Error
	// RetryAfter is the Retry-After of a 429.
	RetryAfter time.Duration
}

func (e *StreamError) Error() string {
	detail := ""
	if e.Body.Detail != nil {
		detail = ": " + *e.Body.Detail
	}
	return fmt.Sprintf("GET /v1/events: %d %s%s", e.Status, e.Body.Error, detail)
}

// EventStream reads GET /v1/events and resumes after the last event it returned when the
// connection breaks, so a caller sees every event once.
type EventStream struct {
	ctx     context.Context
	c       *Client
	params  StreamEventsParams
	editors []RequestEditorFn
	// Reconnect is the wait before reopening a broken stream (default 1s).
	Reconnect time.Duration

	body io.ReadCloser
	r    *bufio.Reader
	last string
}

// OpenEvents opens the stream (params.After resumes after that event id). The stream ends
// with ctx.
func (c *Client) OpenEvents(ctx context.Context, params StreamEventsParams, reqEditors ...RequestEditorFn) (*EventStream, error) {
	s := &EventStream{ctx: ctx, c: c, params: params, editors: reqEditors, Reconnect: time.Second}
	if params.After != nil {
		s.last = *params.After
	}
	if err := s.open(); err != nil {
		return nil, err
	}
	return s, nil
}

// LastID is the id of the last event Next returned (or the After it was opened with): where
// a later OpenEvents resumes.
func (s *EventStream) LastID() string { return s.last }

// Close ends the stream.
func (s *EventStream) Close() error {
	if s.body == nil {
		return nil
	}
	return s.body.Close()
}

// Next returns the next event. A connection that breaks is reopened after the last event;
// an answer other than 200 on reopening is returned as a *StreamError, and ctx's end as its
// error.
func (s *EventStream) Next() (OrderEvent, error) {
	for {
		ev, err := s.read()
		if err == nil {
			s.last = ev.ID
			return ev, nil
		}
		if s.ctx.Err() != nil {
			return OrderEvent{}, s.ctx.Err()
		}
		var malformed *malformedEvent
		if errors.As(err, &malformed) {
			return OrderEvent{}, err
		}
		_ = s.body.Close()
		select {
		case <-s.ctx.Done():
			return OrderEvent{}, s.ctx.Err()
		case <-time.After(s.Reconnect):
		}
		if err := s.open(); err != nil {
			return OrderEvent{}, err
		}
	}
}

func (s *EventStream) open() error {
	params := s.params
	params.After, params.LastEventID = nil, nil
	if s.last != "" {
		params.LastEventID = &s.last
	}
	resp, err := s.c.StreamEvents(s.ctx, &params, s.editors...)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		e := &StreamError{Status: resp.StatusCode}
		_ = json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&e.Body)
		if secs, err := time.ParseDuration(resp.Header.Get("Retry-After") + "s"); err == nil {
			e.RetryAfter = secs
		}
		return e
	}
	s.body, s.r = resp.Body, bufio.NewReader(resp.Body)
	return nil
}

type malformedEvent struct{ err error }

func (e *malformedEvent) Error() string { return "GET /v1/events: malformed event: " + e.err.Error() }

// read parses server-sent events up to the next order.status_changed; comments and other
// fields are skipped.
func (s *EventStream) read() (OrderEvent, error) {
	var id, event string
	var data strings.Builder
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			return OrderEvent{}, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if event == webhooks.EventType && data.Len() > 0 {
				var ev webhooks.Event
				if err := json.Unmarshal([]byte(data.String()), &ev); err != nil {
					return OrderEvent{}, &malformedEvent{err}
				}
				return OrderEvent{ID: id, Event: ev}, nil
			}
			event = ""
			data.Reset()
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			id = value
		case "event":
			event = value
		case "data":
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(value)
		}
	}
}
