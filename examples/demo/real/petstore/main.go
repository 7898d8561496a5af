// Command petstore is the demo's "real" pet store service: the reference
// whose recorded behaviour the fake (../../fakes/petstore) must match. It
// stands in for a third-party API so that the demo needs no network and no
// credentials; it requires the header "Authorization: Bearer $PETSTORE_TOKEN"
// like a real API would. It listens on 127.0.0.1:$PORT.
package main

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

type pet struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Tag       string    `json:"tag,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8081"
	}
	token := os.Getenv("PETSTORE_TOKEN")
	var (
		mu   sync.Mutex
		pets []pet
		reqs int
	)
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter, code int, v any) {
		mu.Lock()
		reqs++
		n := reqs
		mu.Unlock()
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("X-Request-Id", newID())
		h.Set("X-RateLimit-Remaining", fmt.Sprint(5000-n))
		h.Set("ETag", fmt.Sprintf(`"%x"`, time.Now().UnixNano()))
		w.WriteHeader(code)
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(v)
	}
	auth := func(next http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
				reply(w, http.StatusUnauthorized, map[string]string{"error": "bad credentials"})
				return
			}
			next(w, r)
		}
	}
	mux.HandleFunc("GET /v1/pets", auth(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		list := append([]pet{}, pets...)
		mu.Unlock()
		reply(w, http.StatusOK, map[string]any{"pets": list, "count": len(list)})
	}))
	mux.HandleFunc("POST /v1/pets", auth(func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Name, Tag string }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Name == "" {
			reply(w, http.StatusBadRequest, map[string]string{"error": "name is required"})
			return
		}
		p := pet{ID: newID(), Name: in.Name, Tag: in.Tag, CreatedAt: time.Now().UTC().Truncate(time.Second)}
		mu.Lock()
		pets = append(pets, p)
		mu.Unlock()
		w.Header().Set("Location", "/v1/pets/"+p.ID)
		reply(w, http.StatusCreated, p)
	}))
	mux.HandleFunc("GET /v1/pets/{id}", auth(func(w http.ResponseWriter, r *http.Request) {
		var found *pet
		mu.Lock()
		for _, p := range pets {
			if p.ID == r.PathValue("id") {
				found = &p
			}
		}
		mu.Unlock()
		if found != nil {
			reply(w, http.StatusOK, found)
			return
		}
		reply(w, http.StatusNotFound, map[string]string{"error": "no such pet"})
	}))
	l, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("real petstore listening on %s", l.Addr())
	log.Fatal(http.Serve(l, mux))
}

func newID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
