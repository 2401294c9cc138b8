// Package loopback runs the lab's HTTP servers (registry, git) on
// 127.0.0.1, over plain HTTP or HTTPS with a self-signed certificate, and
// stops them cleanly.
package loopback

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

// Server is an HTTP server on a free loopback port.
type Server struct {
	// URL is "http://127.0.0.1:PORT" or "https://127.0.0.1:PORT".
	URL string
	// Host is "127.0.0.1:PORT".
	Host string
	// CAPEM is the certificate clients must trust (nil over plain HTTP).
	CAPEM []byte

	name string
	srv  *http.Server
	done chan error
	once sync.Once
	log  *log.Logger
}

// Start serves h on a free loopback port; useTLS serves HTTPS with a
// self-signed certificate named name.
func Start(name string, useTLS bool, h http.Handler, errorLog *log.Logger) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("%s: listen: %w", name, err)
	}
	s := &Server{name: name, Host: ln.Addr().String(), done: make(chan error, 1), log: errorLog}
	s.URL = "http://" + s.Host
	if useTLS {
		cert, caPEM, err := SelfSigned(name)
		if err != nil {
			ln.Close()
			return nil, fmt.Errorf("%s: certificate: %w", name, err)
		}
		s.CAPEM = caPEM
		ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		s.URL = "https://" + s.Host
	}
	s.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: errorLog}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server and closes every open connection.
func (s *Server) Close() {
	s.once.Do(func() {
		_ = s.srv.Close()
		if err := <-s.done; err != nil && !errors.Is(err, http.ErrServerClosed) && s.log != nil {
			s.log.Printf("%s: serve: %v", s.name, err)
		}
	})
}
