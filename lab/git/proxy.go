package labgit

import (
	"bufio"
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Proxy is a forward proxy on 127.0.0.1, for a repository's proxy setting
// (Argo CD's repository Secret field proxy): an HTTP proxy (StartProxy)
// that tunnels CONNECT and forwards plain-HTTP requests, or a SOCKS5 proxy
// (StartSOCKS5Proxy), which Argo CD uses for SSH repositories. It can
// require credentials, map host names to loopback so a client can use a
// name that only the proxy resolves (as behind a real proxy), and refuse
// hosts. Its exported fields are set at start and must not be changed.
type Proxy struct {
	// URL is "http://127.0.0.1:PORT" or "socks5://127.0.0.1:PORT", without
	// credentials (see URLWithAuth).
	URL string
	// Host is "127.0.0.1:PORT".
	Host string

	cfg  proxyConfig
	ln   net.Listener
	http *http.Server
	wg   sync.WaitGroup
	once sync.Once

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	targets []string
	refused int
}

// ProxyOption configures a Proxy.
type ProxyOption func(*proxyConfig)

type proxyConfig struct {
	user, pass string
	hosts      map[string]string
	deny       map[string]bool
	errorLog   *log.Logger
}

// WithProxyAuth requires these credentials: HTTP Proxy-Authorization
// Basic (407 otherwise), or SOCKS5 username/password authentication.
func WithProxyAuth(username, password string) ProxyOption {
	return func(c *proxyConfig) { c.user, c.pass = username, password }
}

// WithProxyHost makes the proxy connect to target (a host or IP, no port)
// when asked for name; the requested port is kept. Use it with names that
// resolve nowhere ("git.corp.example" → "127.0.0.1").
func WithProxyHost(name, target string) ProxyOption {
	return func(c *proxyConfig) { c.hosts[strings.ToLower(name)] = target }
}

// WithProxyDeny refuses connections to these host names: the HTTP proxy
// answers CONNECT with 403 Forbidden, the SOCKS5 proxy with "connection
// not allowed by ruleset".
func WithProxyDeny(names ...string) ProxyOption {
	return func(c *proxyConfig) {
		for _, n := range names {
			c.deny[strings.ToLower(n)] = true
		}
	}
}

// StartProxy starts an HTTP forward proxy: CONNECT tunnels (what HTTPS
// clients use) and absolute-URL requests (plain HTTP through a proxy).
func StartProxy(opts ...ProxyOption) (*Proxy, error) {
	p, err := newProxy("http", opts)
	if err != nil {
		return nil, err
	}
	p.http = &http.Server{Handler: http.HandlerFunc(p.serveHTTP), ReadHeaderTimeout: 10 * time.Second, ErrorLog: p.cfg.errorLog}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		_ = p.http.Serve(p.ln)
	}()
	return p, nil
}

// StartSOCKS5Proxy starts a SOCKS5 proxy (RFC 1928, CONNECT only; RFC
// 1929 username/password with WithProxyAuth).
func StartSOCKS5Proxy(opts ...ProxyOption) (*Proxy, error) {
	p, err := newProxy("socks5", opts)
	if err != nil {
		return nil, err
	}
	p.wg.Add(1)
	go p.acceptSOCKS()
	return p, nil
}

func newProxy(scheme string, opts []ProxyOption) (*Proxy, error) {
	p := &Proxy{cfg: proxyConfig{hosts: map[string]string{}, deny: map[string]bool{}}, conns: map[net.Conn]struct{}{}}
	for _, o := range opts {
		o(&p.cfg)
	}
	if p.cfg.errorLog == nil {
		p.cfg.errorLog = log.New(io.Discard, "", 0)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("labgit: proxy listen: %w", err)
	}
	p.ln, p.Host, p.URL = ln, ln.Addr().String(), scheme+"://"+ln.Addr().String()
	return p, nil
}

// URLWithAuth is URL with the WithProxyAuth credentials as userinfo, as a
// repository Secret's proxy field carries them.
func (p *Proxy) URLWithAuth() string {
	if p.cfg.user == "" {
		return p.URL
	}
	scheme, rest, _ := strings.Cut(p.URL, "://")
	return scheme + "://" + p.cfg.user + ":" + p.cfg.pass + "@" + rest
}

// Targets returns the host:port targets clients asked the proxy for
// (CONNECT, SOCKS5 CONNECT or a forwarded request's host), in order,
// refused ones included.
func (p *Proxy) Targets() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.targets...)
}

// Refused counts requests refused for missing or wrong credentials or a
// denied host.
func (p *Proxy) Refused() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused
}

// Close stops the proxy and closes every tunnel.
func (p *Proxy) Close() {
	p.once.Do(func() {
		if p.http != nil {
			_ = p.http.Close()
		} else {
			_ = p.ln.Close()
		}
		p.mu.Lock()
		for c := range p.conns {
			_ = c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
}

func (p *Proxy) record(target string) {
	p.mu.Lock()
	p.targets = append(p.targets, target)
	p.mu.Unlock()
}

func (p *Proxy) refuse() {
	p.mu.Lock()
	p.refused++
	p.mu.Unlock()
}

// track registers (or forgets) a tunnel connection for Close.
func (p *Proxy) track(c net.Conn, add bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if add {
		p.conns[c] = struct{}{}
	} else {
		delete(p.conns, c)
	}
}

// dialTarget resolves a mapped name and dials host:port.
func (p *Proxy) dialTarget(ctx context.Context, hostport string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, err
	}
	if t, ok := p.cfg.hosts[strings.ToLower(host)]; ok {
		host = t
	}
	d := net.Dialer{Timeout: 10 * time.Second}
	return d.DialContext(ctx, "tcp", net.JoinHostPort(host, port))
}

func (p *Proxy) denied(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	return p.cfg.deny[strings.ToLower(host)]
}

func (p *Proxy) credentialsOK(user, pass string) bool {
	if p.cfg.user == "" {
		return true
	}
	u := subtle.ConstantTimeCompare([]byte(user), []byte(p.cfg.user))
	w := subtle.ConstantTimeCompare([]byte(pass), []byte(p.cfg.pass))
	return u&w == 1
}

func (p *Proxy) serveHTTP(w http.ResponseWriter, r *http.Request) {
	target := r.Host
	if r.Method != http.MethodConnect {
		if r.URL.Host == "" {
			http.Error(w, "labgit proxy: not a proxy request", http.StatusBadRequest)
			return
		}
		target = r.URL.Host
		if _, _, err := net.SplitHostPort(target); err != nil {
			target = net.JoinHostPort(target, "80")
		}
	}
	p.record(target)
	if p.cfg.user != "" {
		user, pass, ok := parseProxyAuth(r.Header.Get("Proxy-Authorization"))
		if !ok || !p.credentialsOK(user, pass) {
			p.refuse()
			w.Header().Set("Proxy-Authenticate", `Basic realm="labgit proxy"`)
			http.Error(w, "Proxy Authentication Required", http.StatusProxyAuthRequired)
			return
		}
	}
	if p.denied(target) {
		p.refuse()
		http.Error(w, "labgit proxy: host denied", http.StatusForbidden)
		return
	}
	if r.Method != http.MethodConnect {
		p.forward(w, r)
		return
	}
	up, err := p.dialTarget(r.Context(), target)
	if err != nil {
		http.Error(w, "labgit proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "labgit proxy: no hijacking", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if _, err := io.WriteString(down, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		down.Close()
		up.Close()
		return
	}
	p.pipe(down, buf.Reader, up)
}

// forward relays one absolute-URL request.
func (p *Proxy) forward(w http.ResponseWriter, r *http.Request) {
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL = r.URL
			pr.Out.Host = r.Host
			pr.Out.Header.Del("Proxy-Authorization")
		},
		Transport: &http.Transport{
			Proxy:       nil,
			DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) { return p.dialTarget(ctx, addr) },
		},
		ErrorLog: p.cfg.errorLog,
	}
	rp.ServeHTTP(w, r)
}

// pipe copies both ways until either side ends; buffered holds bytes the
// client sent after its request.
func (p *Proxy) pipe(down net.Conn, buffered io.Reader, up net.Conn) {
	p.track(down, true)
	p.track(up, true)
	defer func() {
		p.track(down, false)
		p.track(up, false)
	}()
	done := make(chan struct{}, 2)
	go func() {
		_, _ = io.Copy(up, io.MultiReader(buffered, down))
		closeWrite(up)
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(down, up)
		closeWrite(down)
		done <- struct{}{}
	}()
	<-done
	<-done
	_ = down.Close()
	_ = up.Close()
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	_ = c.Close()
}

func parseProxyAuth(h string) (user, pass string, ok bool) {
	const prefix = "Basic "
	if len(h) < len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", "", false
	}
	b, err := base64.StdEncoding.DecodeString(h[len(prefix):])
	if err != nil {
		return "", "", false
	}
	user, pass, ok = strings.Cut(string(b), ":")
	return user, pass, ok
}

func (p *Proxy) acceptSOCKS() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.serveSOCKS(c)
		}()
	}
}

// SOCKS5 constants (RFC 1928, RFC 1929).
const (
	socksVersion         = 5
	socksNoAuth          = 0x00
	socksUserPass        = 0x02
	socksNoAcceptable    = 0xff
	socksCmdConnect      = 0x01
	socksAtypIPv4        = 0x01
	socksAtypDomain      = 0x03
	socksAtypIPv6        = 0x04
	socksSucceeded       = 0x00
	socksGeneralFailure  = 0x01
	socksNotAllowed      = 0x02
	socksHostUnreachable = 0x04
	socksCmdNotSupported = 0x07
)

func (p *Proxy) serveSOCKS(c net.Conn) {
	p.track(c, true)
	handed := false
	defer func() {
		if !handed {
			p.track(c, false)
			_ = c.Close()
		}
	}()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	var hdr [2]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil || hdr[0] != socksVersion {
		return
	}
	methods := make([]byte, hdr[1])
	if _, err := io.ReadFull(br, methods); err != nil {
		return
	}
	want := byte(socksNoAuth)
	if p.cfg.user != "" {
		want = socksUserPass
	}
	if !strings.ContainsRune(string(methods), rune(want)) {
		p.refuse()
		_, _ = c.Write([]byte{socksVersion, socksNoAcceptable})
		return
	}
	if _, err := c.Write([]byte{socksVersion, want}); err != nil {
		return
	}
	if want == socksUserPass {
		user, pass, err := readSOCKSUserPass(br)
		if err != nil {
			return
		}
		if !p.credentialsOK(user, pass) {
			p.refuse()
			_, _ = c.Write([]byte{1, 1})
			return
		}
		if _, err := c.Write([]byte{1, 0}); err != nil {
			return
		}
	}
	var req [4]byte
	if _, err := io.ReadFull(br, req[:]); err != nil || req[0] != socksVersion {
		return
	}
	host, err := readSOCKSAddr(br, req[3])
	if err != nil {
		return
	}
	var portb [2]byte
	if _, err := io.ReadFull(br, portb[:]); err != nil {
		return
	}
	target := net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(portb[:]))))
	reply := func(code byte) error {
		_, err := c.Write([]byte{socksVersion, code, 0, socksAtypIPv4, 0, 0, 0, 0, 0, 0})
		return err
	}
	if req[1] != socksCmdConnect {
		_ = reply(socksCmdNotSupported)
		return
	}
	p.record(target)
	if p.denied(target) {
		p.refuse()
		_ = reply(socksNotAllowed)
		return
	}
	up, err := p.dialTarget(context.Background(), target)
	if err != nil {
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) {
			_ = reply(socksHostUnreachable)
		} else {
			_ = reply(socksGeneralFailure)
		}
		return
	}
	if err := reply(socksSucceeded); err != nil {
		up.Close()
		return
	}
	_ = c.SetDeadline(time.Time{})
	handed = true
	p.track(c, false)
	p.pipe(c, br, up)
}

func readSOCKSUserPass(br *bufio.Reader) (string, string, error) {
	ver, err := br.ReadByte()
	if err != nil || ver != 1 {
		return "", "", errors.New("bad auth version")
	}
	read := func() (string, error) {
		n, err := br.ReadByte()
		if err != nil {
			return "", err
		}
		b := make([]byte, n)
		_, err = io.ReadFull(br, b)
		return string(b), err
	}
	user, err := read()
	if err != nil {
		return "", "", err
	}
	pass, err := read()
	return user, pass, err
}

func readSOCKSAddr(br *bufio.Reader, atyp byte) (string, error) {
	switch atyp {
	case socksAtypIPv4, socksAtypIPv6:
		n := 4
		if atyp == socksAtypIPv6 {
			n = 16
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(br, b); err != nil {
			return "", err
		}
		return net.IP(b).String(), nil
	case socksAtypDomain:
		n, err := br.ReadByte()
		if err != nil {
			return "", err
		}
		b := make([]byte, n)
		_, err = io.ReadFull(br, b)
		return string(b), err
	}
	return "", errors.New("bad address type")
}
