// Package web holds the dashboard's presentation: html/template pages and
// static files embedded in the binary with go:embed (no build step, nothing
// from a CDN), the formatting of money, percentages and counts, and the
// charts drawn by internal/svgchart. It renders the typed records the
// dashboard's pages read through the REST routes; it reads nothing itself.
package web

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"sync"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Static serves the embedded CSS, script and icon under /static/; they are
// immutable per binary, so browsers may cache them for an hour.
func Static() http.Handler {
	sub, _ := fs.Sub(staticFS, "static")
	files := http.StripPrefix("/static/", http.FileServer(http.FS(sub)))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	})
}

var (
	parseOnce sync.Once
	pages     map[string]*template.Template
	parseErr  error
)

// parse builds one template set per page: the layout plus the page's file,
// each page defining "content".
func parse() {
	pages = map[string]*template.Template{}
	base, err := template.New("layout.html").Funcs(Funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		parseErr = err
		return
	}
	names, _ := fs.Glob(templateFS, "templates/*.html")
	for _, n := range names {
		name := strings.TrimSuffix(path.Base(n), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(templateFS, n)
		if err != nil {
			parseErr = fmt.Errorf("template %s: %w", name, err)
			return
		}
		pages[name] = t
	}
}

// Has reports whether a page template exists (tests check every page the
// handlers name).
func Has(name string) bool {
	parseOnce.Do(parse)
	return pages[name] != nil
}

// Render writes page name with data and status. It renders into a buffer
// first, so a template error is a clean 500 instead of half a page.
func Render(w http.ResponseWriter, status int, name string, data any) error {
	parseOnce.Do(parse)
	if parseErr != nil {
		return parseErr
	}
	t := pages[name]
	if t == nil {
		return fmt.Errorf("no page template %q", name)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", data); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	// Nothing but this origin's own files: no inline script or style, no
	// framing (clickjacking), forms post only here.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "+
		"form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	w.WriteHeader(status)
	_, err := buf.WriteTo(w)
	return err
}
