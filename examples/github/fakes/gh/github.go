package main

import (
	"fmt"
	"net/http"
)

// The GitHub the fake answers for: the organization and repositories of
// @octokit/fixtures (octokit-fixture-org), as their recorded responses show
// them, reduced to the fields the example's call shapes read.

const org = "octokit-fixture-org"

type object = map[string]any

var repository = object{"id": 1000, "name": "hello-world", "full_name": org + "/hello-world", "private": false,
	"default_branch": "master", "owner": object{"login": org, "id": 1000, "type": "Organization"}}

var organization = object{"login": org, "id": 1000, "type": "Organization", "public_repos": 42}

// issues of octokit-fixture-org/paginate-issues, newest first.
func issues() []any {
	var out []any
	for n := 13; n >= 1; n-- {
		out = append(out, object{"id": 1000 + 13 - n, "number": n, "title": fmt.Sprintf("Test issue %d", n), "state": "open"})
	}
	return out
}

var searchResults = object{"total_count": 2, "incomplete_results": false, "items": []any{
	object{"id": 1000, "number": 1, "title": "Sesame seeds split without a pop!"},
	object{"id": 1001, "number": 2, "title": "The doors don’t open"},
}}

// apiError is an error response of the API.
type apiError struct {
	status int
	body   string
}

// route answers one API request: the JSON document, or an error.
func route(method, path string, fields map[string]string) (any, *apiError) {
	switch {
	case method == "GET" && path == "repos/"+org+"/hello-world":
		return repository, nil
	case method == "GET" && path == "orgs/"+org:
		return organization, nil
	case method == "GET" && path == "repos/"+org+"/paginate-issues/issues":
		return issues(), nil
	case method == "GET" && path == "search/issues" && fields["q"] == "sesame repo:"+org+"/search-issues":
		return searchResults, nil
	case method == "POST" && path == "repos/"+org+"/errors/labels" && fields["color"] == "invalid":
		return nil, &apiError{http.StatusUnprocessableEntity, `{"message":"Validation Failed","errors":[{"resource":"Label","code":"invalid","field":"color"}],` +
			`"documentation_url":"https://docs.github.com/rest/reference/issues#create-a-label"}`}
	}
	return nil, &apiError{http.StatusNotFound, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`}
}
