package helmchart

import (
	"github.com/imgupd/imgupd/internal/netclass"
	"github.com/imgupd/imgupd/model/advice"
)

// Facts is what the failure says and which settings were in use, for the
// advice the engine gives (package advice): this package classifies, it
// does not advise.
func (e *Error) Facts() advice.Chart {
	return advice.Chart{Kind: string(e.Kind), Op: e.Op, HelmRepo: e.Source == KindHelmRepo, URL: e.URL, Host: e.Host,
		Chart: e.Chart, Versions: e.Versions, CrossHost: e.CrossHost, CredentialsSent: e.CredentialsSent,
		CredsGiven: e.auth.creds, PassCredentials: e.auth.passCreds, CAGiven: e.auth.ca, ClientCertGiven: e.auth.clientCert,
		Detail: e.detail, Limit: e.Limit, TLS: netclass.TLSFactsOf(e.Err)}
}
