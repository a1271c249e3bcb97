package apiserver

import "github.com/gorilla/mux"

// routes is the one route table. Specific paths come before parameterised
// ones (/v1/projects/me before /v1/projects/{id}). Routes contributed by the
// pipeline (event ingest and listing, OTLP) are added at run time by Handle.
func (s *Server) routes(r *mux.Router) {
	v1 := r.PathPrefix("/v1").Subrouter()

	v1.HandleFunc("/health", s.health).Methods("GET")

	v1.HandleFunc("/auth/register", s.register).Methods("POST")
	v1.HandleFunc("/auth/login", s.login).Methods("POST")

	v1.HandleFunc("/projects", s.createProject).Methods("POST")
	v1.HandleFunc("/projects/me", s.keyProject).Methods("GET")
}
