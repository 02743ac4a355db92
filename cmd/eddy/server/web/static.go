package web

import (
	"bytes"
	"embed"
	"html"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// staticFiles are the web page: its HTML, CSS and JavaScript.
//
//go:embed static
var staticFiles embed.FS

// staticHandler serves the page: / is index.html with eddy's version in
// it, the other files as they are; anything else is 404.
func staticHandler(version string) http.Handler {
	files, err := fs.Sub(staticFiles, "static")
	if err != nil {
		panic(err) // the embedded directory exists: a broken build
	}
	index, err := fs.ReadFile(files, "index.html")
	if err != nil {
		panic(err)
	}
	index = bytes.ReplaceAll(index, []byte("{{VERSION}}"), []byte(html.EscapeString(version)))
	start := time.Now()
	fileServer := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The page is the binary's: a new binary serves a new page, so
		// browsers check back rather than keep an old one.
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		p := path.Clean("/" + r.URL.Path)
		if p == "/" || p == "/index.html" {
			w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'")
			http.ServeContent(w, r, "index.html", start, bytes.NewReader(index))
			return
		}
		if strings.HasSuffix(p, "/") {
			http.NotFound(w, r)
			return
		}
		fileServer.ServeHTTP(w, r)
	})
}
