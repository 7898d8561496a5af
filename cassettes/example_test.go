package cassettes_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cassette-dev/cassette/cassettes"
	"github.com/cassette-dev/cassette/internal/cfgschema"
)

// A cassette is written atomically and read back strictly; an HTTP
// cassette is a go-vcr `version: 2` file with cassette's metadata.
func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "cassettes", "petstore", "list-pets.yaml")
	c := &cassettes.Cassette{Cassette: cassettes.SchemaVersion, Version: cassettes.GoVCRVersion,
		Adapter: "petstore", Scenario: "list-pets", Kind: cfgschema.KindHTTP, Path: path,
		Interactions: []cassettes.Interaction{{
			Request:  cassettes.Request{Method: "GET", URL: "https://pets.example.com/v1/pets"},
			Response: cassettes.Response{Code: 200, Status: "200 OK", Body: `[{"name":"rex"}]`},
		}}}
	if err := cassettes.Save(c, cassettes.SaveOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	got, err := cassettes.Load(path, cassettes.LoadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	in := got.Interactions[0]
	fmt.Println(got.ID(), got.Kind, in.Request.Method, in.Request.URL, in.Response.Code, in.Response.Body)
	// Output: petstore/list-pets http GET https://pets.example.com/v1/pets 200 [{"name":"rex"}]
}
