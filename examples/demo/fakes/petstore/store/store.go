// Package store is the demo pet store's fake as an http.Handler, so that Go
// tests can verify it in process (cassettetest.VerifyHTTP) as well as
// through the command in the parent directory.
package store

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Pet is one pet.
type Pet struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Tag       string    `json:"tag,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Store is the fake's state.
type Store struct {
	mu   sync.Mutex
	pets []Pet
	mux  *http.ServeMux
}

// New returns an empty store with its routes.
func New() *Store {
	s := &Store{mux: http.NewServeMux()}
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok\n")) })
	s.mux.HandleFunc("GET /v1/pets", s.list)
	s.mux.HandleFunc("POST /v1/pets", s.create)
	s.mux.HandleFunc("GET /v1/pets/{id}", s.get)
	return s
}

func (s *Store) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Store) list(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"pets": append([]Pet{}, s.pets...), "count": len(s.pets)})
}

func (s *Store) create(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Name string `json:"name"`
		Tag  string `json:"tag"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Name == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "name is required"})
		return
	}
	p := Pet{ID: newID(), Name: in.Name, Tag: in.Tag, CreatedAt: time.Now().UTC().Truncate(time.Second)}
	s.mu.Lock()
	s.pets = append(s.pets, p)
	s.mu.Unlock()
	w.Header().Set("Location", "/v1/pets/"+p.ID)
	writeJSON(w, http.StatusCreated, p)
}

func (s *Store) get(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.pets {
		if p.ID == r.PathValue("id") {
			writeJSON(w, http.StatusOK, p)
			return
		}
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such pet"})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

func newID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
