// Package jsonbody writes JSON answers with their length. Without one, net/http sends an
// answer over 2 KiB in chunks (a quote with its candidates, a Relay quote), which costs both
// ends more and keeps the client from reading the body in one allocation.
package jsonbody

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
)

// Write sends v as application/json with status and a Content-Length. The bytes are what
// json.Encoder writes, trailing newline included. When v does not encode, the status goes out
// without a body, as with an Encoder writing to w, and the error is returned.
func Write(w http.ResponseWriter, status int, v any) error {
	buf := buffers.Get().(*bytes.Buffer)
	defer recycle(buf)
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		w.WriteHeader(status)
		return err
	}
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

// buffers are encoding buffers of finished answers; one grown past maxPooled (a rare large
// list) is left to the garbage collector.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooled = 256 << 10

func recycle(buf *bytes.Buffer) {
	if buf.Cap() > maxPooled {
		return
	}
	buf.Reset()
	buffers.Put(buf)
}
