// Package gitserver serves git repositories over smart HTTP for tests: git
// http-backend behind net/http/cgi, the server real hosts run. It does not
// link go-git, so a test binary that only needs a server stays small. Only
// tests import it.
package gitserver

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
)

// Server is a smart-HTTP git server: git http-backend behind net/http/cgi.
type Server struct {
	// URL is the server's base; a repository made by New(t, "x") under
	// the served folder is at URL + "/x".
	URL string
	// Requests counts the requests served.
	Requests atomic.Int64
}

// Serve starts git http-backend over the folder root (every repository
// in it exported). With user set, every request needs that basic-auth
// user and password. The test is skipped when git is not installed.
func Serve(t testing.TB, root, user, password string) *Server {
	t.Helper()
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed: the smart-HTTP tests run git http-backend (apt-get install git)")
	}
	home := t.TempDir() // no user or system config of the machine leaks in
	h := &cgi.Handler{
		Path: gitBin,
		Args: []string{"http-backend"},
		Env: []string{
			"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1",
			"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH"),
		},
	}
	s := &Server{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		s.Requests.Add(1)
		if user != "" {
			u, p, ok := req.BasicAuth()
			if !ok || u != user || p != password {
				w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
				http.Error(w, "authentication required", http.StatusUnauthorized)
				return
			}
		}
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}
