package web

import (
	"net/url"
	"strings"
)

// Page is what the layout reads on every page; Data is the page's own
// record.
type Page struct {
	Title string
	// Nav names the active navigation entry.
	Nav string
	// User is the signed-in e-mail; empty on the sign-in pages, which
	// then show no navigation.
	User      string
	Projects  []Project
	ProjectID string
	Project   string
	Role      string
	Range     string
	Ranges    []string
	// CSRF is the token every form posts back (csrf_token).
	CSRF  string
	Flash string
	Error string
	// CanEdit is EDIT_PROJECT (webhook, budget); CanManage is admin
	// (members, key rotation). Without them no settings action is shown.
	CanEdit, CanManage bool
	// Tag is the spend pages' tag filter, key=value ("": none), and
	// TagKeys the project's declared keys; TagFilter says the page's
	// reports take the filter, so the picker offers it.
	Tag       string
	TagKeys   []string
	TagFilter bool
	Data      any
}

// Project is one entry of the project picker.
type Project struct {
	ID, Name, Role string
	Selected       bool
}

// Href is path with the page's project and range, so every link keeps
// what the person picked.
func (p Page) Href(path string) string {
	q := url.Values{}
	if p.ProjectID != "" {
		q.Set("project", p.ProjectID)
	}
	if p.Range != "" {
		q.Set("range", p.Range)
	}
	if p.Tag != "" {
		q.Set("tag", p.Tag)
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// HrefWith is Href with the query parameter name set to value (replacing
// the page's own, such as its tag filter).
func (p Page) HrefWith(path, name, value string) string {
	base, query, _ := strings.Cut(p.Href(path), "?")
	q, _ := url.ParseQuery(query) // Href's own encoding: parses
	q.Set(name, value)
	return base + "?" + q.Encode()
}

// PathEscape escapes one path segment (an agent name, a trace id).
func (p Page) PathEscape(s string) string { return url.PathEscape(s) }
