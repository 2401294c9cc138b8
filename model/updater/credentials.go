package updater

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/imgupd/imgupd/internal/secret"
)

// CredentialKind is the source type of a credential reference.
type CredentialKind int

const (
	CredUnknown    CredentialKind = iota
	CredPullSecret                // pullsecret:<ns>/<name>
	CredSecret                    // secret:<ns>/<name>#<field>
	CredEnv                       // env:<VAR>
	CredExt                       // ext:/abs/path
)

func (k CredentialKind) String() string {
	switch k {
	case CredPullSecret:
		return "pullsecret"
	case CredSecret:
		return "secret"
	case CredEnv:
		return "env"
	case CredExt:
		return "ext"
	}
	return "unknown"
}

// MarshalText makes the kind print as its keyword in JSON.
func (k CredentialKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// PullSecretField is the only Secret key Image Updater reads for pullsecret:.
const PullSecretField = ".dockerconfigjson"

// CredentialRef is a parsed credential reference, as used in an image's
// pullSecret (CR commonUpdateSettings or the pull-secret annotation) and in
// a registries.conf credentials key.
type CredentialRef struct {
	// Registry is the optional "<registry>=" prefix. Image Updater parses it
	// but never uses it: the credentials go to whichever endpoint the image
	// resolves to.
	Registry string         `json:"registry,omitempty"`
	Kind     CredentialKind `json:"kind"`
	// Namespace and Name locate the Secret (pullsecret, secret).
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	// Field is the Secret key: the #field of secret:, ".dockerconfigjson" for pullsecret:.
	Field string `json:"field,omitempty"`
	// Env is the environment variable of env:.
	Env string `json:"env,omitempty"`
	// Path is the executable of ext:.
	Path string `json:"path,omitempty"`
	// Raw is the reference as written.
	Raw string `json:"raw"`
}

// String is the canonical spelling of the reference.
func (r CredentialRef) String() string {
	s := ""
	if r.Registry != "" {
		s = r.Registry + "="
	}
	switch r.Kind {
	case CredPullSecret:
		return s + "pullsecret:" + r.Namespace + "/" + r.Name
	case CredSecret:
		return s + "secret:" + r.Namespace + "/" + r.Name + "#" + r.Field
	case CredEnv:
		return s + "env:" + r.Env
	case CredExt:
		return s + "ext:" + r.Path
	}
	return r.Raw
}

// Notes lists things Image Updater accepts in this reference but that will
// probably not work or do not do what they seem to (a registry prefix that
// is ignored, a pull secret name with "#", a relative ext: path, which
// fails when the credentials are fetched).
func (r CredentialRef) Notes() []string {
	var out []string
	if r.Registry != "" {
		out = append(out, fmt.Sprintf("the %q= prefix is ignored: Image Updater uses these credentials for whatever registry the image resolves to", r.Registry))
	}
	switch r.Kind {
	case CredPullSecret:
		if strings.Contains(r.Name, "#") {
			out = append(out, fmt.Sprintf("pullsecret: takes no #field, so the Secret name is read as %q, which cannot exist; for a user:password field write secret:%s/%s", r.Name, r.Namespace, r.Name))
		}
	case CredExt:
		if !strings.HasPrefix(r.Path, "/") {
			out = append(out, fmt.Sprintf("ext: path %q is not absolute; fetching fails with \"path to script must be absolute\"", r.Path))
		}
	case CredEnv:
		if !credEnvName(r.Env) {
			out = append(out, fmt.Sprintf("%q is not a usual environment variable name", r.Env))
		}
	}
	return out
}

// credEnvName reports whether s is a conventional environment variable name.
func credEnvName(s string) bool {
	for i, c := range s {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return s != ""
}

// CredentialRefError says which part of a credential reference is wrong and
// how to write it. Input is the reference with anything that may be a
// secret value replaced by "***" (a literal "user:password" written where a
// reference belongs would otherwise end up in logs).
type CredentialRefError struct {
	Input string
	// Part is "registry", "type", "value", "namespace", "name", "field" or "path".
	Part   string
	Reason string
	// Fix is a corrected spelling or what to do, for the on-call engineer.
	Fix string
	// Upstream is the error Image Updater reports for this input (masked
	// like Input); it logs "Invalid credential reference specified".
	Upstream string
}

func (e *CredentialRefError) Error() string {
	s := fmt.Sprintf("credential reference %q: %s: %s", e.Input, e.Part, e.Reason)
	if e.Fix != "" {
		s += " (" + e.Fix + ")"
	}
	return s
}

// ParseCredentialRef reads a credential reference exactly as Image Updater's
// ParseCredentialSource (requirePrefix false) does, which is how both image
// pull secrets and registries.conf credentials are read:
//
//   - an optional "<registry>=" prefix, taken only when both sides of the
//     first "=" are non-empty (otherwise the whole string is the definition);
//   - then exactly one ":" splitting a non-empty type from a non-empty value
//     (so values may not contain ":");
//   - the type is case-insensitive: pullsecret (value "<ns>/<name>", exactly
//     one "/"), secret (value "<ns>/<name>#<field>", exactly one "#" and one
//     "/"), env (any variable name), ext (any path: a relative path is only
//     rejected when credentials are fetched, see Notes).
//
// Errors are *CredentialRefError naming the wrong part.
func ParseCredentialRef(s string) (CredentialRef, error) {
	ref := CredentialRef{Raw: s}
	def := s
	if reg, rest, ok := strings.Cut(s, "="); ok && reg != "" && rest != "" {
		ref.Registry, def = reg, rest
	}
	parts := strings.Split(def, ":")
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return CredentialRef{}, credSpecError(s, ref.Registry, def, parts)
	}
	typ, val := parts[0], parts[1]
	switch strings.ToLower(typ) {
	case "pullsecret":
		ref.Kind = CredPullSecret
		ns, name, err := credNsName(s, val, "pullsecret")
		if err != nil {
			return CredentialRef{}, err
		}
		ref.Namespace, ref.Name, ref.Field = ns, name, PullSecretField
	case "secret":
		ref.Kind = CredSecret
		hashed := strings.Split(val, "#")
		if len(hashed) != 2 || hashed[0] == "" || hashed[1] == "" {
			e := &CredentialRefError{Input: s, Part: "field", Upstream: "invalid secret definition: " + val}
			switch {
			case len(hashed) == 1:
				e.Reason = "secret: needs #<field>, the Secret key holding <username>:<password>"
				e.Fix = fmt.Sprintf("write secret:%s#<field>; for a docker-registry Secret write pullsecret:%s", val, val)
			case len(hashed) > 2:
				e.Reason = "more than one '#'"
				e.Fix = "write secret:<namespace>/<name>#<field> with a single #"
			case hashed[0] == "":
				e.Part = "name"
				e.Reason = "nothing before '#'"
				e.Fix = "write secret:<namespace>/<name>#" + hashed[1]
			default:
				e.Reason = "empty field after '#'"
				e.Fix = "write secret:" + hashed[0] + "#<field>"
			}
			return CredentialRef{}, e
		}
		ns, name, err := credNsName(s, hashed[0], "secret")
		if err != nil {
			err.Upstream = "invalid secret definition: " + val
			if err.Fix != "" {
				err.Fix += "#" + hashed[1]
			}
			return CredentialRef{}, err
		}
		ref.Namespace, ref.Name, ref.Field = ns, name, hashed[1]
	case "env":
		ref.Kind, ref.Env = CredEnv, val
	case "ext":
		ref.Kind, ref.Path = CredExt, val
	default:
		e := &CredentialRefError{
			Input:    credMask(ref.Registry, typ),
			Part:     "type",
			Reason:   fmt.Sprintf("unknown type %q; the types are pullsecret, secret, env and ext", typ),
			Upstream: "unknown credential source: " + typ,
		}
		if ref.Registry == "" && strings.Contains(s, "=") {
			e.Part = "registry"
			e.Reason = "empty registry or value around '=', so the whole string was read as the type"
			e.Fix = "write <registry>=pullsecret:<namespace>/<name>, or drop the '='"
		} else if k := credGuessKind(typ); k != "" {
			e.Fix = "write " + k + ":..."
		} else {
			e.Fix = "Image Updater takes no literal credentials; store <username>:<password> in a Secret and write secret:<namespace>/<name>#<field>, or use pullsecret:<namespace>/<name>"
		}
		return CredentialRef{}, e
	}
	return ref, nil
}

func credNsName(input, val, kind string) (string, string, *CredentialRefError) {
	t := strings.Split(val, "/")
	if len(t) == 2 && t[0] != "" && t[1] != "" {
		return t[0], t[1], nil
	}
	e := &CredentialRefError{Input: input, Upstream: "invalid secret definition: " + val}
	switch {
	case len(t) == 1:
		e.Part, e.Reason = "namespace", "missing the namespace"
		e.Fix = fmt.Sprintf("write %s:<namespace>/%s", kind, val)
	case len(t) > 2:
		e.Part, e.Reason = "name", "more than one '/'; the value is <namespace>/<name>"
		e.Fix = fmt.Sprintf("write %s:<namespace>/<name>", kind)
	case t[0] == "":
		e.Part, e.Reason = "namespace", "empty namespace before '/'"
		e.Fix = fmt.Sprintf("write %s:<namespace>/%s", kind, t[1])
	default:
		e.Part, e.Reason = "name", "empty Secret name after '/'"
		e.Fix = fmt.Sprintf("write %s:%s/<name>", kind, t[0])
	}
	return "", "", e
}

// credSpecError explains an "invalid credential spec": not exactly one ":"
// with text on both sides.
func credSpecError(input, registry, def string, parts []string) *CredentialRefError {
	known := len(parts) > 0 && credKnownType(parts[0])
	masked := input
	if !known {
		masked = credMask(registry, parts[0])
		if len(parts) == 1 {
			masked = input
		}
	}
	e := &CredentialRefError{Input: masked, Upstream: "invalid credential spec: " + masked}
	switch {
	case len(parts) == 1:
		e.Part = "type"
		e.Reason = "missing the type prefix (pullsecret:, secret:, env: or ext:)"
		switch {
		case strings.HasPrefix(def, "/"):
			e.Fix = "write ext:" + def
		case strings.Contains(def, "#"):
			e.Fix = "write secret:" + def
		case strings.Count(def, "/") == 1:
			e.Fix = "write pullsecret:" + def
		case credEnvName(def) && strings.ToUpper(def) == def:
			e.Fix = "write env:" + def + ", or pullsecret:<namespace>/" + def + " for a Secret"
		default:
			e.Fix = "write pullsecret:<namespace>/" + def
		}
	case parts[0] == "":
		e.Part = "type"
		e.Reason = "empty type before ':'"
		e.Fix = "write pullsecret:, secret:, env: or ext: before the value"
	case len(parts) == 2:
		e.Part = "value"
		e.Reason = fmt.Sprintf("nothing after %q", parts[0]+":")
		e.Fix = credExample(parts[0])
	default:
		e.Part = "value"
		e.Reason = "more than one ':'; Image Updater splits on every ':' and the value may not contain one"
		if known {
			e.Fix = credExample(parts[0])
		} else {
			e.Fix = "Image Updater takes no literal credentials; store <username>:<password> in a Secret and write secret:<namespace>/<name>#<field>"
		}
	}
	return e
}

func credKnownType(t string) bool {
	switch strings.ToLower(t) {
	case "pullsecret", "secret", "env", "ext":
		return true
	}
	return false
}

func credExample(t string) string {
	switch strings.ToLower(t) {
	case "pullsecret":
		return "write pullsecret:<namespace>/<name>"
	case "secret":
		return "write secret:<namespace>/<name>#<field>"
	case "env":
		return "write env:<VARIABLE>"
	case "ext":
		return "write ext:/absolute/path/to/script (the path may not contain ':')"
	}
	return "write pullsecret:<namespace>/<name>"
}

func credGuessKind(t string) string {
	n := strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(t))
	switch n {
	case "pullsecret", "pullsecrets", "imagepullsecret", "imagepullsecrets", "dockerconfig", "dockerconfigjson", "registrysecret":
		return "pullsecret"
	case "secrets", "k8ssecret", "kubesecret":
		return "secret"
	case "environment", "envvar", "envs":
		return "env"
	case "exec", "external", "script", "cmd", "command":
		return "ext"
	}
	return ""
}

// credMask hides everything after the type of an unreadable reference.
func credMask(registry, typ string) string {
	s := typ + ":***"
	if registry != "" {
		s = registry + "=" + s
	}
	return s
}

// CredentialLevel is where a credential reference is configured.
type CredentialLevel int

const (
	// CredLevelImage is an image's pullSecret (CR commonUpdateSettings or
	// the pull-secret annotation): re-read every cycle, subject to the v1.3
	// namespace rule.
	CredLevelImage CredentialLevel = iota
	// CredLevelRegistry is registries.conf credentials: cached on the
	// endpoint until credsexpire, exempt from the namespace rule.
	CredLevelRegistry
)

// SecretNamespaceError is v1.3.0's rejection of an image-level pull secret
// in another namespace than the Application's (PR #1733). Image Updater logs
// it as an error, counts it, and skips the image.
type SecretNamespaceError struct {
	Ref          string
	Namespace    string
	AppNamespace string
}

func (e *SecretNamespaceError) Error() string {
	return fmt.Sprintf("commonUpdateSettings.pullSecret namespace '%s' differs from app namespace '%s'", e.Namespace, e.AppNamespace)
}

// Fix says how to resolve the rejection.
func (e *SecretNamespaceError) Fix() string {
	return fmt.Sprintf("copy the Secret into namespace %q and reference %s/<name>, or move the credentials to the registry's credentials in registries.conf (registry-level credentials may live in any namespace)",
		e.AppNamespace, e.AppNamespace)
}

// CheckSecretNamespace applies v1.3.0's namespace rule to a raw credential
// reference at the given level, as Image Updater does before parsing it: for
// image-level references that start with the literal, lower-case
// "pullsecret:" or "secret:", the text between the first ":" and the first
// "/" must equal the Application's namespace. Because the check is on the raw
// string, references with a "<registry>=" prefix or an upper-case type
// ("PullSecret:") are not checked, and a reference without "/" passes (it
// fails parsing later). Registry-level credentials and releases before v1.3.0
// are never checked. The error is a *SecretNamespaceError.
func CheckSecretNamespace(ref, appNamespace string, level CredentialLevel, v Version) error {
	if level != CredLevelImage || !v.SecretsMustShareAppNamespace() {
		return nil
	}
	if !strings.HasPrefix(ref, "pullsecret:") && !strings.HasPrefix(ref, "secret:") {
		return nil
	}
	_, rest, _ := strings.Cut(ref, ":")
	ns, _, ok := strings.Cut(rest, "/")
	if !ok || ns == appNamespace {
		return nil
	}
	return &SecretNamespaceError{Ref: ref, Namespace: ns, AppNamespace: appNamespace}
}

// Secret is a credential value: every way of printing or encoding it (fmt
// verbs including %#v and %x, String, GoString, JSON, text, slog) yields
// "***"; Reveal returns the value for the one caller that must send it.
// It is the module's one secret type (package internal/secret), with
// Image Updater's mask. Fields of this type must be exported for fmt to
// reach its methods when printing a containing struct.
type Secret = secret.Secret[secret.Stars]

// secretMask is what a Secret prints.
const secretMask = "***"

func secretNotes(s Secret, where string) []string {
	var out []string
	v := string(s)
	if strings.TrimRight(v, " \t\r\n") != v {
		out = append(out, fmt.Sprintf("the password from %s ends in whitespace or a newline; Image Updater sends it as-is (created with echo instead of echo -n?)", where))
	} else if strings.ContainsAny(v, "\r\n") {
		out = append(out, fmt.Sprintf("the password from %s contains a line break; Image Updater sends it as-is", where))
	}
	return out
}

// Credentials are a username and password as Image Updater hands them to
// its registry client. The password never prints (see Secret).
type Credentials struct {
	Username string `json:"username"`
	Password Secret `json:"password"`
	// Notes are non-fatal observations (a password ending in a newline...).
	// They never contain the password.
	Notes []string `json:"notes,omitempty"`
}

// Format prints the credentials with the password masked. It exists in
// addition to Secret's own methods because fmt stops calling methods inside
// a value it is already reporting as a bad verb (for example %s applied to a
// *Credentials field of another struct), and would then print the raw string.
// Any type that holds a Secret should do the same: print a copy whose Secret
// is the mask itself.
func (c Credentials) Format(f fmt.State, verb rune) {
	type credentialsView Credentials
	v := credentialsView(c)
	v.Password = secretMask
	fmt.Fprintf(f, fmt.FormatString(f, verb), v)
}

// HasPassword reports whether the password is non-empty.
func (c Credentials) HasPassword() bool { return c.Password != "" }

// CredentialErrorCode classifies credential failures; stable, for findings.
type CredentialErrorCode string

const (
	CredErrNoSource         CredentialErrorCode = "no-source"         // nothing to read secrets, env or scripts with
	CredErrUnknownKind      CredentialErrorCode = "unknown-kind"      // a CredentialRef without a kind
	CredErrEnvNotSet        CredentialErrorCode = "env-not-set"       // env var unset or empty
	CredErrMalformed        CredentialErrorCode = "malformed"         // value is not <username>:<password>
	CredErrSecretUnreadable CredentialErrorCode = "secret-unreadable" // the Secret could not be read
	CredErrFieldMissing     CredentialErrorCode = "field-missing"     // the Secret has no such key
	CredErrDockerConfig     CredentialErrorCode = "dockerconfig-invalid"
	CredErrNoAuthEntry      CredentialErrorCode = "no-auth-entry" // no auths key matches the registry
	CredErrPathNotAbsolute  CredentialErrorCode = "path-not-absolute"
	CredErrExecFailed       CredentialErrorCode = "exec-failed"
)

// CredentialError is a failure to turn a credential reference into
// credentials. Error() is the text Image Updater logs after "Could not fetch
// credentials: " where the model knows it; Reason and Fix explain. No field
// ever holds a secret value; Err is the caller's I/O error, if any, and the
// CredentialSource contract forbids values in it.
type CredentialError struct {
	Code CredentialErrorCode
	Kind CredentialKind
	// Key is the auths key of a pull secret the error is about, if any.
	Key      string
	Reason   string
	Fix      string
	Upstream string
	Err      error
}

func (e *CredentialError) Error() string {
	if e.Upstream != "" {
		return e.Upstream
	}
	if e.Err != nil {
		return e.Reason + ": " + e.Err.Error()
	}
	return e.Reason
}

func (e *CredentialError) Unwrap() error { return e.Err }

// ParseUserPass splits "<username>:<password>" at the first ":" as Image
// Updater does for secret fields, ext: output and decoded pull-secret auth
// strings: both parts may be empty, the password may contain ":". (env:
// additionally requires both parts non-empty; ResolveCredentials checks
// that.) The error never contains the value.
func ParseUserPass(s string) (Credentials, error) {
	user, pass, ok := strings.Cut(s, ":")
	if !ok {
		return Credentials{}, &CredentialError{Code: CredErrMalformed,
			Reason: fmt.Sprintf("value (%d characters) is not <username>:<password>: it has no ':'", len(s)),
			Fix:    "store the value as <username>:<password>, e.g. a robot account name and its token"}
	}
	return Credentials{Username: user, Password: Secret(pass)}, nil
}

// CredentialSource is the I/O the model needs to resolve credentials; the
// caller implements it against the real environment, cluster and file
// system. Implementations must not put secret values into errors.
type CredentialSource interface {
	// Env looks up an environment variable of the Image Updater process.
	Env(name string) (string, bool)
	// Secret reads a Secret's data.
	Secret(ctx context.Context, namespace, name string) (map[string][]byte, error)
	// Exec runs the executable at path without arguments (Image Updater
	// allows 10 s) and returns its standard output unmodified.
	Exec(ctx context.Context, path string) (string, error)
}

// ResolveCredentials fetches the credentials ref points to for endpoint ep,
// with FetchCredentials' semantics:
//
//   - pullsecret: reads the Secret's ".dockerconfigjson" key and picks the
//     auths entry for ep (MatchDockerConfig);
//   - secret: the field must hold <username>:<password> (either part may
//     be empty; nothing is trimmed);
//   - env: the variable must be set, non-empty, and <username>:<password>
//     with both parts non-empty;
//   - ext: the path must be absolute; the output, less one trailing
//     newline, must be <username>:<password>.
//
// Errors are *CredentialError (or *CredentialRefError for an unusable ref)
// and never contain secret values.
func ResolveCredentials(ctx context.Context, ref CredentialRef, ep Endpoint, src CredentialSource) (Credentials, error) {
	if ref.Kind == CredUnknown {
		return Credentials{}, &CredentialError{Code: CredErrUnknownKind, Reason: "credential reference has no type", Upstream: "unknown credential type"}
	}
	if src == nil {
		return Credentials{}, &CredentialError{Code: CredErrNoSource, Kind: ref.Kind,
			Reason: "no credential source to read " + ref.Kind.String() + " credentials from"}
	}
	switch ref.Kind {
	case CredEnv:
		val, set := src.Env(ref.Env)
		if val == "" {
			reason := fmt.Sprintf("environment variable %s is not set in the Image Updater container", ref.Env)
			if set {
				reason = fmt.Sprintf("environment variable %s is set but empty, which Image Updater treats as not set", ref.Env)
			}
			return Credentials{}, &CredentialError{Code: CredErrEnvNotSet, Kind: CredEnv, Reason: reason,
				Fix:      fmt.Sprintf("set %s to <username>:<password> in the Image Updater Deployment (env or envFrom a Secret)", ref.Env),
				Upstream: fmt.Sprintf("could not fetch credentials: env '%s' is not set", ref.Env)}
		}
		user, pass, ok := strings.Cut(val, ":")
		if !ok || user == "" || pass == "" {
			return Credentials{}, &CredentialError{Code: CredErrMalformed, Kind: CredEnv,
				Reason:   fmt.Sprintf("environment variable %s (%d characters) is not <username>:<password> with both parts non-empty", ref.Env, len(val)),
				Fix:      fmt.Sprintf("set %s to <username>:<password>", ref.Env),
				Upstream: fmt.Sprintf("could not fetch credentials: value of %s is malformed", ref.Env)}
		}
		c := Credentials{Username: user, Password: Secret(pass)}
		c.Notes = secretNotes(c.Password, "env "+ref.Env)
		return c, nil

	case CredSecret:
		data, err := credReadField(ctx, src, ref, ref.Field)
		if err != nil {
			return Credentials{}, err
		}
		c, perr := ParseUserPass(string(data))
		if perr != nil {
			return Credentials{}, &CredentialError{Code: CredErrMalformed, Kind: CredSecret,
				Reason:   fmt.Sprintf("field %q of Secret %s/%s (%d bytes) is not <username>:<password>", ref.Field, ref.Namespace, ref.Name, len(data)),
				Fix:      "store <username>:<password> in the field (a password or token alone is not enough)",
				Upstream: fmt.Sprintf("invalid credentials in secret '%s' from namespace '%s' (field '%s')", ref.Name, ref.Namespace, ref.Field)}
		}
		c.Notes = secretNotes(c.Password, fmt.Sprintf("Secret %s/%s field %s", ref.Namespace, ref.Name, ref.Field))
		if json.Valid(data) && strings.Contains(string(data), "auths") {
			c.Notes = append(c.Notes, fmt.Sprintf("field %q holds a docker config JSON; Image Updater splits it at the first ':' and sends nonsense as username and password; write pullsecret:%s/%s instead", ref.Field, ref.Namespace, ref.Name))
		}
		return c, nil

	case CredPullSecret:
		data, err := credReadField(ctx, src, ref, PullSecretField)
		if err != nil {
			return Credentials{}, err
		}
		m, merr := MatchDockerConfig(data, ep)
		if merr != nil {
			return Credentials{}, merr
		}
		return m.Credentials, nil

	case CredExt:
		if !strings.HasPrefix(ref.Path, "/") {
			return Credentials{}, &CredentialError{Code: CredErrPathNotAbsolute, Kind: CredExt,
				Reason:   fmt.Sprintf("ext: path %q is not absolute", ref.Path),
				Fix:      "write ext:/absolute/path/inside/the/image-updater/container",
				Upstream: fmt.Sprintf("path to script must be absolute, but is '%s'", ref.Path)}
		}
		out, err := src.Exec(ctx, ref.Path)
		if err != nil {
			return Credentials{}, &CredentialError{Code: CredErrExecFailed, Kind: CredExt,
				Reason:   fmt.Sprintf("running %s failed", ref.Path),
				Fix:      "check that the script exists in the Image Updater container, is executable, and finishes within 10 s",
				Upstream: fmt.Sprintf("error executing %s: %v", ref.Path, err), Err: err}
		}
		out = strings.TrimSuffix(out, "\n")
		c, perr := ParseUserPass(out)
		if perr != nil {
			return Credentials{}, &CredentialError{Code: CredErrMalformed, Kind: CredExt,
				Reason:   fmt.Sprintf("output of %s (%d bytes) is not <username>:<password>", ref.Path, len(out)),
				Fix:      "make the script print exactly one line <username>:<password>",
				Upstream: "invalid script output, must be single line with syntax <username>:<password>"}
		}
		c.Notes = secretNotes(c.Password, "the output of "+ref.Path)
		return c, nil
	}
	return Credentials{}, &CredentialError{Code: CredErrUnknownKind, Reason: "unknown credential type", Upstream: "unknown credential type"}
}

func credReadField(ctx context.Context, src CredentialSource, ref CredentialRef, field string) ([]byte, error) {
	data, err := src.Secret(ctx, ref.Namespace, ref.Name)
	if err != nil {
		return nil, &CredentialError{Code: CredErrSecretUnreadable, Kind: ref.Kind,
			Reason:   fmt.Sprintf("could not read Secret %s/%s", ref.Namespace, ref.Name),
			Fix:      fmt.Sprintf("check that Secret %s exists in namespace %s and that Image Updater's ServiceAccount may get Secrets there", ref.Name, ref.Namespace),
			Upstream: fmt.Sprintf("could not fetch secret '%s' from namespace '%s' (field: '%s'): %v", ref.Name, ref.Namespace, field, err),
			Err:      err}
	}
	v, ok := data[field]
	if !ok {
		keys := make([]string, 0, len(data))
		for k := range data {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fix := fmt.Sprintf("the Secret has keys %s", strings.Join(keys, ", "))
		if len(keys) == 0 {
			fix = "the Secret has no data"
		}
		if field == PullSecretField {
			if _, old := data[".dockercfg"]; old {
				fix = "this is a kubernetes.io/dockercfg Secret; Image Updater reads only .dockerconfigjson: recreate it with kubectl create secret docker-registry"
			} else {
				fix += "; pullsecret: needs a kubernetes.io/dockerconfigjson Secret (kubectl create secret docker-registry), or use secret:" + ref.Namespace + "/" + ref.Name + "#<field> for a <username>:<password> field"
			}
		} else if len(keys) > 0 {
			fix += "; write secret:" + ref.Namespace + "/" + ref.Name + "#<one of them>"
		}
		return nil, &CredentialError{Code: CredErrFieldMissing, Kind: ref.Kind,
			Reason: fmt.Sprintf("Secret %s/%s has no key %q", ref.Namespace, ref.Name, field),
			Fix:    fix,
			Upstream: fmt.Sprintf("could not fetch secret '%s' from namespace '%s' (field: '%s'): secret '%s/%s' does not have a field '%s'",
				ref.Name, ref.Namespace, field, ref.Namespace, ref.Name, field)}
	}
	return v, nil
}

// DockerAuthKey is one key of a pull secret's auths and what the matcher
// made of it.
type DockerAuthKey struct {
	Key     string `json:"key"`
	Matched bool   `json:"matched"`
	// SameRegistry is true for a key that names the endpoint's registry in a
	// spelling the matcher does not accept (index.docker.io for Docker Hub,
	// another scheme, upper case...).
	SameRegistry bool   `json:"sameRegistry,omitempty"`
	Reason       string `json:"reason"`
}

// DockerAuthMatch is the outcome of matching a pull secret against an endpoint.
type DockerAuthMatch struct {
	// Want are the two strings a key must start with: the API URL and the
	// API URL without scheme and trailing "/".
	Want []string `json:"want"`
	// Key is the auths key used ("" when none matched).
	Key         string      `json:"key,omitempty"`
	Credentials Credentials `json:"credentials"`
	// Keys are all auths keys, sorted, with verdicts.
	Keys []DockerAuthKey `json:"keys"`
	// Candidates are the keys that match. With more than one, Image Updater
	// takes whichever its map iteration yields first, which Go randomises on
	// every run; the model takes the first in sorted order and sets Ambiguous.
	Candidates []string `json:"candidates,omitempty"`
	Ambiguous  bool     `json:"ambiguous,omitempty"`
	// Flapping is true when the candidates would give different results, so
	// Image Updater's outcome changes from cycle to cycle.
	Flapping bool `json:"flapping,omitempty"`
	// Suggestion is the auths key to add when none matched.
	Suggestion string `json:"suggestion,omitempty"`
}

// Format prints the match with the password masked (see Credentials.Format).
func (m DockerAuthMatch) Format(f fmt.State, verb rune) {
	type dockerAuthMatchView DockerAuthMatch
	v := dockerAuthMatchView(m)
	v.Credentials.Password = secretMask
	fmt.Fprintf(f, fmt.FormatString(f, verb), v)
}

// isDockerHubHost reports whether h (lower-case) is one of Docker Hub's names.
func isDockerHubHost(h string) bool {
	switch h {
	case "docker.io", "index.docker.io", "registry-1.docker.io", "registry.hub.docker.com", "hub.docker.com":
		return true
	}
	return false
}

// credKeyHost reduces an auths key or URL to a lower-case host.
func credKeyHost(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	h, _, _ := strings.Cut(s, "/")
	return h
}

// MatchDockerConfig picks the credentials for ep from a .dockerconfigjson,
// as Image Updater's parseDockerConfigJson does: the JSON must be an object
// with an "auths" object; an auths key matches when it STARTS WITH the API
// URL (e.g. "https://registry-1.docker.io") or with the API URL minus scheme
// and trailing "/" ("registry-1.docker.io"). Keys written by docker login
// for Docker Hub ("https://index.docker.io/v1/", "docker.io") do not match.
// Only the entry's "auth" field is read (base64 of <username>:<password>);
// username/password fields are ignored. A matching entry that is malformed
// fails the whole lookup, even if another key would have worked.
//
// Image Updater ranges over a Go map, so when several keys match it takes a
// random one each cycle; the model picks the first in sorted order and
// reports Ambiguous/Flapping. Errors are *CredentialError; with no match the
// text is "no valid auth entry for registry <api_url> found in image pull
// secret" and the result still lists every key with the reason it did not
// match, and a Suggestion.
func MatchDockerConfig(dockerconfigjson []byte, ep Endpoint) (DockerAuthMatch, error) {
	registryURL := ep.APIURL
	regPrefix := registryURL
	if after, ok := strings.CutPrefix(registryURL, "http://"); ok {
		regPrefix = after
	} else if after, ok := strings.CutPrefix(registryURL, "https://"); ok {
		regPrefix = after
	}
	regPrefix = strings.TrimSuffix(regPrefix, "/")
	m := DockerAuthMatch{Want: []string{registryURL, regPrefix}}

	var conf map[string]any
	if err := json.Unmarshal(dockerconfigjson, &conf); err != nil {
		return m, &CredentialError{Code: CredErrDockerConfig, Kind: CredPullSecret,
			Reason: "the .dockerconfigjson is not a JSON object",
			Fix:    "recreate the Secret with kubectl create secret docker-registry",
			// Image Updater returns the JSON error itself.
			Upstream: err.Error()}
	}
	auths, ok := conf["auths"].(map[string]any)
	if !ok {
		fix := "the JSON needs {\"auths\": {\"<registry>\": {\"auth\": \"<base64 of username:password>\"}}}"
		if _, helpers := conf["credHelpers"]; helpers {
			fix = "credHelpers/credsStore are not supported; " + fix
		}
		return m, &CredentialError{Code: CredErrDockerConfig, Kind: CredPullSecret,
			Reason: "the .dockerconfigjson has no auths object", Fix: fix,
			Upstream: "no credentials in image pull secret"}
	}
	keys := make([]string, 0, len(auths))
	for k := range auths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	epHost := credKeyHost(registryURL)
	for _, k := range keys {
		v := DockerAuthKey{Key: k}
		switch {
		case strings.TrimSpace(k) == "":
			v.Reason = "is empty: it names no registry"
		case strings.HasPrefix(k, registryURL):
			v.Matched, v.Reason = true, fmt.Sprintf("starts with the API URL %q", registryURL)
		case strings.HasPrefix(k, regPrefix):
			v.Matched, v.Reason = true, fmt.Sprintf("starts with the registry host %q", regPrefix)
		default:
			kh := credKeyHost(k)
			switch {
			case kh == epHost:
				v.SameRegistry = true
				v.Reason = fmt.Sprintf("names the same host but starts with neither %q nor %q (scheme, case or spacing differ)", registryURL, regPrefix)
			case isDockerHubHost(kh) && isDockerHubHost(epHost):
				v.SameRegistry = true
				v.Reason = fmt.Sprintf("is a Docker Hub key as docker login writes it, but Image Updater only accepts keys starting with %q or %q", registryURL, regPrefix)
			default:
				v.Reason = fmt.Sprintf("starts with neither %q nor %q", registryURL, regPrefix)
			}
		}
		m.Keys = append(m.Keys, v)
		if v.Matched {
			m.Candidates = append(m.Candidates, k)
		}
	}
	if len(m.Candidates) == 0 {
		m.Suggestion = registryURL
		fix := fmt.Sprintf("add an auths entry keyed %q (or %q) with the same auth", registryURL, regPrefix)
		for _, k := range m.Keys {
			if k.SameRegistry {
				fix = fmt.Sprintf("rename the auths key %q to %q (or add a copy under that key)", k.Key, registryURL)
				break
			}
		}
		if len(keys) == 0 {
			fix = fmt.Sprintf("the auths object is empty; add an entry keyed %q", registryURL)
		}
		return m, &CredentialError{Code: CredErrNoAuthEntry, Kind: CredPullSecret,
			Reason:   fmt.Sprintf("no auths key of the pull secret starts with %q or %q", registryURL, regPrefix),
			Fix:      fix,
			Upstream: fmt.Sprintf("no valid auth entry for registry %s found in image pull secret", registryURL)}
	}

	type outcome struct {
		c   Credentials
		err error
	}
	results := make([]outcome, len(m.Candidates))
	for i, k := range m.Candidates {
		c, err := credDecodeAuthEntry(k, auths[k])
		results[i] = outcome{c, err}
	}
	if len(m.Candidates) > 1 {
		m.Ambiguous = true
		for _, r := range results[1:] {
			if (r.err == nil) != (results[0].err == nil) || (r.err == nil &&
				(r.c.Username != results[0].c.Username || r.c.Password != results[0].c.Password)) {
				m.Flapping = true
			}
		}
	}
	m.Key = m.Candidates[0]
	if results[0].err != nil {
		return m, results[0].err
	}
	m.Credentials = results[0].c
	m.Credentials.Notes = append(m.Credentials.Notes, secretNotes(m.Credentials.Password, "auths entry "+m.Key)...)
	return m, nil
}

func credDecodeAuthEntry(key string, v any) (Credentials, error) {
	entry, ok := v.(map[string]any)
	if !ok {
		return Credentials{}, &CredentialError{Code: CredErrDockerConfig, Kind: CredPullSecret, Key: key,
			Reason:   fmt.Sprintf("auths entry %q is not an object", key),
			Fix:      "each auths entry must be {\"auth\": \"<base64 of username:password>\"}",
			Upstream: fmt.Sprintf("invalid auth entry for registry entry %s ('auths' entry should be map)", key)}
	}
	auth, ok := entry["auth"].(string)
	if !ok {
		fix := "add \"auth\": base64 of <username>:<password>"
		if _, u := entry["username"]; u {
			fix = "Image Updater reads only \"auth\", not username/password; add \"auth\": base64 of <username>:<password>"
		}
		return Credentials{}, &CredentialError{Code: CredErrDockerConfig, Kind: CredPullSecret, Key: key,
			Reason:   fmt.Sprintf("auths entry %q has no string \"auth\" field", key),
			Fix:      fix,
			Upstream: fmt.Sprintf("invalid auth token for registry entry %s ('auth' should be string')", key)}
	}
	raw, err := base64.StdEncoding.DecodeString(auth)
	if err != nil {
		return Credentials{}, &CredentialError{Code: CredErrDockerConfig, Kind: CredPullSecret, Key: key,
			Reason:   fmt.Sprintf("the auth of entry %q is not standard, padded base64", key),
			Fix:      "set auth to the output of: printf '%s' '<username>:<password>' | base64 -w0",
			Upstream: fmt.Sprintf("could not base64-decode auth data for registry entry %s: %v", key, err)}
	}
	c, perr := ParseUserPass(string(raw))
	if perr != nil {
		return Credentials{}, &CredentialError{Code: CredErrMalformed, Kind: CredPullSecret, Key: key,
			Reason:   fmt.Sprintf("the decoded auth of entry %q (%d bytes) has no ':' between username and password", key, len(raw)),
			Fix:      "auth must be base64 of <username>:<password>, not of the token alone",
			Upstream: fmt.Sprintf("invalid data after base64 decoding auth entry for registry entry %s", key)}
	}
	return c, nil
}
