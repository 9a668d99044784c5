// Package web holds the consumer app's page: hand-written HTML, CSS and ES modules embedded
// in the binary, so running the app needs neither Node nor a network.
package web

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed static
var static embed.FS

// Handler serves the page and its modules. They change with the binary, so browsers
// revalidate them on each load instead of running a stale script against a newer /api.
func Handler() http.Handler {
	sub, _ := fs.Sub(static, "static")
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}

// Page serves the page itself at any of its addresses (an order's /order/{id}): the page
// reads its address and shows what it names, so a reload or a shared link lands there.
func Page() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		http.ServeFileFS(w, r, static, "static/index.html")
	})
}
