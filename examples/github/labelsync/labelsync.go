// Command labelsync makes a GitHub repository's labels match a list: it
// creates the missing ones, recolours the ones whose colour differs and,
// with -prune, deletes the others. It is a Go client of GitHub's REST API
// and the code under test of the github example: its tests run against
// the fake GitHub API (behind `cassette observe`'s proxy, or one the tests
// start), and `cassette coverage` checks that every API call it makes is
// backed by a cassette recorded from the recording of GitHub (@octokit/fixtures).
//
//	GITHUB_TOKEN=… labelsync [-api https://api.github.com] [-prune] owner/repo < labels.txt
//
// labels.txt holds one label a line: "name color" (the colour as six hex
// digits; the name may hold spaces).
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
)

func main() {
	api := flag.String("api", "https://api.github.com", "the API's base URL")
	prune := flag.Bool("prune", false, "delete the labels the list does not name")
	flag.Parse()
	owner, repo, ok := strings.Cut(flag.Arg(0), "/")
	if flag.NArg() != 1 || !ok {
		fmt.Fprintln(os.Stderr, "usage: labelsync [-api URL] [-prune] owner/repo < labels.txt")
		os.Exit(2)
	}
	want, err := ParseList(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "labelsync:", err)
		os.Exit(2)
	}
	c := &Client{BaseURL: *api, Token: os.Getenv("GITHUB_TOKEN"), HTTP: http.DefaultClient}
	changes, err := c.Sync(context.Background(), owner, repo, want, *prune)
	for _, ch := range changes {
		fmt.Println(ch)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "labelsync:", err)
		os.Exit(1)
	}
}

// Label is a repository label.
type Label struct {
	Name        string `json:"name"`
	Color       string `json:"color"`
	Description string `json:"description,omitempty"`
}

// ParseList reads "name color" lines; blank lines and # comments are skipped.
func ParseList(r io.Reader) ([]Label, error) {
	var out []Label
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			return nil, fmt.Errorf("line %d: %q: want a name and a colour", n, line)
		}
		out = append(out, Label{Name: strings.TrimSpace(line[:i]), Color: strings.TrimPrefix(line[i+1:], "#")})
	}
	return out, sc.Err()
}

// Client calls GitHub's REST API.
type Client struct {
	BaseURL string
	Token   string
	HTTP    *http.Client
}

// APIError is an answer of the API that is not a success.
type APIError struct {
	Status  int
	Message string
	Errors  []struct{ Resource, Field, Code string }
}

func (e *APIError) Error() string {
	msg := fmt.Sprintf("%d %s", e.Status, e.Message)
	for _, d := range e.Errors {
		msg += fmt.Sprintf(" (%s %s: %s)", d.Resource, d.Field, d.Code)
	}
	return msg
}

// NotFound reports whether err is the API's 404.
func NotFound(err error) bool {
	var e *APIError
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}

func (c *Client) labelsURL(owner, repo string, name ...string) string {
	u := strings.TrimSuffix(c.BaseURL, "/") + "/repos/" + url.PathEscape(owner) + "/" + url.PathEscape(repo) + "/labels"
	if len(name) > 0 {
		u += "/" + url.PathEscape(name[0])
	}
	return u
}

// List returns a repository's labels (its first page: up to 30).
func (c *Client) List(ctx context.Context, owner, repo string) ([]Label, error) {
	var out []Label
	return out, c.do(ctx, http.MethodGet, c.labelsURL(owner, repo), nil, &out)
}

// Get returns one label.
func (c *Client) Get(ctx context.Context, owner, repo, name string) (*Label, error) {
	var out Label
	return &out, c.do(ctx, http.MethodGet, c.labelsURL(owner, repo, name), nil, &out)
}

// Create creates a label.
func (c *Client) Create(ctx context.Context, owner, repo string, l Label) (*Label, error) {
	var out Label
	return &out, c.do(ctx, http.MethodPost, c.labelsURL(owner, repo), l, &out)
}

// Update gives the label name the name and colour of l.
func (c *Client) Update(ctx context.Context, owner, repo, name string, l Label) (*Label, error) {
	in := struct {
		NewName     string `json:"new_name"`
		Color       string `json:"color"`
		Description string `json:"description,omitempty"`
	}{l.Name, l.Color, l.Description}
	var out Label
	return &out, c.do(ctx, http.MethodPatch, c.labelsURL(owner, repo, name), in, &out)
}

// Delete deletes a label.
func (c *Client) Delete(ctx context.Context, owner, repo, name string) error {
	return c.do(ctx, http.MethodDelete, c.labelsURL(owner, repo, name), nil, nil)
}

// Sync makes the repository's labels match want and returns what it
// changed, one line each.
func (c *Client) Sync(ctx context.Context, owner, repo string, want []Label, prune bool) ([]string, error) {
	have, err := c.List(ctx, owner, repo)
	if err != nil {
		return nil, err
	}
	byName := map[string]Label{}
	for _, l := range have {
		byName[strings.ToLower(l.Name)] = l
	}
	var changes []string
	wanted := map[string]bool{}
	for _, w := range want {
		wanted[strings.ToLower(w.Name)] = true
		h, ok := byName[strings.ToLower(w.Name)]
		switch {
		case !ok:
			if _, err := c.Create(ctx, owner, repo, w); err != nil {
				return changes, fmt.Errorf("creating %q: %w", w.Name, err)
			}
			changes = append(changes, "created "+w.Name)
		case !strings.EqualFold(h.Color, w.Color):
			if _, err := c.Update(ctx, owner, repo, h.Name, w); err != nil {
				return changes, fmt.Errorf("updating %q: %w", w.Name, err)
			}
			changes = append(changes, fmt.Sprintf("recoloured %s %s → %s", w.Name, h.Color, w.Color))
		}
	}
	if prune {
		for _, h := range have {
			if !wanted[strings.ToLower(h.Name)] {
				if err := c.Delete(ctx, owner, repo, h.Name); err != nil {
					return changes, fmt.Errorf("deleting %q: %w", h.Name, err)
				}
				changes = append(changes, "deleted "+h.Name)
			}
		}
	}
	return changes, nil
}

// do sends one request and decodes the answer into out (when not nil).
func (c *Client) do(ctx context.Context, method, u string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		e := &APIError{Status: resp.StatusCode}
		_ = json.Unmarshal(data, e)
		return e
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	return json.Unmarshal(data, out)
}
