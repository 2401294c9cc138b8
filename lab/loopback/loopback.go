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
	"strconv"
	"sync"
	"syscall"
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

// ClosedAddr is a loopback address ("127.0.0.1:PORT") on which connections
// are refused: a dead proxy, a registry that is down. The port is below the
// ephemeral range, found refusing a connection, so that no test server
// (they listen on port 0, which the kernel takes from the ephemeral range)
// can start listening there while a test relies on it being closed, as a
// port freed by closing a listener could.
func ClosedAddr() (string, error) { return ClosedAddrOn("127.0.0.1") }

// ClosedAddrOn is ClosedAddr on another loopback address (any of
// 127.0.0.0/8), for a test that needs two closed hosts.
func ClosedAddrOn(ip string) (string, error) {
	for port := 1; port < 1024; port++ {
		addr := net.JoinHostPort(ip, strconv.Itoa(port))
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			continue
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			return addr, nil
		}
	}
	return "", errors.New("no loopback port below 1024 refuses connections on " + ip)
}
