package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
)

const apiURL = "http://api.github.localhost/"

// label is a label as the API shows it.
type label struct {
	ID          int     `json:"id"`
	NodeID      string  `json:"node_id"`
	URL         string  `json:"url"`
	Name        string  `json:"name"`
	Color       string  `json:"color"`
	Default     bool    `json:"default"`
	Description *string `json:"description"`
}

// defaults are the labels a new repository has.
var defaults = []struct{ name, color, description string }{
	{"bug", "d73a4a", "Something isn't working"},
	{"documentation", "0075ca", "Improvements or additions to documentation"},
	{"duplicate", "cfd3d7", "This issue or pull request already exists"},
	{"enhancement", "a2eeef", "New feature or request"},
	{"good first issue", "7057ff", "Good for newcomers"},
	{"help wanted", "008672", "Extra attention is needed"},
	{"invalid", "e4e669", "This doesn't seem right"},
	{"question", "d876e3", "Further information is requested"},
	{"wontfix", "ffffff", "This will not be worked on"},
}

// api is the fake's state: the labels of each repository it was asked about.
type api struct {
	mu     sync.Mutex
	repos  map[string][]*label // "owner/repo" → labels, in creation order
	nextID int
}

func newAPI() *api { return &api{repos: map[string][]*label{}, nextID: 1000} }

var labelsPath = regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/labels(?:/([^/]+))?$`)

func (a *api) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m := labelsPath.FindStringSubmatch(r.URL.EscapedPath())
	if m == nil {
		notFound(w, "https://docs.github.com/rest")
		return
	}
	owner, repo := unescape(m[1]), unescape(m[2])
	a.mu.Lock()
	defer a.mu.Unlock()
	labels := a.labels(owner, repo)
	if m[3] == "" {
		switch r.Method {
		case http.MethodGet:
			writeJSON(w, http.StatusOK, labels)
		case http.MethodPost:
			a.create(w, r, owner, repo)
		default:
			http.Error(w, "", http.StatusMethodNotAllowed)
		}
		return
	}
	name := unescape(m[3])
	i := find(labels, name)
	if i < 0 {
		notFound(w, "https://docs.github.com/rest/reference/issues#get-a-label")
		return
	}
	switch r.Method {
	case http.MethodGet:
		writeJSON(w, http.StatusOK, labels[i])
	case http.MethodPatch:
		a.update(w, r, owner, repo, labels[i])
	case http.MethodDelete:
		a.repos[owner+"/"+repo] = append(labels[:i:i], labels[i+1:]...)
		w.WriteHeader(http.StatusNoContent)
	default:
		http.Error(w, "", http.StatusMethodNotAllowed)
	}
}

// labels returns a repository's labels, the defaults for a new one.
func (a *api) labels(owner, repo string) []*label {
	key := owner + "/" + repo
	if _, ok := a.repos[key]; !ok {
		for _, d := range defaults {
			l := a.newLabel(owner, repo, d.name, d.color)
			l.Default, l.Description = true, &d.description
			a.repos[key] = append(a.repos[key], l)
		}
	}
	return a.repos[key]
}

func (a *api) newLabel(owner, repo, name, color string) *label {
	l := &label{ID: a.nextID, NodeID: "MDA6RW50aXR5MQ==", Name: name, Color: color}
	a.nextID++
	l.URL = labelURL(owner, repo, name)
	return l
}

func labelURL(owner, repo, name string) string {
	return apiURL + "repos/" + url.PathEscape(owner) + "/" + url.PathEscape(repo) + "/labels/" + url.PathEscape(name)
}

func (a *api) create(w http.ResponseWriter, r *http.Request, owner, repo string) {
	var in struct {
		Name        string  `json:"name"`
		Color       string  `json:"color"`
		Description *string `json:"description"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.Name == "" {
		invalid(w, "name", "missing_field")
		return
	}
	if !validColor(in.Color) {
		invalid(w, "color", "invalid")
		return
	}
	if find(a.repos[owner+"/"+repo], in.Name) >= 0 {
		invalid(w, "name", "already_exists")
		return
	}
	l := a.newLabel(owner, repo, in.Name, in.Color)
	l.Description = in.Description
	a.repos[owner+"/"+repo] = append(a.repos[owner+"/"+repo], l)
	writeJSON(w, http.StatusCreated, l)
}

func (a *api) update(w http.ResponseWriter, r *http.Request, owner, repo string, l *label) {
	var in struct {
		NewName     string  `json:"new_name"`
		Color       string  `json:"color"`
		Description *string `json:"description"`
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil {
		invalid(w, "body", "invalid")
		return
	}
	if in.Color != "" && !validColor(in.Color) {
		invalid(w, "color", "invalid")
		return
	}
	if in.NewName != "" {
		l.Name, l.URL = in.NewName, labelURL(owner, repo, in.NewName)
	}
	if in.Color != "" {
		l.Color = in.Color
	}
	if in.Description != nil {
		l.Description = in.Description
	}
	writeJSON(w, http.StatusOK, l)
}

var colorRe = regexp.MustCompile(`^[0-9a-fA-F]{6}$`)

func validColor(c string) bool { return colorRe.MatchString(c) }

func find(labels []*label, name string) int {
	for i, l := range labels {
		if strings.EqualFold(l.Name, name) {
			return i
		}
	}
	return -1
}

func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func notFound(w http.ResponseWriter, doc string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte(`{"message":"Not Found","documentation_url":"` + doc + `"}`))
}

// invalid answers 422 as GitHub does for a field it refuses.
func invalid(w http.ResponseWriter, field, code string) {
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{
		"message":           "Validation Failed",
		"errors":            []any{map[string]string{"resource": "Label", "code": code, "field": field}},
		"documentation_url": "https://docs.github.com/rest/reference/issues#create-a-label",
	})
}
